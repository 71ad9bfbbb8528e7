#include "devices/cuda/device_fill.hpp"

#include "devices/cuda/current_context.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

namespace kiln::cuda {
namespace {

/// Writes 8-byte words: word i of the region gets word (i mod 16) of `p0`..`p15`, the pattern
/// repeated over 128 bytes. The block size is a multiple of 16 and so is the grid's stride, so
/// each thread writes the same word of the pattern throughout, chosen once by the low four bits
/// of its index.
constexpr char kFillPtx[] = R"(
.version 7.0
.target sm_50
.address_size 64

.visible .entry kiln_fill_words(
    .param .u64 destination, .param .u64 words,
    .param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3,
    .param .u64 p4, .param .u64 p5, .param .u64 p6, .param .u64 p7,
    .param .u64 p8, .param .u64 p9, .param .u64 p10, .param .u64 p11,
    .param .u64 p12, .param .u64 p13, .param .u64 p14, .param .u64 p15)
{
    .reg .pred %bit<4>, %done;
    .reg .b32 %lane, %block, %threads, %blocks, %low<4>;
    .reg .b64 %p<16>, %a<8>, %b<4>, %c<2>, %value;
    .reg .b64 %destination, %words, %index, %stride, %offset, %address, %laneWide;

    ld.param.u64 %destination, [destination];
    cvta.to.global.u64 %destination, %destination;
    ld.param.u64 %words, [words];
    ld.param.u64 %p0, [p0];   ld.param.u64 %p1, [p1];   ld.param.u64 %p2, [p2];
    ld.param.u64 %p3, [p3];   ld.param.u64 %p4, [p4];   ld.param.u64 %p5, [p5];
    ld.param.u64 %p6, [p6];   ld.param.u64 %p7, [p7];   ld.param.u64 %p8, [p8];
    ld.param.u64 %p9, [p9];   ld.param.u64 %p10, [p10]; ld.param.u64 %p11, [p11];
    ld.param.u64 %p12, [p12]; ld.param.u64 %p13, [p13]; ld.param.u64 %p14, [p14];
    ld.param.u64 %p15, [p15];

    mov.u32 %lane, %tid.x;
    mov.u32 %block, %ctaid.x;
    mov.u32 %threads, %ntid.x;
    mov.u32 %blocks, %nctaid.x;

    and.b32 %low0, %lane, 1;
    setp.ne.u32 %bit0, %low0, 0;
    and.b32 %low1, %lane, 2;
    setp.ne.u32 %bit1, %low1, 0;
    and.b32 %low2, %lane, 4;
    setp.ne.u32 %bit2, %low2, 0;
    and.b32 %low3, %lane, 8;
    setp.ne.u32 %bit3, %low3, 0;
    selp.b64 %a0, %p1, %p0, %bit0;
    selp.b64 %a1, %p3, %p2, %bit0;
    selp.b64 %a2, %p5, %p4, %bit0;
    selp.b64 %a3, %p7, %p6, %bit0;
    selp.b64 %a4, %p9, %p8, %bit0;
    selp.b64 %a5, %p11, %p10, %bit0;
    selp.b64 %a6, %p13, %p12, %bit0;
    selp.b64 %a7, %p15, %p14, %bit0;
    selp.b64 %b0, %a1, %a0, %bit1;
    selp.b64 %b1, %a3, %a2, %bit1;
    selp.b64 %b2, %a5, %a4, %bit1;
    selp.b64 %b3, %a7, %a6, %bit1;
    selp.b64 %c0, %b1, %b0, %bit2;
    selp.b64 %c1, %b3, %b2, %bit2;
    selp.b64 %value, %c1, %c0, %bit3;

    mul.wide.u32 %index, %block, %threads;
    cvt.u64.u32 %laneWide, %lane;
    add.u64 %index, %index, %laneWide;
    mul.wide.u32 %stride, %blocks, %threads;
LOOP:
    setp.ge.u64 %done, %index, %words;
    @%done bra DONE;
    shl.b64 %offset, %index, 3;
    add.u64 %address, %destination, %offset;
    st.global.u64 [%address], %value;
    add.u64 %index, %index, %stride;
    bra.uni LOOP;
DONE:
    ret;
}
)";

constexpr unsigned kFillBlockSize = 256; // a multiple of the pattern's 16 words
constexpr uint64_t kMaxFillBlocks = 8192;

/// The shortest period of `pattern`: a pattern made of two equal halves is its half repeated.
std::span<const std::byte> shortestPeriod(std::span<const std::byte> pattern) {
  while (pattern.size() > 1) {
    size_t half = pattern.size() / 2;
    if (std::memcmp(pattern.data(), pattern.data() + half, half) != 0)
      break;
    pattern = pattern.first(half);
  }
  return pattern;
}

template <typename Word> Word wordOf(std::span<const std::byte> pattern) {
  Word word;
  std::memcpy(&word, pattern.data(), sizeof word);
  return word;
}

} // namespace

DeviceFill::~DeviceFill() {
  if (module_ == nullptr)
    return;
  CurrentContext current(cuda_, context_);
  cuda_.moduleUnload(module_);
}

bool DeviceFill::fill(std::byte *destination, size_t size, std::span<const std::byte> pattern,
                      CUstream stream) {
  if (size == 0)
    return true;
  pattern = shortestPeriod(pattern);
  auto target = reinterpret_cast<CUdeviceptr>(destination);
  switch (pattern.size()) {
  case 1:
    return cuda_.memsetD8Async(target, wordOf<uint8_t>(pattern), size, stream) == CUDA_SUCCESS;
  case 2:
    return cuda_.memsetD16Async(target, wordOf<uint16_t>(pattern), size / 2, stream) ==
           CUDA_SUCCESS;
  case 4:
    return cuda_.memsetD32Async(target, wordOf<uint32_t>(pattern), size / 4, stream) ==
           CUDA_SUCCESS;
  default:
    return fillWithKernel(destination, size, pattern, stream);
  }
}

bool DeviceFill::fillWithKernel(std::byte *destination, size_t size,
                                std::span<const std::byte> pattern, CUstream stream) {
  CUfunction kernel = fillKernel();
  if (kernel == nullptr)
    return false;
  std::array<uint64_t, 16> repeated{}; // the pattern over 128 bytes
  auto *bytes = reinterpret_cast<std::byte *>(repeated.data());
  for (size_t offset = 0; offset < sizeof repeated; offset += pattern.size())
    std::memcpy(bytes + offset, pattern.data(), pattern.size());
  uint64_t words = size / sizeof(uint64_t);
  auto blocks = static_cast<unsigned>(
      std::min<uint64_t>((words + kFillBlockSize - 1) / kFillBlockSize, kMaxFillBlocks));
  void *address = destination;
  std::array<void *, 18> parameters{&address, &words};
  for (size_t index = 0; index < repeated.size(); ++index)
    parameters[2 + index] = &repeated[index];
  return cuda_.launchKernel(kernel, blocks, 1, 1, kFillBlockSize, 1, 1, 0, stream,
                            parameters.data(), nullptr) == CUDA_SUCCESS;
}

CUfunction DeviceFill::fillKernel() {
  std::call_once(loadOnce_, [this] {
    if (cuda_.moduleLoadDataEx(&module_, kFillPtx, 0, nullptr, nullptr) != CUDA_SUCCESS) {
      module_ = nullptr;
      return;
    }
    if (cuda_.moduleGetFunction(&kernel_, module_, "kiln_fill_words") != CUDA_SUCCESS)
      kernel_ = nullptr;
  });
  return kernel_;
}

} // namespace kiln::cuda
