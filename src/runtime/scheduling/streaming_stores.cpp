//===- streaming_stores.cpp - Host copies that bypass the caches -===//

#include "runtime/scheduling/streaming_stores.hpp"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kiln {
namespace {

/// Below this, the stores' set-up and the fence cost more than the lines they skip reading.
constexpr size_t kFewestStreamedBytes = 4096;

} // namespace

#if defined(__SSE2__)

void streamCopy(std::byte *target, const std::byte *source, size_t size) {
  if (size == 0) // the pointers may be null then, which memcpy does not allow
    return;
  if (size < kFewestStreamedBytes) {
    std::memcpy(target, source, size);
    return;
  }
  size_t head = bytesToVectorStoreAlignment(target);
  std::memcpy(target, source, head);
  size_t offset = head;
  constexpr size_t kLine = 4 * kVectorStoreBytes;
  for (; offset + kLine <= size; offset += kLine)
    for (size_t part = 0; part < kLine; part += kVectorStoreBytes)
      _mm_stream_si128(reinterpret_cast<__m128i *>(target + offset + part),
                       _mm_loadu_si128(reinterpret_cast<const __m128i *>(source + offset + part)));
  std::memcpy(target + offset, source + offset, size - offset);
  _mm_sfence();
}

#else // no non-temporal stores known here: ordinary ones

void streamCopy(std::byte *target, const std::byte *source, size_t size) {
  if (size != 0) // the pointers may be null then, which memcpy does not allow
    std::memcpy(target, source, size);
}

#endif

} // namespace kiln
