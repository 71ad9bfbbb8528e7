#include "devices/cpu/host_cpu.hpp"

#include "devices/cpu/cpu_topology.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sched.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace kiln::cpu {
namespace {

std::string trim(std::string text) {
  auto isSpace = [](unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\0'; };
  while (!text.empty() && isSpace(text.back()))
    text.pop_back();
  size_t first = 0;
  while (first < text.size() && isSpace(text[first]))
    ++first;
  return text.substr(first);
}

uint64_t sysconfBytes(int name) {
  long value = sysconf(name);
  return value > 0 ? static_cast<uint64_t>(value) : 0;
}

/// A size as sysfs writes it: "32768K", "1M" or plain bytes.
uint64_t parseCacheSize(const std::string &text) {
  size_t digits = 0;
  uint64_t value = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
    value = value * 10 + static_cast<uint64_t>(text[digits++] - '0');
  char unit = digits < text.size() ? text[digits] : ' ';
  return unit == 'K' ? value << 10 : unit == 'M' ? value << 20 : unit == 'G' ? value << 30 : value;
}

/// The size of the outermost data cache that `cpu` uses, from sysfs; 0 when it cannot be read.
/// This is the cache one core shares with its neighbours, which is what decides whether data
/// stays cached. sysconf's figure can be the whole package's: glibc reports 256 MiB on an EPYC
/// whose cores each reach a 32 MiB L3.
uint64_t sysfsLastLevelCacheBytes(int cpu) {
  uint64_t bytes = 0;
  unsigned deepest = 0;
  for (unsigned index = 0; index < 16; ++index) {
    std::string folder = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/index" +
                         std::to_string(index) + "/";
    std::ifstream levelFile(folder + "level"), typeFile(folder + "type"), sizeFile(folder + "size");
    unsigned level = 0;
    std::string type, size;
    if (!(levelFile >> level) || !(typeFile >> type) || !(sizeFile >> size))
      break;
    if (type == "Instruction" || level < deepest)
      continue;
    deepest = level;
    bytes = parseCacheSize(size);
  }
  return bytes;
}

unsigned readMaxClockMHz() {
  std::ifstream maxFrequency("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  unsigned long kHz = 0;
  if (maxFrequency >> kHz && kHz > 0)
    return static_cast<unsigned>(kHz / 1000);
  // Virtual machines often have no cpufreq: take the current clock from /proc/cpuinfo.
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("cpu MHz", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos)
        return static_cast<unsigned>(std::stod(line.substr(colon + 1)));
    }
  }
  return 0;
}

#if defined(__x86_64__) || defined(__i386__)
void readCpuid(HostCpu &cpu) {
  unsigned eax, ebx, ecx, edx;
  char vendorId[13] = {};
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx)) {
    std::memcpy(vendorId + 0, &ebx, 4);
    std::memcpy(vendorId + 4, &edx, 4);
    std::memcpy(vendorId + 8, &ecx, 4);
  }
  std::string vendor = vendorId;
  if (vendor == "GenuineIntel") {
    cpu.vendor = "Intel";
    cpu.pciVendorId = 0x8086;
  } else if (vendor == "AuthenticAMD") {
    cpu.vendor = "AMD";
    cpu.pciVendorId = 0x1022;
  } else {
    cpu.vendor = vendor.empty() ? "Unknown" : vendor;
  }

  char brand[49] = {};
  if (__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx) && eax >= 0x80000004) {
    for (unsigned leaf = 0; leaf < 3; ++leaf) {
      __get_cpuid(0x80000002 + leaf, &eax, &ebx, &ecx, &edx);
      unsigned words[4] = {eax, ebx, ecx, edx};
      std::memcpy(brand + leaf * 16, words, 16);
    }
  }
  cpu.brand = trim(brand);

  // The OS must save the wide registers too (XGETBV), not only the CPU support them.
  bool osAvx = false, osAvx512 = false;
  char word[12];
  auto sign = [&](unsigned value) {
    std::snprintf(word, sizeof word, "%08x.", value);
    cpu.featureSignature += word;
  };
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
    sign(eax); // family, model, stepping
    sign(ecx);
    sign(edx);
    cpu.hasFma = ecx & bit_FMA;
    cpu.hasF16c = ecx & bit_F16C;
    if ((ecx & bit_OSXSAVE) && (ecx & bit_AVX)) {
      unsigned xcrLow, xcrHigh;
      __asm__("xgetbv" : "=a"(xcrLow), "=d"(xcrHigh) : "c"(0));
      osAvx = (xcrLow & 0x6) == 0x6;
      osAvx512 = (xcrLow & 0xe6) == 0xe6;
      sign(xcrLow);
    }
  }
  if (__get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx)) {
    sign(ecx);
    sign(edx);
  }
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
    sign(ebx);
    sign(ecx);
    sign(edx);
    if (osAvx512 && (ebx & bit_AVX512F))
      cpu.vectorBits = 512;
    else if (osAvx && (ebx & bit_AVX2))
      cpu.vectorBits = 256;
  }
}
#else
void readCpuid(HostCpu &cpu) {
  cpu.vendor = "Unknown";
}
#endif

} // namespace

HostCpu detectHostCpu() {
  HostCpu cpu;
  readCpuid(cpu);
  if (cpu.brand.empty())
    cpu.brand = "Host CPU";
  std::vector<int> cpus = allowedCpus();
  cpu.logicalCores = static_cast<unsigned>(cpus.size());
  cpu.memoryBytes = sysconfBytes(_SC_PHYS_PAGES) * sysconfBytes(_SC_PAGESIZE);
  cpu.l1DataCacheBytes = sysconfBytes(_SC_LEVEL1_DCACHE_SIZE);
  cpu.lastLevelCacheBytes = cpus.empty() ? 0 : sysfsLastLevelCacheBytes(cpus.front());
  if (cpu.lastLevelCacheBytes == 0)
    cpu.lastLevelCacheBytes =
        std::max(sysconfBytes(_SC_LEVEL3_CACHE_SIZE), sysconfBytes(_SC_LEVEL2_CACHE_SIZE));
  if (unsigned line = static_cast<unsigned>(sysconfBytes(_SC_LEVEL1_DCACHE_LINESIZE)))
    cpu.cacheLineBytes = line;
  cpu.maxClockMHz = readMaxClockMHz();
  return cpu;
}

} // namespace kiln::cpu
