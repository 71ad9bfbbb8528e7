#include "devices/cpu/cpu_topology.hpp"

#include <algorithm>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <pthread.h>
#include <sched.h>
#include <sstream>
#include <unistd.h>

namespace kiln::cpu {
namespace {

const std::string kCpuFolder = "/sys/devices/system/cpu/cpu";

/// The first line of a sysfs file, or none when it cannot be read.
std::optional<std::string> readLine(const std::string &path) {
  std::ifstream file(path);
  std::string line;
  if (!file || !std::getline(file, line))
    return std::nullopt;
  return line;
}

/// The CPUs of the NUMA node `cpu` belongs to (sysfs links cpuN/nodeM for it).
std::optional<std::string> numaNodeCpus(int cpu) {
  std::string folder = kCpuFolder + std::to_string(cpu);
  DIR *directory = opendir(folder.c_str());
  if (directory == nullptr)
    return std::nullopt;
  std::optional<std::string> node;
  while (dirent *entry = readdir(directory)) {
    std::string name = entry->d_name;
    if (name.size() > 4 && name.compare(0, 4, "node") == 0 &&
        name.find_first_not_of("0123456789", 4) == std::string::npos)
      node = name;
  }
  closedir(directory);
  if (!node)
    return std::nullopt;
  return readLine("/sys/devices/system/node/" + *node + "/cpulist");
}

/// The cache level a CL_DEVICE_AFFINITY_DOMAIN_*_CACHE bit names, or 0.
int cacheLevel(cl_device_affinity_domain level) {
  switch (level) {
  case CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE:
    return 1;
  case CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE:
    return 2;
  case CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE:
    return 3;
  case CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE:
    return 4;
  default:
    return 0;
  }
}

struct CacheDescription {
  int level;
  std::string sharedCpus; // sysfs's shared_cpu_list, e.g. "0-7,64-71"
};

/// `cpu`'s data and unified caches (instruction caches share nothing with data).
std::vector<CacheDescription> dataCaches(int cpu) {
  std::vector<CacheDescription> caches;
  std::string prefix = kCpuFolder + std::to_string(cpu) + "/cache/index";
  for (int index = 0;; ++index) {
    std::string folder = prefix + std::to_string(index);
    std::optional<std::string> level = readLine(folder + "/level");
    if (!level)
      return caches;
    std::optional<std::string> type = readLine(folder + "/type");
    std::optional<std::string> shared = readLine(folder + "/shared_cpu_list");
    if (shared && !(type && *type == "Instruction"))
      caches.push_back({std::atoi(level->c_str()), *shared});
  }
}

} // namespace

std::vector<int> allowedCpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set))
        cpus.push_back(cpu);
  if (cpus.empty()) // no affinity mask: every online CPU
    for (long cpu = 0; cpu < std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)); ++cpu)
      cpus.push_back(static_cast<int>(cpu));
  return cpus;
}

std::vector<int> parseCpuList(const std::string &list) {
  std::vector<int> cpus;
  std::istringstream ranges(list);
  for (std::string range; std::getline(ranges, range, ',');) {
    int first = 0, last = 0;
    char dash = 0;
    std::istringstream bounds(range);
    if (!(bounds >> first))
      continue;
    last = bounds >> dash >> last && dash == '-' ? last : first;
    for (int cpu = first; cpu <= last; ++cpu)
      cpus.push_back(cpu);
  }
  return cpus;
}

std::optional<std::string> sharingIdentity(int cpu, cl_device_affinity_domain level) {
  if (level == CL_DEVICE_AFFINITY_DOMAIN_NUMA)
    return numaNodeCpus(cpu);
  int wanted = cacheLevel(level);
  for (const CacheDescription &cache : dataCaches(cpu))
    if (wanted != 0 && cache.level == wanted)
      return cache.sharedCpus;
  return std::nullopt;
}

cl_device_affinity_domain splittingLevels(const std::vector<int> &cpus) {
  if (cpus.empty())
    return 0;
  cl_device_affinity_domain levels = 0;
  for (cl_device_affinity_domain level :
       {CL_DEVICE_AFFINITY_DOMAIN_NUMA, CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE,
        CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE,
        CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE}) {
    // The first CPU's group leaves some CPU out exactly when there are several groups.
    std::optional<std::string> identity = sharingIdentity(cpus.front(), level);
    if (!identity)
      continue;
    std::vector<int> group = parseCpuList(*identity);
    bool splits = std::any_of(cpus.begin(), cpus.end(), [&](int cpu) {
      return std::find(group.begin(), group.end(), cpu) == group.end();
    });
    if (splits)
      levels |= level;
  }
  return levels;
}

bool pinCurrentThread(const std::vector<int> &cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus)
    if (cpu >= 0 && cpu < CPU_SETSIZE)
      CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

} // namespace kiln::cpu
