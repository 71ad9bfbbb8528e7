//===- memory_command_jobs.cpp - Memory commands run by the CPU's workers --===//
#include "devices/cpu/memory_command_jobs.hpp"

namespace kiln::cpu {

bool shouldStreamTransfer(const HostCpu &host, const ByteTransfer &transfer) {
  uint64_t cache = host.lastLevelCacheBytes;
  bool isFill = transfer.source == nullptr;
  if (isFill && host.vendor == "AMD")
    return false;
  return cache != 0 && transfer.size > cache;
}

} // namespace kiln::cpu
