// What the host processor is, read from CPUID and the operating system without loading LLVM.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::cpu {

struct HostCpu {
  std::string brand;  // "AMD EPYC 9R14 96-Core Processor"
  std::string vendor; // "AMD", "Intel"
  uint32_t pciVendorId = 0;
  unsigned logicalCores = 1; // the cores this process may run on
  uint64_t memoryBytes = 0;
  uint64_t l1DataCacheBytes = 0;
  uint64_t lastLevelCacheBytes = 0;
  unsigned cacheLineBytes = 64;
  unsigned maxClockMHz = 0;
  /// Widest vector registers the code generator may use: 512 (AVX-512), 256 (AVX2) or 128.
  unsigned vectorBits = 128;
  bool hasFma = false;
  bool hasF16c = false;
  /// The processor's model and feature flags as CPUID and XGETBV report them (hex words): the
  /// code generator targets exactly these, so code compiled on a host with another signature
  /// must not be reused (the on-disk program cache keys on it).
  std::string featureSignature;
};

/// Reads the host's description (cheap: a few CPUID instructions and sysconf calls).
HostCpu detectHostCpu();

} // namespace kiln::cpu
