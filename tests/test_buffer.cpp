// Buffers and sub-buffers: creation flags and their errors, queries, host pointers, the read,
// write, copy and fill commands and their rectangle variants against host references, overlap
// detection, map and unmap, host access flags, migration and destructor callbacks.
#include "cl_test.hpp"

#include <array>
#include <atomic>
#include <fstream>
#include <mutex>
#include <numeric>
#include <sstream>

using namespace cltest;

namespace {

class BufferTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    alignment_ = deviceInfo<cl_uint>(device_, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
  }

  /// Bytes 0, 1, 2, ... (mod 251, so patterns do not repeat with powers of two).
  static std::vector<unsigned char> sequence(size_t size, unsigned start = 0) {
    std::vector<unsigned char> bytes(size);
    for (size_t index = 0; index < size; ++index)
      bytes[index] = static_cast<unsigned char>((index + start) % 251);
    return bytes;
  }

  /// Writes `size` bytes into a buffer of `total`, copies them to another and reads them back,
  /// all at offsets that are not multiples of anything (`total` leaves 4 KiB beside `size`);
  /// the host's ranges beside each region must stay untouched.
  void expectWriteCopyAndReadMoveEveryByte(size_t total, size_t size) {
    std::vector<unsigned char> hostData = sequence(total, 29);
    Mem source = bufferWith(std::vector<unsigned char>(total, 0x5A));
    Mem destination = bufferWith(std::vector<unsigned char>(total, 0xA5));
    ASSERT_CL_SUCCESS(clEnqueueWriteBuffer(queue_, source, CL_FALSE, 13, size,
                                           hostData.data() + 101, 0, nullptr, nullptr));
    ASSERT_CL_SUCCESS(
        clEnqueueCopyBuffer(queue_, source, destination, 13, 4099, size, 0, nullptr, nullptr));
    std::vector<unsigned char> received(total, 0x11);
    ASSERT_CL_SUCCESS(clEnqueueReadBuffer(queue_, destination, CL_TRUE, 4099, size,
                                          received.data() + 7, 0, nullptr, nullptr));

    std::vector<unsigned char> expectedSource(total, 0x5A), expectedDestination(total, 0xA5),
        expectedReceived(total, 0x11);
    std::copy_n(hostData.begin() + 101, size, expectedSource.begin() + 13);
    std::copy_n(hostData.begin() + 101, size, expectedDestination.begin() + 4099);
    std::copy_n(hostData.begin() + 101, size, expectedReceived.begin() + 7);
    EXPECT_TRUE(equalArrays(expectedReceived, received));
    EXPECT_TRUE(equalArrays(expectedSource, read<unsigned char>(source, total)));
    EXPECT_TRUE(equalArrays(expectedDestination, read<unsigned char>(destination, total)));
  }

  Mem subBuffer(cl_mem parent, cl_mem_flags flags, size_t origin, size_t size,
                cl_int *errorOut = nullptr) {
    cl_buffer_region region{origin, size};
    cl_int error = CL_SUCCESS;
    Mem sub(clCreateSubBuffer(parent, flags, CL_BUFFER_CREATE_TYPE_REGION, &region, &error));
    if (errorOut != nullptr)
      *errorOut = error;
    else
      EXPECT_CL_SUCCESS(error);
    return sub;
  }

  cl_int createError(cl_mem_flags flags, size_t size, void *hostPtr) {
    cl_int error = CL_SUCCESS;
    Mem buffer(clCreateBuffer(context_, flags, size, hostPtr, &error));
    EXPECT_EQ(error == CL_SUCCESS, buffer.get() != nullptr);
    return error;
  }

  size_t alignment_ = 128;
};

constexpr cl_mem_flags kAccessFlags[] = {0, CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY};
constexpr cl_mem_flags kHostPointerFlags[] = {0, CL_MEM_ALLOC_HOST_PTR, CL_MEM_COPY_HOST_PTR,
                                              CL_MEM_USE_HOST_PTR,
                                              CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR};
constexpr cl_mem_flags kHostAccessFlags[] = {0, CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_READ_ONLY,
                                             CL_MEM_HOST_NO_ACCESS};

} // namespace

// ---------------------------------------------------------------------------------------------
// Creation

TEST_F(BufferTest, EveryValidFlagCombinationCreatesABufferThatReportsIt) {
  alignas(256) std::array<unsigned char, 256> host{};
  for (cl_mem_flags access : kAccessFlags)
    for (cl_mem_flags pointer : kHostPointerFlags)
      for (cl_mem_flags hostAccess : kHostAccessFlags) {
        cl_mem_flags flags = access | pointer | hostAccess;
        SCOPED_TRACE("flags " + std::to_string(flags));
        bool needsHost = pointer & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
        cl_int error = CL_SUCCESS;
        Mem buffer(clCreateBuffer(context_, flags, host.size(), needsHost ? host.data() : nullptr,
                                  &error));
        ASSERT_CL_SUCCESS(error);
        EXPECT_EQ(cl_mem_object_type{CL_MEM_OBJECT_BUFFER},
                  memInfo<cl_mem_object_type>(buffer, CL_MEM_TYPE));
        EXPECT_EQ(host.size(), memInfo<size_t>(buffer, CL_MEM_SIZE));
        EXPECT_EQ(context_.get(), memInfo<cl_context>(buffer, CL_MEM_CONTEXT));
        EXPECT_EQ(0u, memInfo<cl_uint>(buffer, CL_MEM_MAP_COUNT));
        EXPECT_GE(memInfo<cl_uint>(buffer, CL_MEM_REFERENCE_COUNT), 1u);
        EXPECT_EQ(nullptr, memInfo<cl_mem>(buffer, CL_MEM_ASSOCIATED_MEMOBJECT));
        EXPECT_EQ(0u, memInfo<size_t>(buffer, CL_MEM_OFFSET));
        EXPECT_EQ(cl_bool{CL_FALSE}, memInfo<cl_bool>(buffer, CL_MEM_USES_SVM_POINTER));
        // CL_MEM_HOST_PTR: host_ptr for CL_MEM_USE_HOST_PTR buffers, NULL otherwise.
        EXPECT_EQ((pointer & CL_MEM_USE_HOST_PTR) ? host.data() : nullptr,
                  memInfo<void *>(buffer, CL_MEM_HOST_PTR));
        // The flags given are reported (a default access flag may be added when none is given).
        cl_mem_flags reported = memInfo<cl_mem_flags>(buffer, CL_MEM_FLAGS);
        if (access != 0)
          EXPECT_EQ(flags, reported);
        else
          EXPECT_EQ(flags, reported & ~cl_mem_flags{CL_MEM_READ_WRITE});
      }
}

TEST_F(BufferTest, ConflictingFlagsAreInvalidValue) {
  int host[16] = {};
  for (cl_mem_flags flags : {cl_mem_flags{CL_MEM_READ_WRITE | CL_MEM_READ_ONLY},
                             cl_mem_flags{CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY},
                             cl_mem_flags{CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY},
                             cl_mem_flags{CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY},
                             cl_mem_flags{CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_READ_ONLY},
                             cl_mem_flags{CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_WRITE_ONLY}})
    EXPECT_CL_ERROR(CL_INVALID_VALUE, createError(flags, sizeof host, nullptr)) << flags;
  // CL_MEM_USE_HOST_PTR is mutually exclusive with CL_MEM_ALLOC_HOST_PTR and
  // CL_MEM_COPY_HOST_PTR.
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  createError(CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, sizeof host, host));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  createError(CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, sizeof host, host));
  // A bit no flag uses.
  EXPECT_CL_ERROR(CL_INVALID_VALUE, createError(cl_mem_flags{1} << 40, sizeof host, nullptr));
}

TEST_F(BufferTest, ZeroSizeIsInvalidBufferSize) {
  EXPECT_CL_ERROR(CL_INVALID_BUFFER_SIZE, createError(CL_MEM_READ_WRITE, 0, nullptr));
}

TEST_F(BufferTest, SizeAboveMaxAllocIsInvalidBufferSize) {
  cl_ulong maxAlloc = deviceInfo<cl_ulong>(device_, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  if (maxAlloc >= SIZE_MAX)
    GTEST_SKIP();
  EXPECT_CL_ERROR(CL_INVALID_BUFFER_SIZE,
                  createError(CL_MEM_READ_WRITE, static_cast<size_t>(maxAlloc) + 1, nullptr));
}

TEST_F(BufferTest, HostPointerMismatchesAreInvalidHostPtr) {
  int host[16] = {};
  // "CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR are
  // set in flags or if host_ptr is not NULL but CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are
  // not set in flags."
  EXPECT_CL_ERROR(CL_INVALID_HOST_PTR, createError(CL_MEM_USE_HOST_PTR, sizeof host, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_HOST_PTR, createError(CL_MEM_COPY_HOST_PTR, sizeof host, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_HOST_PTR, createError(CL_MEM_READ_WRITE, sizeof host, host));
  EXPECT_CL_ERROR(CL_INVALID_HOST_PTR, createError(CL_MEM_ALLOC_HOST_PTR, sizeof host, host));
}

TEST_F(BufferTest, NullContextIsInvalidContext) {
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateBuffer(nullptr, CL_MEM_READ_WRITE, 64, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, error);
}

TEST_F(BufferTest, ForeignContextIsInvalidContext) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  ForeignObject foreign;
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateBuffer(foreign.as<cl_context>(context_.get()), CL_MEM_READ_WRITE, 64,
                                    nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, error);
}

TEST_F(BufferTest, CopyHostPtrCopiesAtCreationOnly) {
  std::vector<int> host(64);
  std::iota(host.begin(), host.end(), 0);
  Mem buffer = createBuffer(CL_MEM_COPY_HOST_PTR, host.size() * sizeof(int), host.data());
  std::vector<int> expected = host;
  std::fill(host.begin(), host.end(), -1); // the buffer must not see this
  EXPECT_TRUE(equalArrays(expected, read<int>(buffer, 64)));
}

TEST_F(BufferTest, UseHostPtrSharesTheApplicationsMemory) {
  alignas(128) int host[64];
  std::iota(std::begin(host), std::end(host), 100);
  Mem buffer = createBuffer(CL_MEM_USE_HOST_PTR, sizeof host, host);
  EXPECT_TRUE(
      equalArrays(std::vector<int>(std::begin(host), std::end(host)), read<int>(buffer, 64)));
  // After a write command completes, the host memory holds the data once mapped.
  std::vector<int> data(64, 42);
  write(buffer, data);
  cl_int error = CL_SUCCESS;
  void *mapped = clEnqueueMapBuffer(queue_, buffer, CL_TRUE, CL_MAP_READ, 0, sizeof host, 0,
                                    nullptr, nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(static_cast<void *>(host), mapped);
  EXPECT_TRUE(equalArrays(data, std::vector<int>(std::begin(host), std::end(host))));
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, buffer, mapped, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
}

TEST_F(BufferTest, AllocHostPtrBufferWorksForReadAndWrite) {
  Mem buffer = createBuffer(CL_MEM_ALLOC_HOST_PTR, 4096);
  std::vector<unsigned char> data = sequence(4096);
  write(buffer, data);
  EXPECT_TRUE(equalArrays(data, read<unsigned char>(buffer, 4096)));
}

// On a GPU, CL_MEM_ALLOC_HOST_PTR memory is the host's (pinned), which kernels reach over the
// bus: plain accesses and atomics must work there as in any other buffer.
TEST_F(BufferTest, AllocHostPtrBufferServesKernelsAtomicsAndMaps) {
  constexpr size_t kItems = 1 << 16, kCounters = 64;
  Kernel kernel = buildKernel(R"(
    kernel void tally(global const uint *in, global uint *squares, global uint *counters) {
      size_t i = get_global_id(0);
      squares[i] = in[i] * in[i];
      atomic_inc(&counters[in[i] % 64]);
    })",
                              "tally");
  ASSERT_NE(nullptr, kernel.get());
  Random random(7);
  std::vector<cl_uint> in = random.values<cl_uint>(kItems);
  Mem input = createBuffer(CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_ONLY, kItems * sizeof(cl_uint));
  Mem squares = createBuffer(CL_MEM_ALLOC_HOST_PTR, kItems * sizeof(cl_uint));
  Mem counters = createBuffer(CL_MEM_ALLOC_HOST_PTR, kCounters * sizeof(cl_uint));
  // The input goes in through a map, as applications fill such buffers.
  cl_int error = CL_SUCCESS;
  auto *view = static_cast<cl_uint *>(clEnqueueMapBuffer(queue_, input, CL_TRUE, CL_MAP_WRITE, 0,
                                                         kItems * sizeof(cl_uint), 0, nullptr,
                                                         nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  std::copy(in.begin(), in.end(), view);
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, input, view, 0, nullptr, nullptr));
  const cl_uint zero = 0;
  ASSERT_CL_SUCCESS(clEnqueueFillBuffer(queue_, counters, &zero, sizeof zero, 0,
                                        kCounters * sizeof(cl_uint), 0, nullptr, nullptr));
  ASSERT_TRUE(setArgs(kernel, input, squares, counters));
  ASSERT_TRUE(run1D(kernel, kItems));
  std::vector<cl_uint> expectedSquares(kItems), expectedCounts(kCounters, 0);
  for (size_t i = 0; i < kItems; ++i) {
    expectedSquares[i] = in[i] * in[i];
    ++expectedCounts[in[i] % kCounters];
  }
  EXPECT_TRUE(equalArrays(expectedCounts, read<cl_uint>(counters, kCounters)));
  auto *results = static_cast<cl_uint *>(clEnqueueMapBuffer(queue_, squares, CL_TRUE, CL_MAP_READ,
                                                            0, kItems * sizeof(cl_uint), 0, nullptr,
                                                            nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  EXPECT_TRUE(equalArrays(expectedSquares, std::vector<cl_uint>(results, results + kItems)));
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, squares, results, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
}

/// The "THPeligible" field of the mapping of /proc/self/smaps that holds `address`: 1 when the
/// kernel may back it with transparent huge pages; -1 when it cannot be told.
int hugePageEligibility(const void *address) {
  std::ifstream smaps("/proc/self/smaps");
  auto wanted = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  std::string line;
  while (std::getline(smaps, line)) {
    unsigned long long begin = 0, end = 0;
    char dash = 0;
    std::istringstream fields(line);
    if (fields >> std::hex >> begin >> dash >> end && dash == '-' &&
        line.find(':') > line.find(' ')) {
      inside = begin <= wanted && wanted < end;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0)
      return std::stoi(line.substr(12));
  }
  return -1;
}

TEST_F(BufferTest, LargeBuffersOfTheCpuDeviceMayUseHugePages) {
  // Kernels walk large buffers in strides (a matrix's columns, grid-stride loops): Kiln's CPU
  // device asks for transparent huge pages for buffers of 2 MiB or more, which Linux's default
  // `madvise` mode gives only on request.
  std::ifstream setting("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(setting, modes);
  if (!isKilnCpuDevice() || modes.find("[madvise]") == std::string::npos)
    GTEST_SKIP() << "not Kiln's CPU device, or huge pages are not given on request here";
  const size_t bytes = size_t{8} << 20;
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, bytes);
  cl_int error = CL_SUCCESS;
  void *view = clEnqueueMapBuffer(queue_, buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                  nullptr, nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(view) % (size_t{2} << 20));
  int eligible = hugePageEligibility(view);
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, buffer, view, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
  if (eligible < 0)
    GTEST_SKIP() << "this kernel's smaps has no THPeligible field";
  EXPECT_EQ(1, eligible);
}

TEST_F(BufferTest, WithPropertiesAcceptsNullAndEmptyLists) {
  cl_int error = CL_SUCCESS;
  Mem first(
      clCreateBufferWithProperties(context_, nullptr, CL_MEM_READ_WRITE, 64, nullptr, &error));
  EXPECT_CL_SUCCESS(error);
  size_t size = 99;
  // "If the properties argument ... was NULL, ... param_value_size_ret equal to 0".
  EXPECT_CL_SUCCESS(clGetMemObjectInfo(first, CL_MEM_PROPERTIES, 0, nullptr, &size));
  EXPECT_EQ(0u, size);
  cl_mem_properties empty[] = {0};
  Mem second(clCreateBufferWithProperties(context_, empty, CL_MEM_READ_WRITE, 64, nullptr, &error));
  EXPECT_CL_SUCCESS(error);
}

TEST_F(BufferTest, ClCreateBufferReportsNoProperties) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 64);
  size_t size = 99;
  EXPECT_CL_SUCCESS(clGetMemObjectInfo(buffer, CL_MEM_PROPERTIES, 0, nullptr, &size));
  EXPECT_EQ(0u, size);
}

TEST_F(BufferTest, WithPropertiesUnknownPropertyIsInvalidProperty) {
  cl_mem_properties properties[] = {0x7FFF, 1, 0};
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateBufferWithProperties(context_, properties, CL_MEM_READ_WRITE, 64,
                                                  nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_PROPERTY, error);
}

TEST_F(BufferTest, InfoErrors) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 64);
  size_t value = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetMemObjectInfo(buffer, 0x7FFF, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof value - 1, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clGetMemObjectInfo(nullptr, CL_MEM_SIZE, sizeof value, &value, nullptr));
}

TEST_F(BufferTest, RetainAndReleaseMoveTheReferenceCount) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 64);
  cl_uint initial = refCount(buffer.get());
  ASSERT_CL_SUCCESS(clRetainMemObject(buffer));
  EXPECT_EQ(initial + 1, refCount(buffer.get()));
  ASSERT_CL_SUCCESS(clReleaseMemObject(buffer));
  EXPECT_EQ(initial, refCount(buffer.get()));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, clRetainMemObject(nullptr));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, clReleaseMemObject(nullptr));
}

// ---------------------------------------------------------------------------------------------
// Sub-buffers

TEST_F(BufferTest, SubBufferReportsParentOffsetAndSize) {
  Mem parent = createBuffer(CL_MEM_READ_WRITE, 4 * alignment_);
  Mem sub = subBuffer(parent, 0, alignment_, 2 * alignment_);
  ASSERT_NE(nullptr, sub.get());
  EXPECT_EQ(parent.get(), memInfo<cl_mem>(sub, CL_MEM_ASSOCIATED_MEMOBJECT));
  EXPECT_EQ(alignment_, memInfo<size_t>(sub, CL_MEM_OFFSET));
  EXPECT_EQ(2 * alignment_, memInfo<size_t>(sub, CL_MEM_SIZE));
  EXPECT_EQ(context_.get(), memInfo<cl_context>(sub, CL_MEM_CONTEXT));
  EXPECT_EQ(cl_mem_object_type{CL_MEM_OBJECT_BUFFER},
            memInfo<cl_mem_object_type>(sub, CL_MEM_TYPE));
}

TEST_F(BufferTest, SubBufferInheritsFlagsFromItsParent) {
  std::vector<unsigned char> host(4 * alignment_);
  cl_mem_flags parentFlags = CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR | CL_MEM_HOST_READ_ONLY;
  Mem parent = createBuffer(parentFlags, host.size(), host.data());
  Mem sub = subBuffer(parent, 0, alignment_, alignment_);
  ASSERT_NE(nullptr, sub.get());
  // Access and host access qualifiers not given are inherited, and so are the host pointer
  // flags, which cannot be given.
  EXPECT_EQ(parentFlags, memInfo<cl_mem_flags>(sub, CL_MEM_FLAGS));
  // CL_MEM_HOST_PTR of a sub-buffer of a CL_MEM_USE_HOST_PTR buffer: host_ptr + origin.
  EXPECT_EQ(host.data() + alignment_, memInfo<void *>(sub, CL_MEM_HOST_PTR));
}

TEST_F(BufferTest, SubBufferMayNarrowTheAccessOfItsParent) {
  Mem parent = createBuffer(CL_MEM_READ_WRITE, 2 * alignment_);
  Mem sub = subBuffer(parent, CL_MEM_WRITE_ONLY | CL_MEM_HOST_WRITE_ONLY, 0, alignment_);
  ASSERT_NE(nullptr, sub.get());
  EXPECT_EQ(cl_mem_flags{CL_MEM_WRITE_ONLY | CL_MEM_HOST_WRITE_ONLY},
            memInfo<cl_mem_flags>(sub, CL_MEM_FLAGS));
}

TEST_F(BufferTest, SubBufferFlagConflictsAreInvalidValue) {
  struct Case {
    cl_mem_flags parent, sub;
  };
  // The specification's list of conflicts between the parent's and the sub-buffer's flags.
  for (Case c :
       {Case{CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE}, Case{CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY},
        Case{CL_MEM_READ_ONLY, CL_MEM_READ_WRITE}, Case{CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY},
        Case{CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_READ_ONLY},
        Case{CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_WRITE_ONLY},
        Case{CL_MEM_HOST_NO_ACCESS, CL_MEM_HOST_READ_ONLY},
        Case{CL_MEM_HOST_NO_ACCESS, CL_MEM_HOST_WRITE_ONLY},
        // Host pointer flags cannot be given to a sub-buffer.
        Case{CL_MEM_READ_WRITE, CL_MEM_ALLOC_HOST_PTR},
        Case{CL_MEM_READ_WRITE, CL_MEM_COPY_HOST_PTR},
        Case{CL_MEM_READ_WRITE, CL_MEM_USE_HOST_PTR}}) {
    Mem parent = createBuffer(c.parent, 2 * alignment_);
    cl_int error = CL_SUCCESS;
    Mem sub = subBuffer(parent, c.sub, 0, alignment_, &error);
    EXPECT_EQ(nullptr, sub.get());
    EXPECT_CL_ERROR(CL_INVALID_VALUE, error) << "parent " << c.parent << ", sub " << c.sub;
  }
}

TEST_F(BufferTest, SubBufferRegionErrors) {
  Mem parent = createBuffer(CL_MEM_READ_WRITE, 4 * alignment_);
  cl_int error = CL_SUCCESS;
  // Out of bounds: "CL_INVALID_VALUE if the region specified by (origin, size) is out of bounds".
  Mem tooLong = subBuffer(parent, 0, alignment_, 4 * alignment_, &error);
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  Mem pastEnd = subBuffer(parent, 0, 8 * alignment_, alignment_, &error);
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  // "CL_INVALID_BUFFER_SIZE if the size field of the cl_buffer_region structure ... is 0".
  Mem empty = subBuffer(parent, 0, 0, 0, &error);
  EXPECT_CL_ERROR(CL_INVALID_BUFFER_SIZE, error);
  // "CL_MISALIGNED_SUB_BUFFER_OFFSET if ... origin ... is not aligned to the
  // CL_DEVICE_MEM_BASE_ADDR_ALIGN value".
  Mem misaligned = subBuffer(parent, 0, 1, alignment_, &error);
  EXPECT_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET, error);
  Mem halfAligned = subBuffer(parent, 0, alignment_ / 2, alignment_, &error);
  EXPECT_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET, error);
  // Bad create type or info.
  cl_buffer_region region{0, alignment_};
  EXPECT_EQ(nullptr, clCreateSubBuffer(parent, 0, 0x7FFF, &region, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  EXPECT_EQ(nullptr, clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
}

TEST_F(BufferTest, SubBufferOfASubBufferIsInvalidMemObject) {
  Mem parent = createBuffer(CL_MEM_READ_WRITE, 4 * alignment_);
  Mem sub = subBuffer(parent, 0, 0, 2 * alignment_);
  cl_int error = CL_SUCCESS;
  Mem subSub = subBuffer(sub, 0, 0, alignment_, &error);
  EXPECT_EQ(nullptr, subSub.get());
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, error);
}

TEST_F(BufferTest, SubBufferSharesDataWithItsParent) {
  const size_t size = 4 * alignment_;
  std::vector<unsigned char> data = sequence(size);
  Mem parent = bufferWith(data);
  Mem sub = subBuffer(parent, 0, alignment_, 2 * alignment_);
  // Reading the sub-buffer sees the parent's bytes at the origin.
  EXPECT_TRUE(equalArrays(
      std::vector<unsigned char>(data.begin() + alignment_, data.begin() + 3 * alignment_),
      read<unsigned char>(sub, 2 * alignment_)));
  // Writing it changes the parent there and only there.
  std::vector<unsigned char> patch(alignment_, 0xEE);
  write(sub, patch, 3);
  std::vector<unsigned char> expected = data;
  std::fill(expected.begin() + alignment_ + 3, expected.begin() + 2 * alignment_ + 3, 0xEE);
  EXPECT_TRUE(equalArrays(expected, read<unsigned char>(parent, size)));
  // Fills and copies address the sub-buffer from its origin too.
  unsigned char pattern = 0x42;
  ASSERT_CL_SUCCESS(clEnqueueFillBuffer(queue_, sub, &pattern, 1, 0, 2, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(
      clEnqueueCopyBuffer(queue_, parent, sub, 0, alignment_, 4, 0, nullptr, nullptr));
  expected[alignment_] = expected[alignment_ + 1] = 0x42;
  std::copy_n(expected.begin(), 4, expected.begin() + 2 * alignment_);
  EXPECT_TRUE(equalArrays(expected, read<unsigned char>(parent, size)));
}

namespace {

struct DestructorLog {
  std::mutex mutex;
  std::vector<std::string> order;
  void add(const std::string &name) {
    std::lock_guard lock(mutex);
    order.push_back(name);
  }
  size_t size() {
    std::lock_guard lock(mutex);
    return order.size();
  }
};

struct NamedCallback {
  DestructorLog *log;
  std::string name;
};

void CL_CALLBACK memDestroyed(cl_mem, void *data) {
  auto *callback = static_cast<NamedCallback *>(data);
  callback->log->add(callback->name);
}

} // namespace

TEST_F(BufferTest, ParentLivesUntilItsSubBuffersAreReleased) {
  // "If memobj is a buffer object, memobj cannot be deleted until all sub-buffer objects
  // associated with memobj are deleted."
  DestructorLog log;
  NamedCallback parentCallback{&log, "parent"}, subCallback{&log, "sub"};
  std::vector<unsigned char> data = sequence(2 * alignment_);
  cl_mem parent = bufferWith(data).release();
  ASSERT_NE(nullptr, parent);
  ASSERT_CL_SUCCESS(clSetMemObjectDestructorCallback(parent, memDestroyed, &parentCallback));
  cl_mem sub = subBuffer(parent, 0, alignment_, alignment_).release();
  ASSERT_NE(nullptr, sub);
  ASSERT_CL_SUCCESS(clSetMemObjectDestructorCallback(sub, memDestroyed, &subCallback));

  ASSERT_CL_SUCCESS(clReleaseMemObject(parent));
  EXPECT_TRUE(staysFalse([&] { return log.size() > 0; }));
  // The sub-buffer still reads the parent's storage.
  EXPECT_TRUE(equalArrays(std::vector<unsigned char>(data.begin() + alignment_, data.end()),
                          read<unsigned char>(sub, alignment_)));
  ASSERT_CL_SUCCESS(clReleaseMemObject(sub));
  ASSERT_TRUE(eventually([&] { return log.size() == 2; }));
  EXPECT_EQ((std::vector<std::string>{"sub", "parent"}), log.order);
}

TEST_F(BufferTest, DestructorCallbacksRunInReverseOrderOfRegistration) {
  DestructorLog log;
  NamedCallback first{&log, "first"}, second{&log, "second"}, third{&log, "third"};
  cl_mem buffer = createBuffer(CL_MEM_READ_WRITE, 64).release();
  for (NamedCallback *callback : {&first, &second, &third})
    ASSERT_CL_SUCCESS(clSetMemObjectDestructorCallback(buffer, memDestroyed, callback));
  ASSERT_CL_SUCCESS(clRetainMemObject(buffer));
  ASSERT_CL_SUCCESS(clReleaseMemObject(buffer));
  EXPECT_TRUE(staysFalse([&] { return log.size() > 0; })) << "ran while a reference remained";
  ASSERT_CL_SUCCESS(clReleaseMemObject(buffer));
  ASSERT_TRUE(eventually([&] { return log.size() == 3; }));
  EXPECT_EQ((std::vector<std::string>{"third", "second", "first"}), log.order);
}

TEST_F(BufferTest, DestructorCallbackErrors) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 64);
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clSetMemObjectDestructorCallback(buffer, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clSetMemObjectDestructorCallback(nullptr, memDestroyed, nullptr));
}

// ---------------------------------------------------------------------------------------------
// Read and write

TEST_F(BufferTest, WriteThenReadAtSeveralSizesAndOffsets) {
  for (size_t size : {size_t{1}, size_t{3}, size_t{64}, size_t{4097}, size_t{1} << 20}) {
    for (size_t offset : {size_t{0}, size_t{1}, size_t{13}}) {
      SCOPED_TRACE("size " + std::to_string(size) + " offset " + std::to_string(offset));
      const size_t total = size + offset + 7;
      std::vector<unsigned char> initial(total, 0x5A);
      Mem buffer = bufferWith(initial);
      std::vector<unsigned char> data = sequence(size, static_cast<unsigned>(size));
      ASSERT_CL_SUCCESS(clEnqueueWriteBuffer(queue_, buffer, CL_TRUE, offset, size, data.data(), 0,
                                             nullptr, nullptr));
      std::vector<unsigned char> expected = initial;
      std::copy(data.begin(), data.end(), expected.begin() + offset);
      EXPECT_TRUE(equalArrays(expected, read<unsigned char>(buffer, total)));
      std::vector<unsigned char> part(size);
      ASSERT_CL_SUCCESS(clEnqueueReadBuffer(queue_, buffer, CL_TRUE, offset, size, part.data(), 0,
                                            nullptr, nullptr));
      EXPECT_TRUE(equalArrays(data, part));
    }
  }
}

TEST_F(BufferTest, NonBlockingWriteAndReadCompleteWithTheirEvents) {
  const size_t count = 1 << 18;
  std::vector<float> data = Random(7).values<float>(count);
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, count * sizeof(float));
  Event written, readBack;
  ASSERT_CL_SUCCESS(clEnqueueWriteBuffer(queue_, buffer, CL_FALSE, 0, count * sizeof(float),
                                         data.data(), 0, nullptr, written.out()));
  std::vector<float> out(count);
  cl_event waitList[] = {written};
  ASSERT_CL_SUCCESS(clEnqueueReadBuffer(queue_, buffer, CL_FALSE, 0, count * sizeof(float),
                                        out.data(), 1, waitList, readBack.out()));
  ASSERT_CL_SUCCESS(clWaitForEvents(1, readBack.ptr()));
  EXPECT_EQ(CL_COMPLETE, eventStatus(written));
  EXPECT_EQ(CL_COMPLETE, eventStatus(readBack));
  EXPECT_TRUE(equalArrays(data, out));
  EXPECT_EQ(cl_command_type{CL_COMMAND_WRITE_BUFFER},
            eventInfo<cl_command_type>(written, CL_EVENT_COMMAND_TYPE));
  EXPECT_EQ(cl_command_type{CL_COMMAND_READ_BUFFER},
            eventInfo<cl_command_type>(readBack, CL_EVENT_COMMAND_TYPE));
}

TEST_F(BufferTest, ReadAndWriteErrors) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 64);
  unsigned char host[128] = {};
  // "CL_INVALID_VALUE if the region being read or written specified by (offset, size) is out of
  // bounds or if ptr is a NULL value."
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueReadBuffer(queue_, buffer, CL_TRUE, 0, 65, host, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueReadBuffer(queue_, buffer, CL_TRUE, 60, 8, host, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueReadBuffer(queue_, buffer, CL_TRUE, 0, 8, nullptr, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueWriteBuffer(queue_, buffer, CL_TRUE, 0, 65, host, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueWriteBuffer(queue_, buffer, CL_TRUE, 64, 1, host, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clEnqueueWriteBuffer(queue_, buffer, CL_TRUE, 0, 8, nullptr, 0,
                                                         nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clEnqueueReadBuffer(queue_, nullptr, CL_TRUE, 0, 8, host, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE,
                  clEnqueueReadBuffer(nullptr, buffer, CL_TRUE, 0, 8, host, 0, nullptr, nullptr));
}

TEST_F(BufferTest, WaitListErrors) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 64);
  unsigned char host[64] = {};
  Event done;
  ASSERT_CL_SUCCESS(
      clEnqueueWriteBuffer(queue_, buffer, CL_TRUE, 0, 8, host, 0, nullptr, done.out()));
  cl_event list[] = {done};
  // "CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and num_events_in_wait_list > 0, or
  // event_wait_list is not NULL and num_events_in_wait_list is 0, or if event objects in
  // event_wait_list are not valid events."
  EXPECT_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST,
                  clEnqueueReadBuffer(queue_, buffer, CL_TRUE, 0, 8, host, 1, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST,
                  clEnqueueReadBuffer(queue_, buffer, CL_TRUE, 0, 8, host, 0, list, nullptr));
  cl_event withNull[] = {done, nullptr};
  EXPECT_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST,
                  clEnqueueReadBuffer(queue_, buffer, CL_TRUE, 0, 8, host, 2, withNull, nullptr));
  EXPECT_CL_SUCCESS(clEnqueueReadBuffer(queue_, buffer, CL_TRUE, 0, 8, host, 1, list, nullptr));
}

TEST_F(BufferTest, ObjectsOfAnotherContextAreInvalidContext) {
  cl_int error = CL_SUCCESS;
  Context other(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  Mem foreignBuffer(clCreateBuffer(other, CL_MEM_READ_WRITE, 64, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  Event foreignEvent(clCreateUserEvent(other, &error));
  ASSERT_CL_SUCCESS(error);
  ASSERT_CL_SUCCESS(clSetUserEventStatus(foreignEvent, CL_COMPLETE));
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 64);
  unsigned char host[64] = {};
  // "CL_INVALID_CONTEXT if the context associated with command_queue and buffer are not the
  // same or if the context associated with command_queue and events in event_wait_list are not
  // the same."
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, clEnqueueReadBuffer(queue_, foreignBuffer, CL_TRUE, 0, 8,
                                                          host, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, clEnqueueWriteBuffer(queue_, foreignBuffer, CL_TRUE, 0, 8,
                                                           host, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT,
                  clEnqueueCopyBuffer(queue_, buffer, foreignBuffer, 0, 0, 8, 0, nullptr, nullptr));
  cl_event list[] = {foreignEvent};
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT,
                  clEnqueueReadBuffer(queue_, buffer, CL_TRUE, 0, 8, host, 1, list, nullptr));
  int pattern = 0;
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT,
                  clEnqueueFillBuffer(queue_, foreignBuffer, &pattern, sizeof pattern, 0, 8, 0,
                                      nullptr, nullptr));
}

// ---------------------------------------------------------------------------------------------
// Host access flags

TEST_F(BufferTest, HostAccessFlagsForbidTheHostOperationsTheyExclude) {
  unsigned char host[64] = {};
  size_t origin[3] = {0, 0, 0}, region[3] = {8, 1, 1};
  auto checkRead = [&](cl_mem buffer, cl_int expected) {
    EXPECT_CL_ERROR(expected,
                    clEnqueueReadBuffer(queue_, buffer, CL_TRUE, 0, 8, host, 0, nullptr, nullptr));
    EXPECT_CL_ERROR(expected,
                    clEnqueueReadBufferRect(queue_, buffer, CL_TRUE, origin, origin, region, 0, 0,
                                            0, 0, host, 0, nullptr, nullptr));
    cl_int error = CL_SUCCESS;
    void *mapped =
        clEnqueueMapBuffer(queue_, buffer, CL_TRUE, CL_MAP_READ, 0, 8, 0, nullptr, nullptr, &error);
    EXPECT_CL_ERROR(expected, error) << "map for reading";
    if (mapped != nullptr)
      EXPECT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, buffer, mapped, 0, nullptr, nullptr));
  };
  auto checkWrite = [&](cl_mem buffer, cl_int expected) {
    EXPECT_CL_ERROR(expected,
                    clEnqueueWriteBuffer(queue_, buffer, CL_TRUE, 0, 8, host, 0, nullptr, nullptr));
    EXPECT_CL_ERROR(expected,
                    clEnqueueWriteBufferRect(queue_, buffer, CL_TRUE, origin, origin, region, 0, 0,
                                             0, 0, host, 0, nullptr, nullptr));
    for (cl_map_flags flags :
         {cl_map_flags{CL_MAP_WRITE}, cl_map_flags{CL_MAP_WRITE_INVALIDATE_REGION}}) {
      cl_int error = CL_SUCCESS;
      void *mapped =
          clEnqueueMapBuffer(queue_, buffer, CL_TRUE, flags, 0, 8, 0, nullptr, nullptr, &error);
      EXPECT_CL_ERROR(expected, error) << "map flags " << flags;
      if (mapped != nullptr)
        EXPECT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, buffer, mapped, 0, nullptr, nullptr));
    }
  };
  Mem writeOnly = createBuffer(CL_MEM_HOST_WRITE_ONLY, 64);
  Mem readOnly = createBuffer(CL_MEM_HOST_READ_ONLY, 64);
  Mem noAccess = createBuffer(CL_MEM_HOST_NO_ACCESS, 64);
  // "CL_INVALID_OPERATION if clEnqueueReadBuffer is called on buffer which has been created
  // with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS", and likewise for writes and maps.
  checkRead(writeOnly, CL_INVALID_OPERATION);
  checkRead(noAccess, CL_INVALID_OPERATION);
  checkRead(readOnly, CL_SUCCESS);
  checkWrite(readOnly, CL_INVALID_OPERATION);
  checkWrite(noAccess, CL_INVALID_OPERATION);
  checkWrite(writeOnly, CL_SUCCESS);
  ASSERT_CL_SUCCESS(clFinish(queue_));
}

TEST_F(BufferTest, DeviceSideCommandsIgnoreHostAccessFlags) {
  // Copies and fills run on the device: CL_MEM_HOST_NO_ACCESS does not forbid them.
  std::vector<int> data(16, 3);
  Mem source = bufferWith(data, CL_MEM_HOST_NO_ACCESS);
  Mem destination = createBuffer(CL_MEM_HOST_READ_ONLY, data.size() * sizeof(int));
  int pattern = 9;
  EXPECT_CL_SUCCESS(
      clEnqueueFillBuffer(queue_, source, &pattern, sizeof pattern, 0, 8, 0, nullptr, nullptr));
  EXPECT_CL_SUCCESS(clEnqueueCopyBuffer(queue_, source, destination, 0, 0,
                                        data.size() * sizeof(int), 0, nullptr, nullptr));
  std::vector<int> expected = data;
  expected[0] = expected[1] = 9;
  EXPECT_TRUE(equalArrays(expected, read<int>(destination, data.size())));
}

// ---------------------------------------------------------------------------------------------
// Copy

TEST_F(BufferTest, CopyAtSeveralOffsetsAndSizes) {
  const size_t total = 5000;
  std::vector<unsigned char> sourceData = sequence(total, 17);
  std::vector<unsigned char> destinationData(total, 0xC3);
  Mem source = bufferWith(sourceData);
  for (size_t size : {size_t{1}, size_t{7}, size_t{256}, size_t{4000}})
    for (auto [from, to] : {std::pair<size_t, size_t>{0, 0}, {3, 11}, {total - size, 0}}) {
      SCOPED_TRACE("size " + std::to_string(size) + " from " + std::to_string(from) + " to " +
                   std::to_string(to));
      Mem destination = bufferWith(destinationData);
      ASSERT_CL_SUCCESS(
          clEnqueueCopyBuffer(queue_, source, destination, from, to, size, 0, nullptr, nullptr));
      std::vector<unsigned char> expected = destinationData;
      std::copy_n(sourceData.begin() + from, size, expected.begin() + to);
      EXPECT_TRUE(equalArrays(expected, read<unsigned char>(destination, total)));
    }
}

TEST_F(BufferTest, CopyWithinOneBufferWithoutOverlap) {
  std::vector<unsigned char> data = sequence(1024);
  Mem buffer = bufferWith(data);
  Event copied;
  ASSERT_CL_SUCCESS(
      clEnqueueCopyBuffer(queue_, buffer, buffer, 0, 512, 512, 0, nullptr, copied.out()));
  std::vector<unsigned char> expected = data;
  std::copy_n(data.begin(), 512, expected.begin() + 512);
  EXPECT_TRUE(equalArrays(expected, read<unsigned char>(buffer, 1024)));
  EXPECT_EQ(cl_command_type{CL_COMMAND_COPY_BUFFER},
            eventInfo<cl_command_type>(copied, CL_EVENT_COMMAND_TYPE));
}

TEST_F(BufferTest, LargeWritesCopiesAndReadsMoveEveryByte) {
  // Several MiB at offsets and sizes that are not multiples of anything: the CPU device moves
  // such transfers in pieces on all its workers, and the pieces' edges must neither lose nor
  // repeat a byte.
  ASSERT_NO_FATAL_FAILURE(expectWriteCopyAndReadMoveEveryByte((5u << 20) + 4321, (4u << 20) + 777));
}

TEST_F(BufferTest, TransfersLargerThanTheCacheKeepEveryByte) {
  // Past the size of the device's cache, the CPU device's copies and fills write with
  // non-temporal stores, whose targets must be 16-byte aligned: odd offsets and sizes, and
  // every pattern size at an offset that is a multiple of it only, must still move every byte.
  cl_ulong cache = deviceInfo<cl_ulong>(device_, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
  if (cache == 0 || cache > (cl_ulong{256} << 20))
    GTEST_SKIP() << "a cache of " << cache << " bytes";
  const size_t size = static_cast<size_t>(cache) + (1u << 20) + 333;
  ASSERT_NO_FATAL_FAILURE(expectWriteCopyAndReadMoveEveryByte(size + 8192, size));

  Mem destination = bufferWith(std::vector<unsigned char>(size + 8192, 0xA5));
  // Largest first: each fill starts before the last one, after bytes no fill wrote.
  for (size_t patternSize = 128; patternSize >= 1; patternSize /= 2) {
    SCOPED_TRACE("pattern size " + std::to_string(patternSize));
    std::vector<unsigned char> pattern(patternSize);
    for (size_t i = 0; i < patternSize; ++i)
      pattern[i] = static_cast<unsigned char>(0x40 + patternSize + i * 7);
    size_t offset = patternSize * 3;
    size_t fillSize = patternSize * (size / patternSize);
    ASSERT_CL_SUCCESS(clEnqueueFillBuffer(queue_, destination, pattern.data(), patternSize, offset,
                                          fillSize, 0, nullptr, nullptr));
    // From the byte before the fill, which no transfer writes.
    std::vector<unsigned char> filled = read<unsigned char>(destination, fillSize + 1, offset - 1);
    ASSERT_EQ(filled.size(), fillSize + 1);
    EXPECT_EQ(filled.front(), 0xA5) << "the byte before the fill";
    bool same = true;
    for (size_t i = 0; i < fillSize && same; ++i)
      same = filled[1 + i] == pattern[i % patternSize];
    EXPECT_TRUE(same) << "the filled bytes";
  }
}

TEST_F(BufferTest, LargeCopyWithinOneBufferWithoutOverlap) {
  const size_t half = (3u << 20) + 5;
  std::vector<unsigned char> data = sequence(2 * half, 41);
  Mem buffer = bufferWith(data);
  ASSERT_CL_SUCCESS(
      clEnqueueCopyBuffer(queue_, buffer, buffer, half, 0, half, 0, nullptr, nullptr));
  std::vector<unsigned char> expected = data;
  std::copy_n(data.begin() + half, half, expected.begin());
  EXPECT_TRUE(equalArrays(expected, read<unsigned char>(buffer, 2 * half)));
}

TEST_F(BufferTest, OverlappingCopyIsMemCopyOverlap) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 1024);
  // "CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer or sub-buffer object
  // and the source and destination regions overlap".
  EXPECT_CL_ERROR(CL_MEM_COPY_OVERLAP,
                  clEnqueueCopyBuffer(queue_, buffer, buffer, 0, 100, 200, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_MEM_COPY_OVERLAP,
                  clEnqueueCopyBuffer(queue_, buffer, buffer, 100, 0, 101, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_MEM_COPY_OVERLAP,
                  clEnqueueCopyBuffer(queue_, buffer, buffer, 10, 10, 1, 0, nullptr, nullptr));
  // Adjacent regions do not overlap.
  EXPECT_CL_SUCCESS(clEnqueueCopyBuffer(queue_, buffer, buffer, 0, 100, 100, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
}

TEST_F(BufferTest, OverlappingSubBuffersOfOneParentAreMemCopyOverlap) {
  // "... or if src_buffer and dst_buffer are different sub-buffers of the same associated
  // buffer object and they overlap."
  Mem parent = createBuffer(CL_MEM_READ_WRITE, 4 * alignment_);
  Mem first = subBuffer(parent, 0, 0, 2 * alignment_);
  Mem second = subBuffer(parent, 0, alignment_, 2 * alignment_);
  // first[alignment_ .. 2*alignment_) is second[0 .. alignment_).
  EXPECT_CL_ERROR(CL_MEM_COPY_OVERLAP, clEnqueueCopyBuffer(queue_, first, second, alignment_, 0,
                                                           alignment_, 0, nullptr, nullptr));
  // Disjoint parts of the two sub-buffers may be copied.
  EXPECT_CL_SUCCESS(
      clEnqueueCopyBuffer(queue_, first, second, 0, alignment_, alignment_, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
}

TEST_F(BufferTest, CopyOutOfBoundsIsInvalidValue) {
  Mem source = createBuffer(CL_MEM_READ_WRITE, 64);
  Mem destination = createBuffer(CL_MEM_READ_WRITE, 32);
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueCopyBuffer(queue_, source, destination, 0, 0, 33, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueCopyBuffer(queue_, source, destination, 60, 0, 8, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueCopyBuffer(queue_, source, destination, 0, 30, 4, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clEnqueueCopyBuffer(queue_, source, nullptr, 0, 0, 4, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clEnqueueCopyBuffer(queue_, nullptr, destination, 0, 0, 4, 0, nullptr, nullptr));
}

// ---------------------------------------------------------------------------------------------
// Fill

TEST_F(BufferTest, FillWithEveryPatternSize) {
  const size_t total = 1024;
  for (size_t patternSize : {1, 2, 4, 8, 16, 32, 64, 128}) {
    SCOPED_TRACE("pattern size " + std::to_string(patternSize));
    std::vector<unsigned char> pattern = sequence(patternSize, 100);
    std::vector<unsigned char> initial(total, 0x11);
    Mem buffer = bufferWith(initial);
    size_t offset = patternSize * 2, size = patternSize * 5;
    Event filled;
    ASSERT_CL_SUCCESS(clEnqueueFillBuffer(queue_, buffer, pattern.data(), patternSize, offset, size,
                                          0, nullptr, filled.out()));
    std::vector<unsigned char> expected = initial;
    for (size_t index = 0; index < size; ++index)
      expected[offset + index] = pattern[index % patternSize];
    EXPECT_TRUE(equalArrays(expected, read<unsigned char>(buffer, total)));
    EXPECT_EQ(cl_command_type{CL_COMMAND_FILL_BUFFER},
              eventInfo<cl_command_type>(filled, CL_EVENT_COMMAND_TYPE));
  }
}

TEST_F(BufferTest, LargeFillsBetweenKernelsKeepEveryByteOfThePattern) {
  // Regions of several MiB that are not multiples of 128 bytes, at offsets that are multiples
  // of the pattern only, between kernels that change every byte: a GPU fills them itself, with
  // memsets for patterns of up to 4 bytes and a kernel for longer ones. Some patterns repeat
  // their halves, so that a shorter period fills them.
  const size_t total = (6u << 20) + 640;
  Kernel scramble = buildKernel(R"(
    kernel void scramble(global uchar *bytes) {
      size_t i = get_global_id(0);
      bytes[i] = (uchar)(bytes[i] * 5u + (uint)(i >> 7));
    })",
                                "scramble");
  ASSERT_TRUE(scramble);
  std::vector<unsigned char> expected = sequence(total, 3);
  Mem buffer = bufferWith(expected);
  ASSERT_CL_SUCCESS(setArg(scramble, 0, buffer));
  auto scrambleAll = [&] {
    for (size_t i = 0; i < total; ++i)
      expected[i] = static_cast<unsigned char>(expected[i] * 5u + static_cast<unsigned>(i >> 7));
    return run(scramble, 1, &total);
  };
  struct Case {
    size_t patternSize;
    size_t period; // the pattern repeats its first `period` bytes
  };
  for (Case fill : {Case{1, 1}, Case{2, 2}, Case{4, 4}, Case{8, 8}, Case{16, 16}, Case{32, 32},
                    Case{64, 64}, Case{128, 128}, Case{16, 8}, Case{128, 4}, Case{64, 1}}) {
    SCOPED_TRACE("pattern size " + std::to_string(fill.patternSize) + ", period " +
                 std::to_string(fill.period));
    std::vector<unsigned char> pattern(fill.patternSize);
    for (size_t i = 0; i < fill.patternSize; ++i)
      pattern[i] = static_cast<unsigned char>(0x80 + fill.patternSize + i % fill.period * 3);
    size_t offset = fill.patternSize * 3;
    size_t size = fill.patternSize * (((5u << 20) + 200) / fill.patternSize);
    ASSERT_TRUE(scrambleAll());
    ASSERT_CL_SUCCESS(clEnqueueFillBuffer(queue_, buffer, pattern.data(), fill.patternSize, offset,
                                          size, 0, nullptr, nullptr));
    for (size_t i = 0; i < size; ++i)
      expected[offset + i] = pattern[i % fill.patternSize];
    ASSERT_TRUE(scrambleAll());
    ASSERT_TRUE(equalArrays(expected, read<unsigned char>(buffer, total)));
  }
}

TEST_F(BufferTest, FillPatternMemoryMayBeReusedAtOnce) {
  // "The memory associated with pattern can be reused or freed after the function returns."
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 256);
  Gate gate(context_);
  int pattern = 0x01020304;
  ASSERT_CL_SUCCESS(clEnqueueFillBuffer(queue_, buffer, &pattern, sizeof pattern, 0, 256, 1,
                                        gate.list(), nullptr));
  pattern = -1;
  ASSERT_CL_SUCCESS(gate.open());
  EXPECT_TRUE(equalArrays(std::vector<int>(64, 0x01020304), read<int>(buffer, 64)));
}

TEST_F(BufferTest, FillErrors) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 256);
  unsigned char pattern[256] = {};
  // "CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if pattern_size is not one
  // of {1, 2, 4, 8, 16, 32, 64, 128}."
  for (size_t size : {0, 3, 6, 12, 256})
    EXPECT_CL_ERROR(CL_INVALID_VALUE,
                    clEnqueueFillBuffer(queue_, buffer, pattern, size, 0, 96, 0, nullptr, nullptr))
        << "pattern size " << size;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueFillBuffer(queue_, buffer, nullptr, 4, 0, 16, 0, nullptr, nullptr));
  // "CL_INVALID_VALUE if offset and size are not a multiple of pattern_size."
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueFillBuffer(queue_, buffer, pattern, 4, 2, 16, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueFillBuffer(queue_, buffer, pattern, 4, 0, 18, 0, nullptr, nullptr));
  // "CL_INVALID_VALUE if offset or offset + size require accessing elements outside the buffer".
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueFillBuffer(queue_, buffer, pattern, 4, 0, 260, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueFillBuffer(queue_, buffer, pattern, 4, 256, 4, 0, nullptr, nullptr));
}

// ---------------------------------------------------------------------------------------------
// Rectangles

namespace {

struct Rect {
  std::array<size_t, 3> origin;
  size_t rowPitch, slicePitch; // 0: the default
};

/// The host reference of every *Rect command: copies `region` between two byte arrays.
void referenceCopyRect(std::vector<unsigned char> &destination, Rect dst,
                       const std::vector<unsigned char> &source, Rect src,
                       std::array<size_t, 3> region) {
  auto pitches = [&](Rect &rect) {
    if (rect.rowPitch == 0)
      rect.rowPitch = region[0];
    if (rect.slicePitch == 0)
      rect.slicePitch = region[1] * rect.rowPitch;
  };
  pitches(dst);
  pitches(src);
  for (size_t z = 0; z < region[2]; ++z)
    for (size_t y = 0; y < region[1]; ++y)
      for (size_t x = 0; x < region[0]; ++x)
        destination[(dst.origin[2] + z) * dst.slicePitch + (dst.origin[1] + y) * dst.rowPitch +
                    dst.origin[0] + x] =
            source[(src.origin[2] + z) * src.slicePitch + (src.origin[1] + y) * src.rowPitch +
                   src.origin[0] + x];
}

struct RectCase {
  std::array<size_t, 3> region;
  Rect buffer, host;
};

std::vector<RectCase> rectCases() {
  return {
      // 1-D, default pitches.
      {{64, 1, 1}, {{0, 0, 0}, 0, 0}, {{0, 0, 0}, 0, 0}},
      // 2-D with origins and explicit pitches.
      {{5, 3, 1}, {{2, 1, 0}, 16, 0}, {{1, 2, 0}, 9, 0}},
      {{16, 16, 1}, {{0, 0, 0}, 16, 256}, {{3, 0, 0}, 20, 0}},
      // 3-D with origins in every dimension.
      {{4, 3, 2}, {{1, 1, 1}, 8, 32}, {{2, 0, 1}, 7, 28}},
      {{7, 5, 3}, {{3, 2, 1}, 13, 91}, {{0, 1, 2}, 11, 66}},
  };
}

size_t extent(const Rect &rect, const std::array<size_t, 3> &region) {
  size_t row = rect.rowPitch != 0 ? rect.rowPitch : region[0];
  size_t slice = rect.slicePitch != 0 ? rect.slicePitch : region[1] * row;
  return (rect.origin[2] + region[2]) * slice + (rect.origin[1] + region[1]) * row +
         rect.origin[0] + region[0];
}

} // namespace

TEST_F(BufferTest, WriteAndReadRectMatchTheHostReference) {
  for (const RectCase &c : rectCases()) {
    SCOPED_TRACE("region " + std::to_string(c.region[0]) + "x" + std::to_string(c.region[1]) + "x" +
                 std::to_string(c.region[2]));
    size_t bufferSize = extent(c.buffer, c.region), hostSize = extent(c.host, c.region);
    std::vector<unsigned char> initial(bufferSize, 0xA5);
    Mem buffer = bufferWith(initial);
    std::vector<unsigned char> hostData = sequence(hostSize, 3);

    ASSERT_CL_SUCCESS(clEnqueueWriteBufferRect(
        queue_, buffer, CL_TRUE, c.buffer.origin.data(), c.host.origin.data(), c.region.data(),
        c.buffer.rowPitch, c.buffer.slicePitch, c.host.rowPitch, c.host.slicePitch, hostData.data(),
        0, nullptr, nullptr));
    std::vector<unsigned char> expected = initial;
    referenceCopyRect(expected, c.buffer, hostData, c.host, c.region);
    EXPECT_TRUE(equalArrays(expected, read<unsigned char>(buffer, bufferSize)));

    std::vector<unsigned char> readBack(hostSize, 0x3C);
    Event event;
    ASSERT_CL_SUCCESS(clEnqueueReadBufferRect(
        queue_, buffer, CL_TRUE, c.buffer.origin.data(), c.host.origin.data(), c.region.data(),
        c.buffer.rowPitch, c.buffer.slicePitch, c.host.rowPitch, c.host.slicePitch, readBack.data(),
        0, nullptr, event.out()));
    std::vector<unsigned char> expectedHost(hostSize, 0x3C);
    referenceCopyRect(expectedHost, c.host, expected, c.buffer, c.region);
    EXPECT_TRUE(equalArrays(expectedHost, readBack));
    EXPECT_EQ(cl_command_type{CL_COMMAND_READ_BUFFER_RECT},
              eventInfo<cl_command_type>(event, CL_EVENT_COMMAND_TYPE));
  }
}

TEST_F(BufferTest, CopyRectMatchesTheHostReference) {
  for (const RectCase &c : rectCases()) {
    size_t sourceSize = extent(c.host, c.region), destinationSize = extent(c.buffer, c.region);
    std::vector<unsigned char> sourceData = sequence(sourceSize, 9);
    std::vector<unsigned char> destinationData(destinationSize, 0x77);
    Mem source = bufferWith(sourceData);
    Mem destination = bufferWith(destinationData);
    Event event;
    ASSERT_CL_SUCCESS(clEnqueueCopyBufferRect(queue_, source, destination, c.host.origin.data(),
                                              c.buffer.origin.data(), c.region.data(),
                                              c.host.rowPitch, c.host.slicePitch, c.buffer.rowPitch,
                                              c.buffer.slicePitch, 0, nullptr, event.out()));
    referenceCopyRect(destinationData, c.buffer, sourceData, c.host, c.region);
    EXPECT_TRUE(equalArrays(destinationData, read<unsigned char>(destination, destinationSize)));
    EXPECT_EQ(cl_command_type{CL_COMMAND_COPY_BUFFER_RECT},
              eventInfo<cl_command_type>(event, CL_EVENT_COMMAND_TYPE));
  }
}

TEST_F(BufferTest, CopyRectWithinOneBufferWithoutOverlap) {
  // Two 4x4 blocks side by side in a 16-byte-wide image: copy the left one onto the right one.
  std::vector<unsigned char> data = sequence(16 * 8);
  Mem buffer = bufferWith(data);
  size_t from[3] = {0, 2, 0}, to[3] = {8, 2, 0}, region[3] = {4, 4, 1};
  ASSERT_CL_SUCCESS(clEnqueueCopyBufferRect(queue_, buffer, buffer, from, to, region, 16, 0, 16, 0,
                                            0, nullptr, nullptr));
  std::vector<unsigned char> expected = data;
  referenceCopyRect(expected, {{8, 2, 0}, 16, 0}, data, {{0, 2, 0}, 16, 0}, {4, 4, 1});
  EXPECT_TRUE(equalArrays(expected, read<unsigned char>(buffer, data.size())));
}

TEST_F(BufferTest, OverlappingCopyRectIsMemCopyOverlap) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 16 * 16);
  size_t from[3] = {0, 0, 0}, to[3] = {2, 2, 0}, region[3] = {4, 4, 1};
  EXPECT_CL_ERROR(CL_MEM_COPY_OVERLAP,
                  clEnqueueCopyBufferRect(queue_, buffer, buffer, from, to, region, 16, 0, 16, 0, 0,
                                          nullptr, nullptr));
  // Interleaved rows that never share a byte: rows 0-3 of a 4-byte-wide region at x = 0 and
  // x = 4 with a 16-byte pitch do not overlap.
  size_t besides[3] = {4, 0, 0};
  EXPECT_CL_SUCCESS(clEnqueueCopyBufferRect(queue_, buffer, buffer, from, besides, region, 16, 0,
                                            16, 0, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
}

TEST_F(BufferTest, OverlappingCopyRectBetweenSubBuffersIsMemCopyOverlap) {
  SKIP_ON_POCL("crashes in this clEnqueueCopyBufferRect");
  // The specification's overlap rule covers different sub-buffers of one buffer too.
  Mem parent = createBuffer(CL_MEM_READ_WRITE, 4 * alignment_);
  Mem first = subBuffer(parent, 0, 0, 2 * alignment_);
  Mem second = subBuffer(parent, 0, alignment_, 2 * alignment_);
  size_t from[3] = {alignment_, 0, 0}, to[3] = {0, 0, 0}, region[3] = {alignment_, 1, 1};
  EXPECT_CL_ERROR(CL_MEM_COPY_OVERLAP,
                  clEnqueueCopyBufferRect(queue_, first, second, from, to, region, 0, 0, 0, 0, 0,
                                          nullptr, nullptr));
}

TEST_F(BufferTest, RectErrors) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 256);
  unsigned char host[512] = {};
  size_t zero[3] = {0, 0, 0};
  auto readRect = [&](const size_t *bufferOrigin, const size_t *region, size_t rowPitch,
                      size_t slicePitch, size_t hostRowPitch = 0, size_t hostSlicePitch = 0) {
    return clEnqueueReadBufferRect(queue_, buffer, CL_TRUE, bufferOrigin, zero, region, rowPitch,
                                   slicePitch, hostRowPitch, hostSlicePitch, host, 0, nullptr,
                                   nullptr);
  };
  size_t region[3] = {8, 4, 2};
  EXPECT_CL_SUCCESS(readRect(zero, region, 16, 64));
  // "CL_INVALID_VALUE if any region array element is 0."
  for (int dim = 0; dim < 3; ++dim) {
    size_t empty[3] = {8, 4, 2};
    empty[dim] = 0;
    EXPECT_CL_ERROR(CL_INVALID_VALUE, readRect(zero, empty, 16, 64)) << "dimension " << dim;
  }
  // "CL_INVALID_VALUE if buffer_row_pitch is not 0 and is less than region[0]."
  EXPECT_CL_ERROR(CL_INVALID_VALUE, readRect(zero, region, 7, 0));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, readRect(zero, region, 0, 0, 7, 0));
  // "CL_INVALID_VALUE if buffer_slice_pitch is not 0 and is less than region[1] *
  // buffer_row_pitch and not a multiple of buffer_row_pitch."
  EXPECT_CL_ERROR(CL_INVALID_VALUE, readRect(zero, region, 16, 17));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, readRect(zero, region, 0, 0, 16, 17));
  // Out of bounds: the last byte lies past the end of the buffer.
  size_t late[3] = {9, 0, 1};
  EXPECT_CL_ERROR(CL_INVALID_VALUE, readRect(late, region, 16, 128));
  size_t big[3] = {16, 8, 3};
  EXPECT_CL_ERROR(CL_INVALID_VALUE, readRect(zero, big, 16, 128));
  // NULL origins, region or pointer.
  EXPECT_CL_ERROR(CL_INVALID_VALUE, readRect(nullptr, region, 16, 64));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, readRect(zero, nullptr, 16, 64));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueReadBufferRect(queue_, buffer, CL_TRUE, zero, zero, region, 16, 64, 0, 0,
                                          nullptr, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueWriteBufferRect(queue_, buffer, CL_TRUE, zero, zero, region, 16, 64, 0,
                                           0, nullptr, 0, nullptr, nullptr));
  Mem other = createBuffer(CL_MEM_READ_WRITE, 256);
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueCopyBufferRect(queue_, buffer, other, zero, late, region, 16, 128, 16,
                                          128, 0, nullptr, nullptr));
}

TEST_F(BufferTest, CopyRectWithinOneBufferNeedsEqualPitches) {
  // "CL_INVALID_VALUE if src_buffer and dst_buffer are the same buffer object and src_slice_pitch
  // is not equal to dst_slice_pitch and src_row_pitch is not equal to dst_row_pitch."
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 4096);
  size_t from[3] = {0, 0, 0}, to[3] = {0, 0, 4}, region[3] = {4, 4, 2};
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueCopyBufferRect(queue_, buffer, buffer, from, to, region, 16, 64, 32, 128,
                                          0, nullptr, nullptr));
}

// ---------------------------------------------------------------------------------------------
// Map and unmap

TEST_F(BufferTest, BlockingMapForReadingShowsTheContents) {
  std::vector<int> data(256);
  std::iota(data.begin(), data.end(), -50);
  Mem buffer = bufferWith(data);
  cl_int error = CL_SUCCESS;
  Event event;
  auto *mapped =
      static_cast<int *>(clEnqueueMapBuffer(queue_, buffer, CL_TRUE, CL_MAP_READ, 16 * sizeof(int),
                                            64 * sizeof(int), 0, nullptr, event.out(), &error));
  ASSERT_CL_SUCCESS(error);
  ASSERT_NE(nullptr, mapped);
  EXPECT_TRUE(equalArrays(std::vector<int>(data.begin() + 16, data.begin() + 80),
                          std::vector<int>(mapped, mapped + 64)));
  EXPECT_EQ(cl_command_type{CL_COMMAND_MAP_BUFFER},
            eventInfo<cl_command_type>(event, CL_EVENT_COMMAND_TYPE));
  EXPECT_EQ(CL_COMPLETE, eventStatus(event)) << "a blocking map returns once it completed";
  Event unmapped;
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, buffer, mapped, 0, nullptr, unmapped.out()));
  ASSERT_CL_SUCCESS(clWaitForEvents(1, unmapped.ptr()));
  EXPECT_EQ(cl_command_type{CL_COMMAND_UNMAP_MEM_OBJECT},
            eventInfo<cl_command_type>(unmapped, CL_EVENT_COMMAND_TYPE));
}

TEST_F(BufferTest, WritesThroughAMappingAreVisibleAfterUnmap) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 1024 * sizeof(int));
  cl_int error = CL_SUCCESS;
  auto *mapped =
      static_cast<int *>(clEnqueueMapBuffer(queue_, buffer, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION,
                                            0, 1024 * sizeof(int), 0, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  std::vector<int> data(1024);
  std::iota(data.begin(), data.end(), 3);
  std::copy(data.begin(), data.end(), mapped);
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, buffer, mapped, 0, nullptr, nullptr));
  EXPECT_TRUE(equalArrays(data, read<int>(buffer, 1024)));
}

// Large maps between kernels, over several 2 MiB pages and ending in the middle of pages (where
// a GPU's memory moves between it and the host): the bytes beside the mapped region keep their
// contents whatever the map's flags, and kernels see what the host wrote.
TEST_F(BufferTest, LargeMapsBetweenKernelsKeepTheBytesBesideTheRegion) {
  const size_t count = (9u << 20) / sizeof(cl_uint); // 9 MiB: several 2 MiB pages
  const size_t first = 1001, mappedCount = (5u << 20) / sizeof(cl_uint) + 17;
  Kernel update = buildKernel(R"(
    kernel void update(global uint *data) {
      size_t i = get_global_id(0);
      data[i] = data[i] * 3u + (uint)i;
    })",
                              "update");
  ASSERT_TRUE(update);
  std::vector<cl_uint> expected(count);
  for (size_t i = 0; i < count; ++i)
    expected[i] = static_cast<cl_uint>(i * 2654435761u);
  Mem buffer = bufferWith(expected);
  ASSERT_CL_SUCCESS(setArg(update, 0, buffer));
  auto updateAll = [&] {
    for (size_t i = 0; i < count; ++i)
      expected[i] = expected[i] * 3u + static_cast<cl_uint>(i);
    return run(update, 1, &count);
  };
  ASSERT_TRUE(updateAll());
  for (cl_map_flags flags : {cl_map_flags{CL_MAP_WRITE_INVALIDATE_REGION},
                             cl_map_flags{CL_MAP_WRITE}, cl_map_flags{CL_MAP_READ}}) {
    cl_int error = CL_SUCCESS;
    auto *mapped = static_cast<cl_uint *>(
        clEnqueueMapBuffer(queue_, buffer, CL_TRUE, flags, first * sizeof(cl_uint),
                           mappedCount * sizeof(cl_uint), 0, nullptr, nullptr, &error));
    ASSERT_CL_SUCCESS(error);
    if (flags == CL_MAP_READ) {
      EXPECT_TRUE(equalArrays(
          std::vector<cl_uint>(expected.begin() + first, expected.begin() + first + mappedCount),
          std::vector<cl_uint>(mapped, mapped + mappedCount)));
    } else {
      for (size_t i = 0; i < mappedCount; ++i)
        expected[first + i] = mapped[i] = static_cast<cl_uint>(flags * 7919u + i);
    }
    ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, buffer, mapped, 0, nullptr, nullptr));
    ASSERT_TRUE(updateAll());
    EXPECT_TRUE(equalArrays(expected, read<cl_uint>(buffer, count))) << "map flags " << flags;
  }
}

TEST_F(BufferTest, MigrationsKeepTheContents) {
  const size_t count = (5u << 20) / sizeof(cl_uint);
  Kernel increment = buildKernel(R"(
    kernel void increment(global uint *data) { data[get_global_id(0)] += 1u; })",
                                 "increment");
  ASSERT_TRUE(increment);
  std::vector<cl_uint> expected(count);
  std::iota(expected.begin(), expected.end(), 5u);
  Mem buffer = bufferWith(expected);
  cl_mem objects[] = {buffer};
  ASSERT_CL_SUCCESS(setArg(increment, 0, buffer));
  for (cl_mem_migration_flags flags :
       {cl_mem_migration_flags{0}, cl_mem_migration_flags{CL_MIGRATE_MEM_OBJECT_HOST}}) {
    ASSERT_CL_SUCCESS(clEnqueueMigrateMemObjects(queue_, 1, objects, flags, 0, nullptr, nullptr));
    ASSERT_TRUE(run(increment, 1, &count));
    for (cl_uint &value : expected)
      ++value;
    EXPECT_TRUE(equalArrays(expected, read<cl_uint>(buffer, count))) << "flags " << flags;
  }
  // Contents the application does not need, then written whole.
  ASSERT_CL_SUCCESS(clEnqueueMigrateMemObjects(
      queue_, 1, objects, CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0,
      nullptr, nullptr));
  std::vector<cl_uint> rewritten(count, 77u);
  ASSERT_CL_SUCCESS(clEnqueueWriteBuffer(queue_, buffer, CL_TRUE, 0, count * sizeof(cl_uint),
                                         rewritten.data(), 0, nullptr, nullptr));
  ASSERT_TRUE(run(increment, 1, &count));
  EXPECT_TRUE(equalArrays(std::vector<cl_uint>(count, 78u), read<cl_uint>(buffer, count)));
}

TEST_F(BufferTest, NonBlockingMapIsUsableAfterItsEventCompletes) {
  std::vector<int> data(128, 11);
  Mem buffer = bufferWith(data);
  Gate gate(context_);
  cl_int error = CL_SUCCESS;
  Event event;
  auto *mapped = static_cast<int *>(
      clEnqueueMapBuffer(queue_, buffer, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, 0, 128 * sizeof(int),
                         1, gate.list(), event.out(), &error));
  ASSERT_CL_SUCCESS(error);
  ASSERT_NE(nullptr, mapped) << "the pointer is returned at once, usable once the map completes";
  EXPECT_NE(CL_COMPLETE, eventStatus(event));
  ASSERT_CL_SUCCESS(gate.open());
  ASSERT_CL_SUCCESS(clWaitForEvents(1, event.ptr()));
  EXPECT_TRUE(equalArrays(data, std::vector<int>(mapped, mapped + 128)));
  mapped[5] = 99;
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, buffer, mapped, 0, nullptr, nullptr));
  data[5] = 99;
  EXPECT_TRUE(equalArrays(data, read<int>(buffer, 128)));
}

TEST_F(BufferTest, UseHostPtrMapReturnsHostPtrPlusOffset) {
  // "If the buffer object is created with CL_MEM_USE_HOST_PTR set in mem_flags, ... the pointer
  // value returned by clEnqueueMapBuffer will be derived from the host_ptr specified when the
  // buffer object is created" - host_ptr + offset.
  alignas(128) unsigned char host[1024];
  std::vector<unsigned char> data = sequence(sizeof host);
  std::copy(data.begin(), data.end(), host);
  Mem buffer = createBuffer(CL_MEM_USE_HOST_PTR, sizeof host, host);
  for (size_t offset : {size_t{0}, size_t{1}, size_t{100}, size_t{1000}}) {
    cl_int error = CL_SUCCESS;
    void *mapped = clEnqueueMapBuffer(queue_, buffer, CL_TRUE, CL_MAP_READ, offset,
                                      sizeof host - offset, 0, nullptr, nullptr, &error);
    ASSERT_CL_SUCCESS(error);
    EXPECT_EQ(host + offset, mapped) << "offset " << offset;
    ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, buffer, mapped, 0, nullptr, nullptr));
  }
  // A sub-buffer of such a buffer maps to host_ptr + origin + offset.
  Mem sub = subBuffer(buffer, 0, alignment_, alignment_);
  cl_int error = CL_SUCCESS;
  void *mapped =
      clEnqueueMapBuffer(queue_, sub, CL_TRUE, CL_MAP_READ, 4, 8, 0, nullptr, nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(host + alignment_ + 4, mapped);
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, sub, mapped, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
}

TEST_F(BufferTest, MapCountFollowsMapsAndUnmaps) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 256);
  cl_int error = CL_SUCCESS;
  void *first =
      clEnqueueMapBuffer(queue_, buffer, CL_TRUE, CL_MAP_READ, 0, 64, 0, nullptr, nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  // The same region may be mapped more than once.
  void *second =
      clEnqueueMapBuffer(queue_, buffer, CL_TRUE, CL_MAP_READ, 0, 64, 0, nullptr, nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(2u, memInfo<cl_uint>(buffer, CL_MEM_MAP_COUNT));
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, buffer, first, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
  EXPECT_EQ(1u, memInfo<cl_uint>(buffer, CL_MEM_MAP_COUNT));
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, buffer, second, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
  EXPECT_EQ(0u, memInfo<cl_uint>(buffer, CL_MEM_MAP_COUNT));
}

TEST_F(BufferTest, MapErrors) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 256);
  cl_int error = CL_SUCCESS;
  auto map = [&](cl_map_flags flags, size_t offset, size_t size) {
    void *mapped = clEnqueueMapBuffer(queue_, buffer, CL_TRUE, flags, offset, size, 0, nullptr,
                                      nullptr, &error);
    EXPECT_EQ(nullptr, mapped);
    if (mapped != nullptr)
      clEnqueueUnmapMemObject(queue_, buffer, mapped, 0, nullptr, nullptr);
    return error;
  };
  // "CL_INVALID_VALUE if region being mapped given by (offset, size) is out of bounds or if size
  // is 0 or if values specified in map_flags are not valid."
  EXPECT_CL_ERROR(CL_INVALID_VALUE, map(CL_MAP_READ, 0, 0));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, map(CL_MAP_READ, 0, 257));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, map(CL_MAP_READ, 250, 8));
  // CL_MAP_WRITE_INVALIDATE_REGION is mutually exclusive with CL_MAP_READ and CL_MAP_WRITE (the
  // map flags table). PoCL 3.1 accepts the combinations.
  EXPECT_CL_ERROR(CL_INVALID_VALUE, map(CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_READ, 0, 8));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, map(CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_WRITE, 0, 8));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, map(cl_map_flags{1} << 10, 0, 8));
  EXPECT_EQ(nullptr, clEnqueueMapBuffer(queue_, nullptr, CL_TRUE, CL_MAP_READ, 0, 8, 0, nullptr,
                                        nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, error);
  EXPECT_EQ(0u, memInfo<cl_uint>(buffer, CL_MEM_MAP_COUNT));
}

TEST_F(BufferTest, UnmapOfAPointerNotMappedIsInvalidValue) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 256);
  Mem other = createBuffer(CL_MEM_READ_WRITE, 256);
  int local = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueUnmapMemObject(queue_, buffer, &local, 0, nullptr, nullptr));
  cl_int error = CL_SUCCESS;
  void *mapped =
      clEnqueueMapBuffer(queue_, other, CL_TRUE, CL_MAP_READ, 0, 64, 0, nullptr, nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  // "CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned by clEnqueueMapBuffer ...
  // for memobj."
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueUnmapMemObject(queue_, buffer, mapped, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, other, mapped, 0, nullptr, nullptr));
  // Unmapping twice: the second time the pointer is no longer mapped.
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueUnmapMemObject(queue_, other, mapped, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
}

// ---------------------------------------------------------------------------------------------
// Migration, images, pipes and SVM when unsupported

TEST_F(BufferTest, MigrateMemObjects) {
  Mem first = createBuffer(CL_MEM_READ_WRITE, 256);
  Mem second = createBuffer(CL_MEM_READ_WRITE, 256);
  cl_mem objects[] = {first, second};
  Event event;
  EXPECT_CL_SUCCESS(clEnqueueMigrateMemObjects(queue_, 2, objects, 0, 0, nullptr, event.out()));
  EXPECT_CL_SUCCESS(clEnqueueMigrateMemObjects(queue_, 1, objects, CL_MIGRATE_MEM_OBJECT_HOST, 0,
                                               nullptr, nullptr));
  EXPECT_CL_SUCCESS(clEnqueueMigrateMemObjects(
      queue_, 1, objects, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
  EXPECT_EQ(cl_command_type{CL_COMMAND_MIGRATE_MEM_OBJECTS},
            eventInfo<cl_command_type>(event, CL_EVENT_COMMAND_TYPE));
  // "CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is NULL or if flags is not 0
  // or is not any of the values described in the table".
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueMigrateMemObjects(queue_, 0, objects, 0, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueMigrateMemObjects(queue_, 1, nullptr, 0, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueMigrateMemObjects(queue_, 1, objects, 1 << 10, 0, nullptr, nullptr));
  cl_mem withNull[] = {first, nullptr};
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clEnqueueMigrateMemObjects(queue_, 2, withNull, 0, 0, nullptr, nullptr));
}

TEST_F(BufferTest, ImagesAreInvalidOperationWithoutImageSupport) {
  if (deviceInfo<cl_bool>(device_, CL_DEVICE_IMAGE_SUPPORT))
    GTEST_SKIP() << "the device supports images";
  // "CL_INVALID_OPERATION if there are no devices in context that support images".
  cl_image_format format{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = 16;
  desc.image_height = 16;
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateImage(context_, CL_MEM_READ_WRITE, &format, &desc, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, error);
  EXPECT_EQ(nullptr, clCreateImageWithProperties(context_, nullptr, CL_MEM_READ_WRITE, &format,
                                                 &desc, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, error);
  // "CL_INVALID_OPERATION if images are not supported by any device associated with context".
  EXPECT_EQ(nullptr,
            clCreateSampler(context_, CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST, &error));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, error);
  cl_uint formats = 99;
  EXPECT_CL_SUCCESS(clGetSupportedImageFormats(context_, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D,
                                               0, nullptr, &formats));
  EXPECT_EQ(0u, formats);
}

TEST_F(BufferTest, PipesAreInvalidOperationWithoutPipeSupport) {
  if (deviceInfo<cl_bool>(device_, CL_DEVICE_PIPE_SUPPORT))
    GTEST_SKIP() << "the device supports pipes";
  // "CL_INVALID_OPERATION if no devices in context support pipes".
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreatePipe(context_, CL_MEM_READ_WRITE, 4, 16, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, error);
}

TEST_F(BufferTest, SvmAllocIsNullWithoutSvmSupport) {
  if (deviceInfo<cl_device_svm_capabilities>(device_, CL_DEVICE_SVM_CAPABILITIES) != 0)
    GTEST_SKIP() << "the device supports SVM";
  // "If clSVMAlloc is called ... and no devices in context support SVM, NULL is returned".
  EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_READ_WRITE, 1024, 0));
}

TEST_F(BufferTest, UnmapTakesAPointerAdvancedThroughItsOnlyMapping) {
  // Programs written for runtimes that allowed it (the AMD APP SDK's samples) walk the mapped
  // pointer through the bytes and unmap with where it ended.
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(int));
  cl_int error = CL_SUCCESS;
  auto *mapped = static_cast<int *>(clEnqueueMapBuffer(
      queue_, buffer, CL_TRUE, CL_MAP_WRITE, 0, 64 * sizeof(int), 0, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  for (int i = 0; i < 64; ++i)
    *mapped++ = 3 * i;
  EXPECT_CL_SUCCESS(clEnqueueUnmapMemObject(queue_, buffer, mapped, 0, nullptr, nullptr));
  EXPECT_EQ(memInfo<cl_uint>(buffer, CL_MEM_MAP_COUNT), 0u);
  std::vector<int> expected(64);
  for (int i = 0; i < 64; ++i)
    expected[i] = 3 * i;
  EXPECT_TRUE(equalArrays(expected, read<int>(buffer, 64)));
  // A pointer no mapping holds is still refused.
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueUnmapMemObject(queue_, buffer, mapped, 0, nullptr, nullptr));
}
