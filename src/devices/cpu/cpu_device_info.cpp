#include "devices/cpu/cpu_device_info.hpp"

#include "runtime/scheduling/device_enqueue.hpp"

#include "devices/cpu/cpu_topology.hpp"
#include "devices/cpu/kernel_jit.hpp"
#include "runtime/objects/kiln_language.hpp"
#include "runtime/objects/platform.hpp"
#include "runtime/scheduling/device_enqueue.hpp"
#include "support/settings.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace kiln::cpu {
namespace {

constexpr size_t kMaxWorkGroupSize = 4096;

void describeVectorWidths(const HostCpu &host, DeviceInfo &info) {
  cl_uint bytes = host.vectorBits / 8;
  info.nativeVectorWidthChar = info.preferredVectorWidthChar = bytes;
  info.nativeVectorWidthShort = info.preferredVectorWidthShort = bytes / 2;
  info.nativeVectorWidthInt = info.preferredVectorWidthInt = bytes / 4;
  info.nativeVectorWidthLong = info.preferredVectorWidthLong = bytes / 8;
  info.nativeVectorWidthFloat = info.preferredVectorWidthFloat = bytes / 4;
  info.nativeVectorWidthDouble = info.preferredVectorWidthDouble = bytes / 8;
  // Half values are computed in float lanes.
  info.nativeVectorWidthHalf = info.preferredVectorWidthHalf = bytes / 4;
}

void describeMemory(const HostCpu &host, DeviceInfo &info) {
  info.globalMemSize = host.memoryBytes;
  // The specification's minimum is a quarter of global memory (and at least 128 MiB).
  info.maxMemAllocSize = std::max<cl_ulong>(host.memoryBytes / 4, 128ull << 20);
  info.globalMemCacheType = CL_READ_WRITE_CACHE;
  info.globalMemCachelineSize = host.cacheLineBytes;
  info.globalMemCacheSize = host.lastLevelCacheBytes;
  info.maxConstantBufferSize = 1 << 20;
  info.maxConstantArgs = 64;
  info.localMemType = CL_GLOBAL; // __local memory is ordinary memory on a CPU
  info.localMemSize = 64 * 1024;
  info.hostUnifiedMemory = true;
  // Kernels run on the host's cores, on the host's memory: every pointer of the process is one
  // they can use, and their atomics are the host's.
  info.svmCapabilities = CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
                         CL_DEVICE_SVM_FINE_GRAIN_SYSTEM | CL_DEVICE_SVM_ATOMICS;
  constexpr cl_bitfield everything = CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL |
                                     CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL |
                                     CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL |
                                     CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ATOMIC_ACCESS_INTEL;
  info.usm = {everything, everything, everything, everything, everything};
  info.memBaseAddrAlignBits = 1024; // long16, the largest OpenCL C type, is 1024 bits
  info.minDataTypeAlignSize = 128;
  info.maxParameterSize = 1024;
  info.maxGlobalVariableSize = 16 << 20; // JIT-compiled code keeps variables of any size
  info.globalVariablePreferredTotalSize = 16 << 20;
}

void describeFloatingPoint(const HostCpu &host, DeviceInfo &info) {
  cl_device_fp_config fma = host.hasFma ? CL_FP_FMA : 0;
  // x86 division and square root are correctly rounded; denormals are kept (no FTZ/DAZ).
  info.singleFpConfig = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST |
                        CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT | fma;
  // Double precision lists every IEEE rounding mode the hardware has, as OpenCL 1.x required
  // of cl_khr_fp64 devices (the conversions' _rtz/_rtp/_rtn modes use them).
  info.doubleFpConfig = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST |
                        CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | fma;
  // Half operations are float operations rounded to half: correctly rounded, subnormals kept;
  // fma goes through double (builtins/math_gentype.h).
  info.halfFpConfig = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_FMA;
}

/// Partitioning (clCreateSubDevices): equally and by counts whenever there are units to share
/// out, by affinity domain at the levels where, as the operating system describes them, the
/// units do not all share the same memory. (A level all of them share would only give the
/// device back whole; the conformance tests expect every listed domain to partition.)
void describePartitioning(const std::vector<int> &unitCpus, DeviceInfo &info) {
  if (unitCpus.size() < 2)
    return; // one compute unit cannot be split: CL_DEVICE_PARTITION_PROPERTIES is {0}
  info.partitionMaxSubDevices = static_cast<cl_uint>(unitCpus.size());
  info.partitionProperties = {CL_DEVICE_PARTITION_EQUALLY, CL_DEVICE_PARTITION_BY_COUNTS};
  if (cl_device_affinity_domain levels = splittingLevels(unitCpus)) {
    info.partitionProperties.push_back(CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN);
    info.partitionAffinityDomain = levels | CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE;
  }
}

} // namespace

DeviceInfo describeCpuDevice(const HostCpu &host, const std::vector<int> &unitCpus) {
  DeviceInfo info;
  info.type = CL_DEVICE_TYPE_CPU;
  info.vendorId = host.pciVendorId;
  info.name = host.brand;
  info.vendor = host.vendor;
  info.driverVersion = kilnVersion();
  info.version = std::string("OpenCL 3.0 Kiln ") + kilnVersion();
  info.numericVersion = makeVersion(3, 0);

  info.maxComputeUnits = static_cast<cl_uint>(unitCpus.size());
  info.maxClockFrequencyMHz = host.maxClockMHz;
  info.maxWorkItemDimensions = 3;
  info.maxWorkItemSizes = {kMaxWorkGroupSize, kMaxWorkGroupSize, kMaxWorkGroupSize};
  info.maxWorkGroupSize = kMaxWorkGroupSize;
  // A kernel's sub-groups are its SIMD groups; with the vectorizer off they have one work-item.
  // The sub-groups of a work-group take turns on one thread; a loop that waits for another
  // sub-group ends each round by letting the others run (codegen/work_group/spin_loop_yields.hpp),
  // so each makes progress of its own.
  info.maxNumSubGroups = kMaxWorkGroupSize;
  info.subGroupIndependentForwardProgress = true;
  info.subGroupSizes.assign(kSubGroupSizes.begin(), kSubGroupSizes.end());
  // Kernels run consecutive work-items in the lanes of one vector: as many as the widest
  // vectors hold 32-bit values. Each kernel reports the width its code uses
  // (CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE), narrower where LLVM prefers 256-bit vectors
  // on an AVX-512 CPU.
  info.preferredWorkGroupSizeMultiple = host.vectorBits / 32;
  info.executionCapabilities = CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL;
  info.queueOnHostProperties = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
  describeDeviceEnqueue(info);
  info.printfBufferSize = 1 << 20;
  info.profilingTimerResolutionNs = 1;

  describeVectorWidths(host, info);
  describeMemory(host, info);
  describeKilnLanguage(info);
  describeFloatingPoint(host, info);
  describePartitioning(unitCpus, info);
  describeKilnImages(info); // images live in host memory like buffers
  return info;
}

unsigned workerCount(const HostCpu &host) {
  if (std::optional<std::string_view> text = settingValue(Setting::CpuThreads)) {
    int requested = std::atoi(std::string(*text).c_str());
    if (requested > 0)
      return static_cast<unsigned>(requested);
  }
  return host.logicalCores;
}

} // namespace kiln::cpu
