// XXH3 from xxHash, for the on-disk program cache. The library is compiled in from its header
// (XXH_INLINE_ALL, in xxh3.cpp only) rather than linked as libxxhash.so: the ICD loader opens
// libkiln.so in every OpenCL application, and loading that shared library as well added about
// 0.7 ms to each one's start. Compiled in, its functions stay private to libkiln.so.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace kiln {

/// XXH3-128 of `bytes`, in xxHash's canonical byte order.
std::array<uint8_t, 16> xxh3Digest128(std::span<const std::byte> bytes);

/// XXH3-64 of `bytes`.
uint64_t xxh3Checksum64(std::span<const std::byte> bytes);

} // namespace kiln
