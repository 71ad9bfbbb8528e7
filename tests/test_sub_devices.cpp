// clCreateSubDevices: partitions equally, by counts and by affinity domain, what sub-devices
// report, that they run kernels (with programs built for them or for their parent) on their
// share of the processor only, nested partitions, reference counts, and every error the
// specification names. CTest also runs these tests with KILN_CPU_THREADS=4, so that a machine
// with two cores still has units enough for nested and uneven partitions.
#include "cl_test.hpp"

#include <atomic>
#include <dirent.h>
#include <fstream>
#include <map>
#include <numeric>
#include <pthread.h>
#include <sched.h>
#include <set>
#include <thread>

using namespace cltest;

namespace {

using Properties = std::vector<cl_device_partition_property>;
using Device = Handle<cl_device_id>;

const char *kTripleSource = R"(
  kernel void triple(global int *data) {
    size_t i = get_global_id(0);
    data[i] = data[i] * 3 + (int)i;
  })";

class SubDeviceTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    // Partitioning is optional: Kiln's CPU device has it (these tests check that one compute
    // unit, too, is reported correctly as not partitionable); other devices may not.
    if (!isKilnCpuDevice() &&
        deviceInfo<cl_uint>(device_, CL_DEVICE_PARTITION_MAX_SUB_DEVICES) == 0)
      GTEST_SKIP() << "the device cannot be partitioned";
    units_ = deviceInfo<cl_uint>(device_, CL_DEVICE_MAX_COMPUTE_UNITS);
  }

  bool supports(cl_device_id device, cl_device_partition_property scheme) {
    auto schemes =
        deviceArray<cl_device_partition_property>(device, CL_DEVICE_PARTITION_PROPERTIES);
    return std::find(schemes.begin(), schemes.end(), scheme) != schemes.end();
  }

  /// The error clCreateSubDevices returns for `properties` when only counting.
  cl_int countError(cl_device_id device, const Properties &properties) {
    cl_uint count = 0;
    return clCreateSubDevices(device, properties.data(), 0, nullptr, &count);
  }

  /// Creates the sub-devices `properties` asks for, asserting success (empty on failure).
  std::vector<Device> partition(cl_device_id device, const Properties &properties) {
    cl_uint count = 0;
    cl_int error = clCreateSubDevices(device, properties.data(), 0, nullptr, &count);
    EXPECT_CL_SUCCESS(error);
    if (error != CL_SUCCESS)
      return {};
    std::vector<cl_device_id> raw(count);
    cl_uint created = 0;
    EXPECT_CL_SUCCESS(clCreateSubDevices(device, properties.data(), count, raw.data(), &created));
    EXPECT_EQ(count, created);
    std::vector<Device> devices;
    for (cl_device_id id : raw)
      devices.emplace_back(id);
    return devices;
  }

  static cl_uint unitsOf(cl_device_id device) {
    return deviceInfo<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS);
  }

  /// Runs `triple` on `device` of `context` (a program built for `buildFor`) and checks it.
  void runTriple(cl_context context, cl_device_id device, cl_program program) {
    cl_int error = CL_SUCCESS;
    Queue queue(clCreateCommandQueueWithProperties(context, device, nullptr, &error));
    ASSERT_CL_SUCCESS(error);
    Kernel kernel = createKernel(program, "triple");
    ASSERT_TRUE(kernel);
    std::vector<cl_int> data(1000);
    std::iota(data.begin(), data.end(), -500);
    Mem buffer(clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, data.size() * sizeof(cl_int),
                              data.data(), &error));
    ASSERT_CL_SUCCESS(error);
    ASSERT_TRUE(setArgs(kernel, buffer));
    size_t global = data.size(), local = 100;
    ASSERT_CL_SUCCESS(
        clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    std::vector<cl_int> out(data.size());
    ASSERT_CL_SUCCESS(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, out.size() * sizeof(cl_int),
                                          out.data(), 0, nullptr, nullptr));
    for (size_t i = 0; i < data.size(); ++i)
      ASSERT_EQ(data[i] * 3 + cl_int(i), out[i]) << "at " << i;
  }

  cl_uint units_ = 0;
};

#define SKIP_UNLESS_UNITS(n)                                                                       \
  if (units_ < (n))                                                                                \
  GTEST_SKIP() << "the device has " << units_ << " compute units; the test needs " << (n)

TEST_F(SubDeviceTest, PartitionQueriesMatchTheComputeUnits) {
  auto schemes = deviceArray<cl_device_partition_property>(device_, CL_DEVICE_PARTITION_PROPERTIES);
  cl_uint maxSubDevices = deviceInfo<cl_uint>(device_, CL_DEVICE_PARTITION_MAX_SUB_DEVICES);
  if (units_ < 2) {
    // One compute unit cannot be split.
    EXPECT_EQ(Properties{0}, schemes);
    return;
  }
  EXPECT_TRUE(supports(device_, CL_DEVICE_PARTITION_EQUALLY));
  EXPECT_TRUE(supports(device_, CL_DEVICE_PARTITION_BY_COUNTS));
  EXPECT_EQ(units_, maxSubDevices);
  auto domains =
      deviceInfo<cl_device_affinity_domain>(device_, CL_DEVICE_PARTITION_AFFINITY_DOMAIN);
  // The affinity scheme is listed exactly when some domain is, and then so is "next".
  EXPECT_EQ(domains != 0, supports(device_, CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN));
  if (domains != 0)
    EXPECT_NE(0u, domains & CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE);
}

TEST_F(SubDeviceTest, EquallyByOneGivesOneSubDevicePerComputeUnit) {
  SKIP_UNLESS_UNITS(2);
  std::vector<Device> subDevices = partition(device_, {CL_DEVICE_PARTITION_EQUALLY, 1, 0});
  ASSERT_EQ(units_, subDevices.size());
  for (const Device &sub : subDevices) {
    EXPECT_EQ(1u, unitsOf(sub));
    EXPECT_EQ(device_, deviceInfo<cl_device_id>(sub, CL_DEVICE_PARENT_DEVICE));
    EXPECT_EQ(platform(), deviceInfo<cl_platform_id>(sub, CL_DEVICE_PLATFORM));
    EXPECT_EQ(CL_DEVICE_TYPE_CPU, deviceInfo<cl_device_type>(sub, CL_DEVICE_TYPE));
    EXPECT_EQ((Properties{CL_DEVICE_PARTITION_EQUALLY, 1, 0}),
              deviceArray<cl_device_partition_property>(sub, CL_DEVICE_PARTITION_TYPE));
    // A single compute unit cannot be partitioned again.
    EXPECT_EQ(Properties{0},
              deviceArray<cl_device_partition_property>(sub, CL_DEVICE_PARTITION_PROPERTIES));
    EXPECT_CL_ERROR(CL_INVALID_VALUE, countError(sub, {CL_DEVICE_PARTITION_EQUALLY, 1, 0}));
  }
  // Sub-devices are not among the platform's devices.
  cl_uint count = 0;
  ASSERT_CL_SUCCESS(clGetDeviceIDs(platform(), CL_DEVICE_TYPE_ALL, 0, nullptr, &count));
  std::vector<cl_device_id> listed(count);
  ASSERT_CL_SUCCESS(clGetDeviceIDs(platform(), CL_DEVICE_TYPE_ALL, count, listed.data(), nullptr));
  for (const Device &sub : subDevices)
    EXPECT_EQ(listed.end(), std::find(listed.begin(), listed.end(), sub.get()));
}

TEST_F(SubDeviceTest, EquallyLeavesTheRemainderUnused) {
  SKIP_UNLESS_UNITS(3);
  cl_device_partition_property size = units_ - 1;
  std::vector<Device> subDevices = partition(device_, {CL_DEVICE_PARTITION_EQUALLY, size, 0});
  ASSERT_EQ(1u, subDevices.size());
  EXPECT_EQ(units_ - 1, unitsOf(subDevices[0]));
}

TEST_F(SubDeviceTest, ByCountsGivesEachSubDeviceItsCount) {
  SKIP_UNLESS_UNITS(2);
  cl_device_partition_property rest = units_ - 1;
  Properties properties{CL_DEVICE_PARTITION_BY_COUNTS, 1, rest,
                        CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
  std::vector<Device> subDevices = partition(device_, properties);
  ASSERT_EQ(2u, subDevices.size());
  EXPECT_EQ(1u, unitsOf(subDevices[0]));
  EXPECT_EQ(units_ - 1, unitsOf(subDevices[1]));
  for (const Device &sub : subDevices)
    EXPECT_EQ(properties, deviceArray<cl_device_partition_property>(sub, CL_DEVICE_PARTITION_TYPE));
}

TEST_F(SubDeviceTest, EveryListedAffinityDomainSplitsTheDeviceAlongItsLevel) {
  auto domains =
      deviceInfo<cl_device_affinity_domain>(device_, CL_DEVICE_PARTITION_AFFINITY_DOMAIN);
  if (domains == 0)
    GTEST_SKIP() << "the device's compute units share every memory level the system describes";
  for (cl_device_affinity_domain level :
       {CL_DEVICE_AFFINITY_DOMAIN_NUMA, CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE,
        CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE,
        CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE, CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE}) {
    SCOPED_TRACE(level);
    Properties properties{CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                          static_cast<cl_device_partition_property>(level), 0};
    cl_int error = countError(device_, properties);
    if ((domains & level) == 0) {
      EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
      continue;
    }
    // Listed levels are those where the units do not all share the same memory.
    ASSERT_CL_SUCCESS(error);
    std::vector<Device> subDevices = partition(device_, properties);
    EXPECT_GE(subDevices.size(), 2u);
    cl_uint total = 0;
    for (const Device &sub : subDevices) {
      total += unitsOf(sub);
      auto type = deviceArray<cl_device_partition_property>(sub, CL_DEVICE_PARTITION_TYPE);
      ASSERT_EQ(3u, type.size());
      EXPECT_EQ(CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, type[0]);
      // "Next partitionable" reports the level it chose.
      if (level == CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE)
        EXPECT_NE(0u, domains & type[1]);
      else
        EXPECT_EQ(cl_device_partition_property(level), type[1]);
    }
    EXPECT_EQ(units_, total);
  }
}

TEST_F(SubDeviceTest, BadPropertiesGetTheSpecifiedErrors) {
  SKIP_UNLESS_UNITS(2);
  cl_device_partition_property units = units_;
  cl_uint count = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clCreateSubDevices(device_, nullptr, 0, nullptr, &count));
  EXPECT_CL_ERROR(CL_INVALID_DEVICE,
                  clCreateSubDevices(nullptr, Properties{CL_DEVICE_PARTITION_EQUALLY, 1, 0}.data(),
                                     0, nullptr, &count));
  // Malformed or unknown.
  EXPECT_CL_ERROR(CL_INVALID_VALUE, countError(device_, {0}));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, countError(device_, {0x4299, 1, 0}));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, countError(device_, {CL_DEVICE_PARTITION_EQUALLY, 0, 0}));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, countError(device_, {CL_DEVICE_PARTITION_EQUALLY, 1,
                                                         CL_DEVICE_PARTITION_BY_COUNTS, 1, 0, 0}));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  countError(device_, {CL_DEVICE_PARTITION_BY_COUNTS,
                                       CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0}));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, countError(device_, {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                                                         CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE |
                                                             CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE,
                                                         0}));
  // Counts out of range.
  EXPECT_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT,
                  countError(device_, {CL_DEVICE_PARTITION_EQUALLY, units + 1, 0}));
  EXPECT_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT,
                  countError(device_, {CL_DEVICE_PARTITION_BY_COUNTS, units + 1,
                                       CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0}));
  EXPECT_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT,
                  countError(device_, {CL_DEVICE_PARTITION_BY_COUNTS, -1,
                                       CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0}));
  EXPECT_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT,
                  countError(device_, {CL_DEVICE_PARTITION_BY_COUNTS, units, 1,
                                       CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0}));
  // The whole device again is no partition.
  EXPECT_CL_ERROR(CL_DEVICE_PARTITION_FAILED,
                  countError(device_, {CL_DEVICE_PARTITION_EQUALLY, units, 0}));
  EXPECT_CL_ERROR(CL_DEVICE_PARTITION_FAILED,
                  countError(device_, {CL_DEVICE_PARTITION_BY_COUNTS, units,
                                       CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0}));
  // Too little room for the sub-devices.
  std::vector<cl_device_id> out(units_);
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clCreateSubDevices(device_, Properties{CL_DEVICE_PARTITION_EQUALLY, 1, 0}.data(),
                                     units_ - 1, out.data(), nullptr));
}

TEST_F(SubDeviceTest, ReferenceCountsAndContextsKeepSubDevicesAlive) {
  SKIP_UNLESS_UNITS(2);
  std::vector<Device> subDevices = partition(device_, {CL_DEVICE_PARTITION_EQUALLY, 1, 0});
  ASSERT_FALSE(subDevices.empty());
  cl_device_id sub = subDevices[0].get();
  EXPECT_EQ(1u, deviceInfo<cl_uint>(sub, CL_DEVICE_REFERENCE_COUNT));
  ASSERT_CL_SUCCESS(clRetainDevice(sub));
  EXPECT_EQ(2u, deviceInfo<cl_uint>(sub, CL_DEVICE_REFERENCE_COUNT));
  ASSERT_CL_SUCCESS(clReleaseDevice(sub));
  EXPECT_EQ(1u, deviceInfo<cl_uint>(sub, CL_DEVICE_REFERENCE_COUNT));

  // The application lets go of the sub-device; its context and queue still use it.
  cl_int error = CL_SUCCESS;
  Context context(clCreateContext(nullptr, 1, &sub, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  Queue queue(clCreateCommandQueueWithProperties(context, sub, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  subDevices[0].reset();
  EXPECT_EQ(sub, contextInfo<cl_device_id>(context, CL_CONTEXT_DEVICES));
  // The handle is the application's no more, though the object lives on.
  cl_uint references = 0;
  EXPECT_CL_ERROR(CL_INVALID_DEVICE, clGetDeviceInfo(sub, CL_DEVICE_REFERENCE_COUNT,
                                                     sizeof references, &references, nullptr));
  const char *source = kTripleSource;
  Program program(clCreateProgramWithSource(context, 1, &source, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  ASSERT_CL_SUCCESS(clBuildProgram(program, 0, nullptr, "", nullptr, nullptr));
  Kernel kernel = createKernel(program, "triple");
  ASSERT_TRUE(kernel);
  std::vector<cl_int> data{1, 2, 3, 4};
  Mem buffer(
      clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof(cl_int) * 4, data.data(), &error));
  ASSERT_CL_SUCCESS(error);
  ASSERT_TRUE(setArgs(kernel, buffer));
  size_t global = 4;
  ASSERT_CL_SUCCESS(
      clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof(cl_int) * 4, data.data(),
                                        0, nullptr, nullptr));
  EXPECT_EQ((std::vector<cl_int>{3, 7, 11, 15}), data);
}

TEST_F(SubDeviceTest, SubDevicesRunProgramsBuiltForThemOrForTheirParent) {
  SKIP_UNLESS_UNITS(2);
  std::vector<Device> subDevices = partition(device_, {CL_DEVICE_PARTITION_EQUALLY, 1, 0});
  ASSERT_FALSE(subDevices.empty());
  std::vector<cl_device_id> devices;
  for (const Device &sub : subDevices)
    devices.push_back(sub.get());
  devices.push_back(device_);
  cl_int error = CL_SUCCESS;
  Context context(
      clCreateContext(nullptr, cl_uint(devices.size()), devices.data(), nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);

  // Built for the parent alone: the sub-devices run the parent's code.
  Program forParent = buildProgram(context, device_, kTripleSource);
  ASSERT_TRUE(forParent);
  for (cl_device_id device : devices) {
    EXPECT_EQ(CL_BUILD_SUCCESS,
              buildInfo<cl_build_status>(forParent, device, CL_PROGRAM_BUILD_STATUS));
    runTriple(context, device, forParent);
  }
  // Built for one sub-device.
  Program forSub = buildProgram(context, devices[0], kTripleSource);
  ASSERT_TRUE(forSub);
  runTriple(context, devices[0], forSub);
}

/// The Cpus_allowed_list of a thread's /proc status file ("0-3", "5"); empty when it has none.
std::string allowedCpuList(const std::string &statusPath) {
  std::ifstream status(statusPath);
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Cpus_allowed_list:", 0) == 0)
      return line.substr(line.find_first_not_of(" \t", 18));
  return "";
}

/// The CPUs each thread of this process may run on, as /proc lists them.
/// The CPUs each thread of the process may run on, by thread id.
std::map<std::string, std::string> threadCpuLists() {
  std::map<std::string, std::string> lists;
  DIR *tasks = opendir("/proc/self/task");
  if (tasks == nullptr)
    return lists;
  while (dirent *entry = readdir(tasks)) {
    if (entry->d_name[0] == '.')
      continue;
    std::string list = allowedCpuList(std::string("/proc/self/task/") + entry->d_name + "/status");
    if (!list.empty())
      lists.emplace(entry->d_name, list);
  }
  closedir(tasks);
  return lists;
}

/// Whether this system lets a thread narrow its affinity to one CPU and shows that in /proc:
/// some sandboxes refuse sched_setaffinity, or list every CPU whatever the mask.
bool threadPinningIsVisible() {
  bool visible = false;
  std::thread probe([&visible] {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
      return;
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &set))
      ++first;
    if (first == CPU_SETSIZE)
      return;
    CPU_ZERO(&set);
    CPU_SET(first, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
      return;
    visible = allowedCpuList("/proc/thread-self/status") == std::to_string(first);
  });
  probe.join();
  return visible;
}

TEST_F(SubDeviceTest, SubDeviceWorkersRunOnlyOnTheirShareOfTheProcessor) {
  SKIP_UNLESS_UNITS(2);
  if (!isKiln())
    GTEST_SKIP() << "checks Kiln's worker threads";
  std::map<std::string, std::string> before = threadCpuLists();
  if (before.empty())
    GTEST_SKIP() << "no /proc/self/task";
  if (!threadPinningIsVisible())
    GTEST_SKIP() << "this system does not let a thread be pinned to one CPU, or hides it";
  std::vector<Device> subDevices = partition(device_, {CL_DEVICE_PARTITION_EQUALLY, 1, 0});
  ASSERT_EQ(units_, subDevices.size());
  cl_int error = CL_SUCCESS;
  for (const Device &sub : subDevices) {
    cl_device_id id = sub.get();
    Context context(clCreateContext(nullptr, 1, &id, nullptr, nullptr, &error));
    ASSERT_CL_SUCCESS(error);
    Program program = buildProgram(context, id, kTripleSource);
    ASSERT_TRUE(program);
    runTriple(context, id, program);
  }
  // Each sub-device of one unit has one worker, allowed on one CPU only; the units share the
  // process's CPUs out in turn. Only threads that started since count: the pinned workers of
  // earlier tests' sub-devices may still be leaving.
  std::multiset<std::string> singleCpu;
  for (const auto &[thread, list] : threadCpuLists())
    if (!before.contains(thread) && list.find_first_of("-,") == std::string::npos)
      singleCpu.insert(list);
  EXPECT_EQ(units_, singleCpu.size());
  std::set<std::string> distinct(singleCpu.begin(), singleCpu.end());
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  EXPECT_EQ(std::min<size_t>(units_, size_t(cpus)), distinct.size());
}

TEST_F(SubDeviceTest, SubDevicesPartitionAgain) {
  SKIP_UNLESS_UNITS(3);
  cl_device_partition_property rest = units_ - 1;
  std::vector<Device> first = partition(
      device_, {CL_DEVICE_PARTITION_BY_COUNTS, 1, rest, CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0});
  ASSERT_EQ(2u, first.size());
  cl_device_id middle = first[1].get();
  ASSERT_TRUE(supports(middle, CL_DEVICE_PARTITION_EQUALLY));
  EXPECT_EQ(units_ - 1, deviceInfo<cl_uint>(middle, CL_DEVICE_PARTITION_MAX_SUB_DEVICES));
  std::vector<Device> second = partition(middle, {CL_DEVICE_PARTITION_EQUALLY, 1, 0});
  ASSERT_EQ(units_ - 1, second.size());
  cl_device_id leaf = second.back().get();
  EXPECT_EQ(middle, deviceInfo<cl_device_id>(leaf, CL_DEVICE_PARENT_DEVICE));
  // The middle level lives on through its child even when the application releases it.
  first[1].reset();
  cl_int error = CL_SUCCESS;
  Context context(clCreateContext(nullptr, 1, &leaf, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  Program program = buildProgram(context, leaf, kTripleSource);
  ASSERT_TRUE(program);
  runTriple(context, leaf, program);
}

TEST_F(SubDeviceTest, ASubDeviceWhoseLastCommandHoldsTheLastReferenceGoesSafely) {
  SKIP_UNLESS_UNITS(2);
  const char *slowSource = R"(
    kernel void slow(global float *data) {
      size_t i = get_global_id(0);
      float x = data[i];
      for (int k = 0; k < 2000; ++k)
        x = x * 0.999f + 1.0f;
      data[i] = x;
    })";
  for (int round = 0; round < 3; ++round) {
    std::vector<Device> subDevices = partition(device_, {CL_DEVICE_PARTITION_EQUALLY, 1, 0});
    ASSERT_FALSE(subDevices.empty());
    cl_device_id sub = subDevices[0].get();
    cl_int error = CL_SUCCESS;
    cl_context context = clCreateContext(nullptr, 1, &sub, nullptr, nullptr, &error);
    ASSERT_CL_SUCCESS(error);
    std::atomic<bool> destroyed{false};
    ASSERT_CL_SUCCESS(clSetContextDestructorCallback(
        context,
        [](cl_context, void *flag) { static_cast<std::atomic<bool> *>(flag)->store(true); },
        &destroyed));
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, sub, nullptr, &error);
    ASSERT_CL_SUCCESS(error);
    subDevices.clear(); // the application's last reference to the sub-device
    cl_program program = clCreateProgramWithSource(context, 1, &slowSource, nullptr, &error);
    ASSERT_CL_SUCCESS(error);
    ASSERT_CL_SUCCESS(clBuildProgram(program, 0, nullptr, "", nullptr, nullptr));
    cl_kernel kernel = clCreateKernel(program, "slow", &error);
    ASSERT_CL_SUCCESS(error);
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 1 << 20, nullptr, &error);
    ASSERT_CL_SUCCESS(error);
    ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
    size_t global = (1 << 20) / sizeof(float);
    ASSERT_CL_SUCCESS(
        clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
    ASSERT_CL_SUCCESS(clFlush(queue));
    // Everything goes at once: the running command now holds the last references, and lets go
    // of them on the sub-device's own worker thread.
    for (cl_int released :
         {clReleaseMemObject(buffer), clReleaseKernel(kernel), clReleaseProgram(program),
          clReleaseCommandQueue(queue), clReleaseContext(context)})
      ASSERT_CL_SUCCESS(released);
    ASSERT_TRUE(eventually([&] { return destroyed.load(); }));
  }
  // The device is as good as before.
  std::vector<Device> again = partition(device_, {CL_DEVICE_PARTITION_EQUALLY, 1, 0});
  ASSERT_FALSE(again.empty());
  cl_device_id sub = again.back().get();
  cl_int error = CL_SUCCESS;
  Context context(clCreateContext(nullptr, 1, &sub, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  Program program = buildProgram(context, sub, kTripleSource);
  ASSERT_TRUE(program);
  runTriple(context, sub, program);
}

} // namespace
