// Kernels whose output is larger than a good part of the last-level cache store it with
// non-temporal (streaming) stores on the CPU device when the address is aligned, and with plain
// stores otherwise. Either way every element must land where the kernel wrote it, at aligned
// and misaligned addresses, with global offsets and non-uniform work-groups, and kernels that
// order memory themselves (atomics) must keep plain stores, as must kernels whose buffers all
// fit in the cache (the next launch would find them there).
#include "cl_test.hpp"

using namespace cltest;

namespace {

const char *kScaleAddSource = R"(
  kernel void scaleAdd(global int *out, global const int *a, global const int *b, int shift) {
    size_t i = get_global_id(0);
    out[i + shift] = a[i] * 3 + b[i];
  }
  kernel void countedScaleAdd(global int *out, global const int *a, global const int *b,
                              volatile global int *count) {
    size_t i = get_global_id(0);
    out[i] = a[i] * 3 + b[i];
    if (a[i] % 1024 == 0)
      atomic_inc(count);
  }
  kernel void scaleInPlace(global int *data) {
    size_t i = get_global_id(0);
    data[i] = data[i] * 3 + 1;
  }
  kernel void scaleAdd16(global int16 *out, global const int16 *a, global const int16 *b,
                         int unused) {
    size_t i = get_global_id(0);
    out[i] = a[i] * 3 + b[i];
  })";

class StreamingStoresTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (!isKilnCpuDevice())
      GTEST_SKIP() << "streaming stores are the CPU device's";
    // The CPU device streams a launch's stores when the buffers it may write exceed a quarter
    // of the last-level cache and all its buffers together exceed the cache: make each of the
    // three buffers larger than half of it.
    uint64_t cache = deviceInfo<cl_ulong>(device_, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
    size_t bytes = cache / 2 + (size_t{4} << 20);
    if (bytes > (size_t{768} << 20))
      GTEST_SKIP() << "the last-level cache is too large for a streaming output in a test";
    count_ = bytes / sizeof(cl_int);
    Random random(31);
    a_.resize(count_);
    b_.resize(count_);
    for (size_t i = 0; i < count_; ++i) {
      a_[i] = static_cast<cl_int>(i);
      b_[i] = static_cast<cl_int>(random.next() % 2001) - 1000;
    }
  }

  /// Builds `name` with the vectorization report on and runs it over `global` items from
  /// `offset` in groups of `local` (0: the device's choice); returns what Kiln reported.
  std::string runReported(const char *name, const std::vector<cl_mem> &buffers, cl_int shift,
                          size_t global, size_t local, size_t offset) {
    // OpenCL C 3.0, for the non-uniform last work-group.
    Kernel kernel = buildReportingKernel(kScaleAddSource, name, "-cl-std=CL3.0");
    if (!kernel)
      return {};
    for (cl_uint index = 0; index < buffers.size(); ++index)
      EXPECT_CL_SUCCESS(clSetKernelArg(kernel, index, sizeof(cl_mem), &buffers[index]));
    if (buffers.size() == 3)
      EXPECT_CL_SUCCESS(clSetKernelArg(kernel, 3, sizeof shift, &shift));
    return runCapturingStderr(kernel, global, local, offset);
  }

  /// Runs scaleInPlace over a buffer holding `values`: Kiln must keep plain stores, and every
  /// element must be updated.
  void expectScaledInPlaceWithPlainStores(const std::vector<cl_int> &values) {
    Mem data = bufferWith(values);
    std::string report = runReported("scaleInPlace", {data.get()}, 0, values.size(), 0, 0);
    if (isKiln()) {
      EXPECT_NE(report.find("kernel 'scaleInPlace'"), std::string::npos) << report;
      EXPECT_EQ(report.find("stream past the caches"), std::string::npos) << report;
    }
    std::vector<cl_int> result = read<cl_int>(data, values.size());
    size_t wrong = 0;
    for (size_t i = 0; i < values.size(); ++i)
      wrong += result[i] != values[i] * 3 + 1;
    EXPECT_EQ(wrong, 0u);
  }

  size_t count_ = 0;
  std::vector<cl_int> a_, b_;
};

TEST_F(StreamingStoresTest, LargeOutputsMatchTheHostAtAlignedAndMisalignedAddresses) {
  Mem a = bufferWith(a_), b = bufferWith(b_);
  struct Launch {
    cl_int shift;
    size_t offset, local;
  };
  // Aligned; one int off (no store is aligned: the plain path); a global offset with an odd
  // local size, so that the last work-group is narrower and its SIMD groups are masked.
  for (Launch launch : {Launch{0, 0, 0}, Launch{1, 0, 0}, Launch{0, 16, 1000}}) {
    SCOPED_TRACE("shift " + std::to_string(launch.shift) + ", offset " +
                 std::to_string(launch.offset) + ", local size " + std::to_string(launch.local));
    Mem out = bufferWith(std::vector<cl_int>(count_ + 1, -7));
    size_t global = count_ - launch.offset;
    std::string report = runReported("scaleAdd", {out.get(), a.get(), b.get()}, launch.shift,
                                     global, launch.local, launch.offset);
    if (isKiln())
      EXPECT_NE(report.find("stream past the caches"), std::string::npos) << report;
    std::vector<cl_int> result = read<cl_int>(out, count_ + 1);
    size_t wrong = 0, firstWrong = 0;
    for (size_t slot = 0; slot < result.size(); ++slot) {
      bool written = slot >= launch.offset + launch.shift && slot < count_ + launch.shift;
      size_t i = slot - launch.shift;
      cl_int expected = written ? a_[i] * 3 + b_[i] : -7;
      if (result[slot] != expected && wrong++ == 0)
        firstWrong = slot;
    }
    EXPECT_EQ(wrong, 0u) << "first wrong element: " << firstWrong;
  }
}

TEST_F(StreamingStoresTest, StoresOfWholeVectorTypesStreamToo) {
  // An int16 is aligned to its size, so its stores need no alignment test.
  Mem a = bufferWith(a_), b = bufferWith(b_);
  size_t vectors = count_ / 16;
  Mem out = createBuffer(CL_MEM_READ_WRITE, count_ * sizeof(cl_int));
  std::string report = runReported("scaleAdd16", {out.get(), a.get(), b.get()}, 0, vectors, 0, 0);
  if (isKiln())
    EXPECT_NE(report.find("stream past the caches"), std::string::npos) << report;
  std::vector<cl_int> result = read<cl_int>(out, vectors * 16);
  size_t wrong = 0;
  for (size_t i = 0; i < result.size(); ++i)
    wrong += result[i] != a_[i] * 3 + b_[i];
  EXPECT_EQ(wrong, 0u);
}

TEST_F(StreamingStoresTest, KernelsWithAtomicsKeepPlainStores) {
  Mem a = bufferWith(a_), b = bufferWith(b_);
  Mem out = createBuffer(CL_MEM_READ_WRITE, count_ * sizeof(cl_int));
  Mem counter = bufferWith(std::vector<cl_int>{0});
  std::string report =
      runReported("countedScaleAdd", {out.get(), a.get(), b.get(), counter.get()}, 0, count_, 0, 0);
  if (isKiln()) {
    EXPECT_NE(report.find("kernel 'countedScaleAdd'"), std::string::npos) << report;
    EXPECT_EQ(report.find("stream past the caches"), std::string::npos) << report;
  }
  std::vector<cl_int> result = read<cl_int>(out, count_);
  size_t wrong = 0;
  for (size_t i = 0; i < count_; ++i)
    wrong += result[i] != a_[i] * 3 + b_[i];
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(read<cl_int>(counter, 1)[0], static_cast<cl_int>((count_ + 1023) / 1024));
}

TEST_F(StreamingStoresTest, LargeOutputsThatFitInTheCacheWithTheirInputsKeepPlainStores) {
  // One buffer, read and written: it fits in the cache, where the next launch over it finds
  // it (a sort's many steps over the same keys), so its stores must not evict it.
  uint64_t cache = deviceInfo<cl_ulong>(device_, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
  size_t count = (cache / 4 + (size_t{1} << 20)) / sizeof(cl_int);
  if (count * sizeof(cl_int) > cache)
    GTEST_SKIP() << "the last-level cache is too small for this test";
  expectScaledInPlaceWithPlainStores(
      std::vector<cl_int>(a_.begin(), a_.begin() + static_cast<ptrdiff_t>(count)));
}

TEST_F(StreamingStoresTest, BuffersUpdatedInPlaceKeepPlainStoresHoweverLarge) {
  // Larger than the cache, but the kernel reads each element before it writes it: the read has
  // brought the line into the cache, and a streaming store would only evict it.
  std::vector<cl_int> values(2 * count_);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = a_[i % count_] + static_cast<cl_int>(i / count_);
  expectScaledInPlaceWithPlainStores(values);
}

} // namespace
