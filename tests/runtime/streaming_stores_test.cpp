// The CPU device's copies larger than the last-level cache use non-temporal stores
// (runtime/scheduling/streaming_stores.hpp), and its large fills store the pattern from registers,
// with ordinary or non-temporal stores (runtime/scheduling/pattern_fill.hpp): every alignment of
// the target, every pattern size, and sizes around the point where those paths start must give
// exactly memcpy's and a repeated pattern's bytes, and touch nothing beside the range.
#include "runtime/scheduling/pattern_fill.hpp"
#include "runtime/scheduling/streaming_stores.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace kiln {
namespace {

std::vector<std::byte> numbered(size_t size, unsigned seed) {
  std::vector<std::byte> bytes(size);
  for (size_t index = 0; index < size; ++index)
    bytes[index] = static_cast<std::byte>((index * 131 + seed * 17 + (index >> 9)) & 0xff);
  return bytes;
}

constexpr size_t kGuard = 64;
constexpr std::byte kUntouched{0xee};

TEST(StreamingStores, CopyGivesMemcpysBytesAtEveryAlignment) {
  for (size_t size : {size_t{0}, size_t{100}, size_t{4095}, size_t{4096}, size_t{4097},
                      size_t{10000}, size_t{65536 + 77}})
    for (size_t targetOffset = 0; targetOffset < 16; ++targetOffset)
      for (size_t sourceOffset : {size_t{0}, size_t{3}, size_t{8}}) {
        SCOPED_TRACE(std::to_string(size) + " bytes, target at +" + std::to_string(targetOffset) +
                     ", source at +" + std::to_string(sourceOffset));
        std::vector<std::byte> source = numbered(size + sourceOffset, unsigned(size));
        std::vector<std::byte> target(size + targetOffset + 2 * kGuard, kUntouched);
        streamCopy(target.data() + kGuard + targetOffset, source.data() + sourceOffset, size);
        std::vector<std::byte> expected(target.size(), kUntouched);
        std::copy_n(source.begin() + sourceOffset, size, expected.begin() + kGuard + targetOffset);
        ASSERT_EQ(target, expected);
      }
}

void expectFillRepeatsThePatternAtEveryAlignment(FillStores stores) {
  for (size_t patternSize = 1; patternSize <= 128; patternSize *= 2)
    for (size_t size :
         {size_t{0}, size_t{7}, size_t{4095}, size_t{4096}, size_t{4096 + 200}, size_t{20000}})
      for (size_t targetOffset = 0; targetOffset < 16; ++targetOffset) {
        SCOPED_TRACE("pattern of " + std::to_string(patternSize) + ", " + std::to_string(size) +
                     " bytes, target at +" + std::to_string(targetOffset));
        std::vector<std::byte> pattern = numbered(patternSize, unsigned(patternSize));
        std::vector<std::byte> target(size + targetOffset + 2 * kGuard, kUntouched);
        fillWithPattern(target.data() + kGuard + targetOffset, size, pattern, stores);
        std::vector<std::byte> expected(target.size(), kUntouched);
        for (size_t index = 0; index < size; ++index)
          expected[kGuard + targetOffset + index] = pattern[index % patternSize];
        ASSERT_EQ(target, expected);
      }
}

TEST(StreamingStores, FillRepeatsThePatternFromItsFirstByteAtEveryAlignment) {
  expectFillRepeatsThePatternAtEveryAlignment(FillStores::NonTemporal);
}

TEST(PatternFill, FillRepeatsThePatternFromItsFirstByteAtEveryAlignment) {
  expectFillRepeatsThePatternAtEveryAlignment(FillStores::Cached);
}

} // namespace
} // namespace kiln
