// cl_khr_command_buffer_mutable_dispatch (version 0.9.5) on the device under test: kernel commands
// of a mutable command buffer whose arguments (buffers, scalars, SVM pointers), global offset and
// global and local sizes change between replays; several commands updated in one call; a failed
// update that changes nothing; a replay enqueued before an update that keeps the commands it was
// enqueued with; arguments left for updates to set; clGetMutableCommandInfoKHR; and the errors of
// clUpdateMutableCommandsKHR. Every replay's result is checked against the host.
//
// Debian's OpenCL headers declare an older version of the extension (an update takes one
// cl_mutable_base_config_khr, and cl_mutable_dispatch_config_khr starts with `type` and `next`):
// this file declares the 0.9.5 function signatures, structs and the constants that changed.
#include "command_buffer_fixture.hpp"

#include <initializer_list>
#include <memory>

using namespace cltest;
using namespace cbtest;

namespace {

// ---------------------------------------------------------------------------------------------
// Version 0.9.5 of the extension

/// cl_mutable_dispatch_arg_khr: an argument as clSetKernelArg (or clSetKernelArgSVMPointer,
/// which ignores the size) takes it.
struct DispatchArg {
  cl_uint arg_index;
  size_t arg_size;
  const void *arg_value;
};

/// cl_mutable_dispatch_exec_info_khr: an execution information as clSetKernelExecInfo takes it.
struct DispatchExecInfo {
  cl_uint param_name;
  size_t param_value_size;
  const void *param_value;
};

/// cl_mutable_dispatch_config_khr of version 0.9.5: no `type` and `next` members. Null pointers
/// and zero counts leave the command's arguments and sizes as they are; work_dim 0 keeps it.
struct DispatchConfig {
  cl_mutable_command_khr command = nullptr;
  cl_uint num_args = 0;
  cl_uint num_svm_args = 0;
  cl_uint num_exec_infos = 0;
  cl_uint work_dim = 0;
  const DispatchArg *arg_list = nullptr;
  const DispatchArg *arg_svm_list = nullptr;
  const DispatchExecInfo *exec_info_list = nullptr;
  const size_t *global_work_offset = nullptr;
  const size_t *global_work_size = nullptr;
  const size_t *local_work_size = nullptr;
};

/// CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR, the one cl_command_buffer_update_type_khr of
/// 0.9.5 (Debian's header gives it 1, its value in the older version).
constexpr cl_uint kDispatchConfigType = 0;
/// CL_COMMAND_BUFFER_STATE_FINALIZED_KHR: finalized, with arguments still to be set.
constexpr cl_command_buffer_state_khr kStateFinalized = 2;
/// CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR (Debian's header calls it
/// CL_MUTABLE_DISPATCH_PROPERTIES_ARRAY_KHR).
constexpr cl_uint kCommandPropertiesArray = 0x12A2;
/// The fields of cl_mutable_dispatch_fields_khr.
constexpr cl_mutable_dispatch_fields_khr kOffsetField = 1 << 0, kGlobalSizeField = 1 << 1,
                                         kLocalSizeField = 1 << 2, kArgumentsField = 1 << 3,
                                         kExecInfoField = 1 << 4;
constexpr cl_mutable_dispatch_fields_khr kAllFields =
    kOffsetField | kGlobalSizeField | kLocalSizeField | kArgumentsField | kExecInfoField;
// The names whose values did not change since the older version come from the system's header.
static_assert(CL_COMMAND_BUFFER_MUTABLE_KHR == (1 << 1));
static_assert(CL_INVALID_MUTABLE_COMMAND_KHR == -1141);
static_assert(CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR == 0x12B0);
static_assert(CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR == 0x12B1);
static_assert(CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR == 0x12A0);
static_assert(CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR == 0x12A1);
static_assert(CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR == 0x12AD);
static_assert(CL_MUTABLE_DISPATCH_KERNEL_KHR == 0x12A3);
static_assert(CL_MUTABLE_DISPATCH_DIMENSIONS_KHR == 0x12A4);
static_assert(CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR == 0x12A5);
static_assert(CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR == 0x12A6);
static_assert(CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR == 0x12A7);

using UpdateMutableCommandsFn = cl_int(CL_API_CALL *)(cl_command_buffer_khr, cl_uint,
                                                      const cl_uint *, const void **);
using GetMutableCommandInfoFn = cl_int(CL_API_CALL *)(cl_mutable_command_khr, cl_uint, size_t,
                                                      void *, size_t *);

struct MutableDispatchFunctions {
  UpdateMutableCommandsFn update = nullptr;
  GetMutableCommandInfoFn info = nullptr;
};
MutableDispatchFunctions mutableKhr;

/// An argument of an update, pointing at `value` (which must outlive the update call).
template <typename T> DispatchArg argument(cl_uint index, const T &value) {
  static_assert(std::is_trivially_copyable_v<T>);
  return {index, sizeof(T), &value};
}
template <typename T> DispatchArg argument(cl_uint index, const Handle<T> &handle) {
  return {index, sizeof(T), handle.ptr()};
}
template <typename T> DispatchArg argument(cl_uint index, const T &&value) = delete;

const char *const kMutableSource = R"(
    kernel void scale_copy(global const int *src, global int *dst, int scale) {
      size_t i = get_global_id(0);
      dst[i] = src[i] * scale;
    }
    kernel void ids(global int *out) {
      size_t i = get_global_id(0);
      out[i] = (int)(get_local_size(0) * 10000 + get_group_id(0) * 100 + get_local_id(0));
    }
    kernel void grid(global int *out, int width) {
      size_t x = get_global_id(0), y = get_global_id(1);
      out[y * width + x] = (int)(y * 1000 + x);
    })";

/// What `produce` (out[i] = i * scale) leaves in a buffer of `size` elements filled with -1 when
/// run over `count` work-items from `offset`.
std::vector<int> produced(size_t size, size_t offset, size_t count, int scale) {
  std::vector<int> out(size, -1);
  for (size_t i = offset; i < offset + count; ++i)
    out[i] = static_cast<int>(i) * scale;
  return out;
}

/// What `ids` leaves in a buffer of `size` elements filled with -1, run over `global`
/// work-items in work-groups of `local`.
std::vector<int> ids(size_t size, size_t global, size_t local) {
  std::vector<int> out(size, -1);
  for (size_t i = 0; i < global; ++i)
    out[i] = static_cast<int>(local * 10000 + (i / local) * 100 + i % local);
  return out;
}

/// What `grid` leaves in a width x height buffer filled with -1, run over `global` from `offset`.
std::vector<int> grid(size_t width, size_t height, const size_t offset[2], const size_t global[2]) {
  std::vector<int> out(width * height, -1);
  for (size_t y = offset[1]; y < offset[1] + global[1]; ++y)
    for (size_t x = offset[0]; x < offset[0] + global[0]; ++x)
      out[y * width + x] = static_cast<int>(y * 1000 + x);
  return out;
}

/// Values small enough that `scale_copy`'s products stay within int.
std::vector<int> smallValues(size_t count, uint64_t seed) {
  Random random(seed);
  std::vector<int> values(count);
  for (int &value : values)
    value = static_cast<int>(random.next() % 20001) - 10000;
  return values;
}

std::vector<int> scaled(std::vector<int> values, int scale) {
  for (int &value : values)
    value *= scale;
  return values;
}

class MutableDispatchTest : public CommandBufferTest {
protected:
  void SetUp() override {
    CommandBufferTest::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    if (!hasExtension(device_, "cl_khr_command_buffer_mutable_dispatch"))
      GTEST_SKIP() << "no cl_khr_command_buffer_mutable_dispatch";
    if (extensionVersion("cl_khr_command_buffer_mutable_dispatch") != CL_MAKE_VERSION(0, 9, 5))
      GTEST_SKIP() << "these tests call the functions of cl_khr_command_buffer_mutable_dispatch "
                      "version 0.9.5";
    auto find = [&](auto &function, const char *name) {
      function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
          clGetExtensionFunctionAddressForPlatform(platform_, name));
      ASSERT_NE(nullptr, reinterpret_cast<void *>(function)) << name;
    };
    find(mutableKhr.update, "clUpdateMutableCommandsKHR");
    find(mutableKhr.info, "clGetMutableCommandInfoKHR");
    capabilities_ = deviceInfo<cl_mutable_dispatch_fields_khr>(
        device_, CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR);
    mutableProgram_ = build(kMutableSource);
    ASSERT_TRUE(mutableProgram_);
  }

  Kernel mutableKernel(const char *name) { return createKernel(mutableProgram_, name); }

  /// A command buffer created with CL_COMMAND_BUFFER_MUTABLE_KHR.
  CommandBuffer createMutable() {
    static const cl_command_buffer_properties_khr properties[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                                                  CL_COMMAND_BUFFER_MUTABLE_KHR, 0};
    return create(nullptr, properties);
  }

  /// Records `kernel` and returns its handle through `handle`.
  cl_int record(cl_command_buffer_khr buffer, cl_kernel kernel, cl_uint dims, const size_t *offset,
                const size_t *global, const size_t *local, cl_mutable_command_khr *handle,
                const cl_command_properties_khr *properties = nullptr,
                const std::vector<cl_sync_point_khr> &waitList = {},
                cl_sync_point_khr *point = nullptr) {
    return khr.ndrange(buffer, nullptr, properties, kernel, dims, offset, global, local,
                       static_cast<cl_uint>(waitList.size()), listData(waitList), point, handle);
  }
  /// Records `kernel` over `global` work-items (in work-groups of `local`, or of the
  /// implementation's choice with 0), after `waitList`.
  cl_int record1D(cl_command_buffer_khr buffer, cl_kernel kernel, size_t global,
                  cl_mutable_command_khr *handle, size_t local = 0,
                  const std::vector<cl_sync_point_khr> &waitList = {},
                  cl_sync_point_khr *point = nullptr) {
    return record(buffer, kernel, 1, nullptr, &global, local != 0 ? &local : nullptr, handle,
                  nullptr, waitList, point);
  }
  /// Records a fill of `count` ints with -1, whose sync point goes to `point`.
  cl_int recordClear(cl_command_buffer_khr buffer, cl_mem mem, size_t count,
                     cl_sync_point_khr *point) {
    const cl_int pattern = -1;
    return khr.fill(buffer, nullptr, nullptr, mem, &pattern, sizeof pattern, 0,
                    count * sizeof pattern, 0, nullptr, point, nullptr);
  }

  /// clUpdateMutableCommandsKHR with `configs`, each of the dispatch config type.
  cl_int update(cl_command_buffer_khr buffer, std::initializer_list<DispatchConfig> configs) {
    std::vector<cl_uint> types(configs.size(), kDispatchConfigType);
    std::vector<const void *> pointers;
    for (const DispatchConfig &config : configs)
      pointers.push_back(&config);
    return mutableKhr.update(buffer, static_cast<cl_uint>(configs.size()), types.data(),
                             pointers.data());
  }

  /// Replays `buffer` and waits for the queue.
  ::testing::AssertionResult replayAndWait(cl_command_buffer_khr buffer) {
    if (cl_int error = replay(buffer))
      return ::testing::AssertionFailure() << "clEnqueueCommandBufferKHR: " << errorName(error);
    if (cl_int error = clFinish(queue_))
      return ::testing::AssertionFailure() << "clFinish: " << errorName(error);
    return ::testing::AssertionSuccess();
  }

  /// clFillBuffer of `count` ints with `value`, blocking.
  void clear(cl_mem mem, size_t count, cl_int value = -1) {
    EXPECT_CL_SUCCESS(clEnqueueFillBuffer(queue_, mem, &value, sizeof value, 0,
                                          count * sizeof value, 0, nullptr, nullptr));
    EXPECT_CL_SUCCESS(clFinish(queue_));
  }

  template <typename T> T commandInfo(cl_mutable_command_khr command, cl_uint param) {
    return queryValue<T>(
        [&](size_t s, void *v, size_t *r) { return mutableKhr.info(command, param, s, v, r); });
  }
  template <typename T> std::vector<T> commandArray(cl_mutable_command_khr command, cl_uint param) {
    return queryArray<T>(
        [&](size_t s, void *v, size_t *r) { return mutableKhr.info(command, param, s, v, r); });
  }
  std::vector<size_t> globalSize(cl_mutable_command_khr command) {
    return commandArray<size_t>(command, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR);
  }

  cl_mutable_dispatch_fields_khr capabilities_ = 0;
  Program mutableProgram_;
};

/// Skips a test that updates fields the device does not let commands update.
#define SKIP_UNLESS_UPDATABLE(fields)                                                              \
  do {                                                                                             \
    if ((capabilities_ & (fields)) != (fields))                                                    \
      GTEST_SKIP() << "CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR lacks " #fields;                \
  } while (false)

} // namespace

// ---------------------------------------------------------------------------------------------
// Updates between replays

TEST_F(MutableDispatchTest, ScalarAndBufferArgumentsChangeBetweenReplays) {
  SKIP_UNLESS_UPDATABLE(kArgumentsField);
  constexpr size_t kCount = 1024;
  const std::vector<int> first = smallValues(kCount, 1), second = smallValues(kCount, 2);
  Mem a = bufferWith(first), b = bufferWith(second);
  Mem out1 = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Mem out2 = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Kernel scaleCopy = mutableKernel("scale_copy");
  ASSERT_TRUE(setArgs(scaleCopy, a, out1, 2));
  CommandBuffer buffer = createMutable();
  cl_mutable_command_khr command = nullptr;
  ASSERT_CL_SUCCESS(record1D(buffer, scaleCopy, kCount, &command));
  ASSERT_NE(nullptr, command);
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  // The kernel object changes after recording: the command keeps the arguments it captured.
  ASSERT_CL_SUCCESS(setArg(scaleCopy, 2, 100));

  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(scaled(first, 2), read<int>(out1, kCount)));

  // A scalar and a buffer in one update.
  const cl_int three = 3;
  const DispatchArg scaleAndTarget[] = {argument(1, out2), argument(2, three)};
  ASSERT_CL_SUCCESS(
      update(buffer, {{.command = command, .num_args = 2, .arg_list = scaleAndTarget}}));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(scaled(first, 3), read<int>(out2, kCount)));
  EXPECT_TRUE(equalArrays(scaled(first, 2), read<int>(out1, kCount)))
      << "the replay after the update wrote to the buffer it replaced";

  // Only the source: the earlier update's scale and target stay.
  const DispatchArg source[] = {argument(0, b)};
  ASSERT_CL_SUCCESS(update(buffer, {{.command = command, .num_args = 1, .arg_list = source}}));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(scaled(second, 3), read<int>(out2, kCount)));

  // A new scale before each of several replays.
  for (cl_int scale = -2; scale <= 2; ++scale) {
    const DispatchArg scaleOnly[] = {argument(2, scale)};
    ASSERT_CL_SUCCESS(update(buffer, {{.command = command, .num_args = 1, .arg_list = scaleOnly}}));
    ASSERT_TRUE(replayAndWait(buffer));
    EXPECT_TRUE(equalArrays(scaled(second, scale), read<int>(out2, kCount))) << "scale " << scale;
  }

  // The updates did not touch the kernel object: run directly, it has its own arguments.
  clear(out1, kCount, 0);
  ASSERT_TRUE(run1D(scaleCopy, kCount));
  EXPECT_TRUE(equalArrays(scaled(first, 100), read<int>(out1, kCount)));
}

TEST_F(MutableDispatchTest, GlobalSizeAndOffsetChangeBetweenReplays) {
  SKIP_UNLESS_UPDATABLE(kOffsetField | kGlobalSizeField | kArgumentsField);
  constexpr size_t kSize = 512;
  Mem out = createBuffer(CL_MEM_READ_WRITE, kSize * sizeof(int));
  Kernel produce = kernel("produce");
  ASSERT_TRUE(setArgs(produce, out, 3));
  CommandBuffer buffer = createMutable();
  cl_sync_point_khr cleared = 0;
  ASSERT_CL_SUCCESS(recordClear(buffer, out, kSize, &cleared));
  cl_mutable_command_khr command = nullptr;
  ASSERT_CL_SUCCESS(record1D(buffer, produce, 64, &command, 0, {cleared}));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(produced(kSize, 0, 64, 3), read<int>(out, kSize)));

  // Both.
  const size_t offset50 = 50, size100 = 100;
  ASSERT_CL_SUCCESS(update(
      buffer,
      {{.command = command, .global_work_offset = &offset50, .global_work_size = &size100}}));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(produced(kSize, 50, 100, 3), read<int>(out, kSize)));

  // The offset alone: the size stays.
  const size_t offset120 = 120;
  ASSERT_CL_SUCCESS(update(buffer, {{.command = command, .global_work_offset = &offset120}}));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(produced(kSize, 120, 100, 3), read<int>(out, kSize)));

  // The size alone, with work_dim given: the offset stays.
  const size_t size30 = 30;
  ASSERT_CL_SUCCESS(
      update(buffer, {{.command = command, .work_dim = 1, .global_work_size = &size30}}));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(produced(kSize, 120, 30, 3), read<int>(out, kSize)));

  // Sizes and an argument together, over the whole buffer.
  const size_t offset0 = 0, whole = kSize;
  const cl_int five = 5;
  const DispatchArg scale[] = {argument(1, five)};
  ASSERT_CL_SUCCESS(update(buffer, {{.command = command,
                                     .num_args = 1,
                                     .arg_list = scale,
                                     .global_work_offset = &offset0,
                                     .global_work_size = &whole}}));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(produced(kSize, 0, kSize, 5), read<int>(out, kSize)));
}

TEST_F(MutableDispatchTest, TwoDimensionalSizesChangeBetweenReplays) {
  SKIP_UNLESS_UPDATABLE(kOffsetField | kGlobalSizeField);
  constexpr size_t kWidth = 32, kHeight = 16;
  Mem out = createBuffer(CL_MEM_READ_WRITE, kWidth * kHeight * sizeof(int));
  Kernel gridKernel = mutableKernel("grid");
  ASSERT_TRUE(setArgs(gridKernel, out, static_cast<cl_int>(kWidth)));
  CommandBuffer buffer = createMutable();
  cl_sync_point_khr cleared = 0;
  ASSERT_CL_SUCCESS(recordClear(buffer, out, kWidth * kHeight, &cleared));
  const size_t recordedGlobal[2] = {8, 4}, noOffset[2] = {0, 0};
  cl_mutable_command_khr command = nullptr;
  ASSERT_CL_SUCCESS(record(buffer, gridKernel, 2, nullptr, recordedGlobal, nullptr, &command,
                           nullptr, {cleared}));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(grid(kWidth, kHeight, noOffset, recordedGlobal),
                          read<int>(out, kWidth * kHeight)));

  const size_t offset[2] = {4, 2}, global[2] = {16, 8};
  ASSERT_CL_SUCCESS(update(buffer, {{.command = command,
                                     .work_dim = 2,
                                     .global_work_offset = offset,
                                     .global_work_size = global}}));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(grid(kWidth, kHeight, offset, global), read<int>(out, kWidth * kHeight)));

  const size_t whole[2] = {kWidth, kHeight};
  ASSERT_CL_SUCCESS(update(
      buffer, {{.command = command, .global_work_offset = noOffset, .global_work_size = whole}}));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(
      equalArrays(grid(kWidth, kHeight, noOffset, whole), read<int>(out, kWidth * kHeight)));
}

TEST_F(MutableDispatchTest, LocalSizeChangesBetweenReplays) {
  SKIP_UNLESS_UPDATABLE(kGlobalSizeField | kLocalSizeField);
  constexpr size_t kSize = 256;
  ASSERT_GE(workGroupInfo<size_t>(mutableKernel("ids"), device_, CL_KERNEL_WORK_GROUP_SIZE), 32u);
  Mem out = createBuffer(CL_MEM_READ_WRITE, kSize * sizeof(int));
  Kernel idsKernel = mutableKernel("ids");
  ASSERT_TRUE(setArgs(idsKernel, out));
  CommandBuffer buffer = createMutable();
  cl_sync_point_khr cleared = 0;
  ASSERT_CL_SUCCESS(recordClear(buffer, out, kSize, &cleared));
  cl_mutable_command_khr command = nullptr;
  ASSERT_CL_SUCCESS(record1D(buffer, idsKernel, 64, &command, 8, {cleared}));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(ids(kSize, 64, 8), read<int>(out, kSize)));

  const size_t local16 = 16;
  ASSERT_CL_SUCCESS(update(buffer, {{.command = command, .local_work_size = &local16}}));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(ids(kSize, 64, 16), read<int>(out, kSize)));

  const size_t global128 = 128, local32 = 32;
  ASSERT_CL_SUCCESS(update(
      buffer, {{.command = command, .global_work_size = &global128, .local_work_size = &local32}}));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(ids(kSize, 128, 32), read<int>(out, kSize)));

  // The global size alone: the local size stays.
  const size_t global256 = 256;
  ASSERT_CL_SUCCESS(update(buffer, {{.command = command, .global_work_size = &global256}}));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(ids(kSize, 256, 32), read<int>(out, kSize)));

  // A command recorded without a local size is given one.
  CommandBuffer chosen = createMutable();
  ASSERT_CL_SUCCESS(recordClear(chosen, out, kSize, &cleared));
  ASSERT_CL_SUCCESS(record1D(chosen, idsKernel, 64, &command, 0, {cleared}));
  ASSERT_CL_SUCCESS(khr.finalize(chosen));
  const size_t local4 = 4;
  ASSERT_CL_SUCCESS(update(chosen, {{.command = command, .local_work_size = &local4}}));
  ASSERT_TRUE(replayAndWait(chosen));
  EXPECT_TRUE(equalArrays(ids(kSize, 64, 4), read<int>(out, kSize)));
}

TEST_F(MutableDispatchTest, OneCallUpdatesTwoCommands) {
  SKIP_UNLESS_UPDATABLE(kArgumentsField | kGlobalSizeField);
  constexpr size_t kCount = 256;
  Mem out1 = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Mem out2 = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Mem out3 = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Kernel produce = kernel("produce");
  Kernel scaleCopy = mutableKernel("scale_copy");
  ASSERT_TRUE(setArgs(produce, out1, 2));
  ASSERT_TRUE(setArgs(scaleCopy, out1, out2, 3));
  CommandBuffer buffer = createMutable();
  cl_sync_point_khr produced1 = 0;
  cl_mutable_command_khr first = nullptr, second = nullptr;
  ASSERT_CL_SUCCESS(record1D(buffer, produce, kCount, &first, 0, {}, &produced1));
  ASSERT_CL_SUCCESS(record1D(buffer, scaleCopy, kCount, &second, 0, {produced1}));
  ASSERT_NE(first, second);
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(produced(kCount, 0, kCount, 6), read<int>(out2, kCount)));

  // The producer's scale, and the consumer's scale and target, in one call.
  clear(out2, kCount);
  const cl_int five = 5, seven = 7;
  const DispatchArg firstArgs[] = {argument(1, five)};
  const DispatchArg secondArgs[] = {argument(2, seven), argument(1, out3)};
  ASSERT_CL_SUCCESS(update(buffer, {{.command = first, .num_args = 1, .arg_list = firstArgs},
                                    {.command = second, .num_args = 2, .arg_list = secondArgs}}));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(produced(kCount, 0, kCount, 5), read<int>(out1, kCount)));
  EXPECT_TRUE(equalArrays(produced(kCount, 0, kCount, 35), read<int>(out3, kCount)));
  EXPECT_TRUE(equalArrays(std::vector<int>(kCount, -1), read<int>(out2, kCount)))
      << "the consumer wrote to the buffer it no longer has";

  // One command in two configs of a call: both apply, the later one last.
  clear(out1, kCount);
  const cl_int four = 4, nine = 9;
  const size_t half = kCount / 2;
  const DispatchArg scaleFour[] = {argument(1, four)};
  const DispatchArg scaleNine[] = {argument(1, nine)};
  ASSERT_CL_SUCCESS(update(buffer, {{.command = first, .num_args = 1, .arg_list = scaleFour},
                                    {.command = first, .global_work_size = &half},
                                    {.command = first, .num_args = 1, .arg_list = scaleNine}}));
  ASSERT_TRUE(replayAndWait(buffer));
  std::vector<int> expected = produced(kCount, 0, half, 9);
  EXPECT_TRUE(equalArrays(expected, read<int>(out1, kCount)));
  // The consumer reads all of out1 (-1 past the half the producer wrote).
  for (int &value : expected)
    value *= 7;
  EXPECT_TRUE(equalArrays(expected, read<int>(out3, kCount)));
}

TEST_F(MutableDispatchTest, SvmArgumentChangesBetweenReplays) {
  SKIP_UNLESS_UPDATABLE(kArgumentsField | kExecInfoField);
  auto svm = deviceInfo<cl_device_svm_capabilities>(device_, CL_DEVICE_SVM_CAPABILITIES);
  if ((svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) == 0)
    GTEST_SKIP() << "the device has no shared virtual memory";
  constexpr size_t kCount = 512;
  const size_t bytes = kCount * sizeof(int);
  auto svmFree = [&](void *pointer) { clSVMFree(context_, pointer); };
  using Allocation = std::unique_ptr<void, decltype(svmFree)>;
  Allocation source(clSVMAlloc(context_, CL_MEM_READ_WRITE, bytes, 0), svmFree);
  Allocation target1(clSVMAlloc(context_, CL_MEM_READ_WRITE, bytes, 0), svmFree);
  Allocation target2(clSVMAlloc(context_, CL_MEM_READ_WRITE, bytes, 0), svmFree);
  ASSERT_TRUE(source && target1 && target2);
  const std::vector<int> values = smallValues(kCount, 3);
  ASSERT_CL_SUCCESS(
      clEnqueueSVMMemcpy(queue_, CL_TRUE, source.get(), values.data(), bytes, 0, nullptr, nullptr));
  auto readSvm = [&](const void *pointer) {
    std::vector<int> result(kCount, 0);
    EXPECT_CL_SUCCESS(
        clEnqueueSVMMemcpy(queue_, CL_TRUE, result.data(), pointer, bytes, 0, nullptr, nullptr));
    return result;
  };

  Kernel scaleCopy = mutableKernel("scale_copy");
  ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(scaleCopy, 0, source.get()));
  ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(scaleCopy, 1, target1.get()));
  ASSERT_CL_SUCCESS(setArg(scaleCopy, 2, 2));
  CommandBuffer buffer = createMutable();
  cl_mutable_command_khr command = nullptr;
  ASSERT_CL_SUCCESS(record1D(buffer, scaleCopy, kCount, &command));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(scaled(values, 2), readSvm(target1.get())));

  // The target through arg_svm_list (whose arg_size is ignored), the scale through arg_list,
  // and the SVM pointers the kernel uses through exec_info_list.
  const DispatchArg svmArgs[] = {{1, 0, target2.get()}};
  const cl_int six = 6;
  const DispatchArg args[] = {argument(2, six)};
  void *const used[] = {source.get(), target2.get()};
  const DispatchExecInfo execInfo[] = {{CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof used, used}};
  ASSERT_CL_SUCCESS(update(buffer, {{.command = command,
                                     .num_args = 1,
                                     .num_svm_args = 1,
                                     .num_exec_infos = 1,
                                     .arg_list = args,
                                     .arg_svm_list = svmArgs,
                                     .exec_info_list = execInfo}}));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(scaled(values, 6), readSvm(target2.get())));
  EXPECT_TRUE(equalArrays(scaled(values, 2), readSvm(target1.get())));
}

// ---------------------------------------------------------------------------------------------
// Updates that fail, and runs enqueued before an update

TEST_F(MutableDispatchTest, FailedUpdateLeavesEveryCommandAsItWas) {
  SKIP_UNLESS_UPDATABLE(kAllFields);
  constexpr size_t kSize = 256, kCount = 64;
  Mem out1 = createBuffer(CL_MEM_READ_WRITE, kSize * sizeof(int));
  Mem out2 = createBuffer(CL_MEM_READ_WRITE, kSize * sizeof(int));
  Kernel produce1 = kernel("produce");
  Kernel produce2 = kernel("produce");
  ASSERT_TRUE(setArgs(produce1, out1, 2));
  ASSERT_TRUE(setArgs(produce2, out2, 3));
  CommandBuffer buffer = createMutable();
  // The first command may change in every field, the second in its arguments alone.
  cl_mutable_command_khr first = nullptr, second = nullptr;
  ASSERT_CL_SUCCESS(record1D(buffer, produce1, kCount, &first));
  const cl_command_properties_khr argumentsOnly[] = {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
                                                     kArgumentsField, 0};
  ASSERT_CL_SUCCESS(record(buffer, produce2, 1, nullptr, &kCount, nullptr, &second, argumentsOnly));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));

  auto checkUnchanged = [&](const char *what) {
    SCOPED_TRACE(what);
    clear(out1, kSize);
    clear(out2, kSize);
    ASSERT_TRUE(replayAndWait(buffer));
    EXPECT_TRUE(equalArrays(produced(kSize, 0, kCount, 2), read<int>(out1, kSize)));
    EXPECT_TRUE(equalArrays(produced(kSize, 0, kCount, 3), read<int>(out2, kSize)));
    EXPECT_EQ(std::vector<size_t>{kCount}, globalSize(first));
    EXPECT_EQ(std::vector<size_t>{kCount}, globalSize(second));
  };
  checkUnchanged("as recorded");

  // Valid changes of the first command, each call with a config that fails after them.
  const cl_int nine = 9, ten = 10;
  const size_t size128 = 128, offset4 = 4, local8 = 8;
  const DispatchArg scaleNine[] = {argument(1, nine)};
  const DispatchConfig validFirst{.command = first,
                                  .num_args = 1,
                                  .arg_list = scaleNine,
                                  .global_work_offset = &offset4,
                                  .global_work_size = &size128};
  const DispatchArg badIndex[] = {argument(7, ten)};
  EXPECT_CL_ERROR(
      CL_INVALID_ARG_INDEX,
      update(buffer, {validFirst, {.command = second, .num_args = 1, .arg_list = badIndex}}));
  checkUnchanged("after CL_INVALID_ARG_INDEX");

  const DispatchArg badSize[] = {{1, 2, &ten}};
  EXPECT_CL_ERROR(
      CL_INVALID_ARG_SIZE,
      update(buffer, {validFirst, {.command = second, .num_args = 1, .arg_list = badSize}}));
  checkUnchanged("after CL_INVALID_ARG_SIZE");

  if (validatesForeignHandles()) {
    ForeignObject foreign;
    const cl_mem notAMemObject = foreign.as<cl_mem>(out1.get());
    const DispatchArg badBuffer[] = {argument(0, notAMemObject)};
    EXPECT_CL_ERROR(
        CL_INVALID_MEM_OBJECT,
        update(buffer, {validFirst, {.command = second, .num_args = 1, .arg_list = badBuffer}}));
    checkUnchanged("after CL_INVALID_MEM_OBJECT");
  }

  // Fields the second command was not recorded as updatable.
  EXPECT_CL_ERROR(CL_INVALID_OPERATION,
                  update(buffer, {validFirst, {.command = second, .global_work_size = &size128}}));
  EXPECT_CL_ERROR(
      CL_INVALID_OPERATION,
      update(buffer, {validFirst, {.command = second, .global_work_offset = &offset4}}));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION,
                  update(buffer, {validFirst, {.command = second, .local_work_size = &local8}}));
  const cl_bool fineGrainSystem = CL_FALSE;
  const DispatchExecInfo execInfo[] = {
      {CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof fineGrainSystem, &fineGrainSystem}};
  EXPECT_CL_ERROR(
      CL_INVALID_OPERATION,
      update(buffer,
             {validFirst, {.command = second, .num_exec_infos = 1, .exec_info_list = execInfo}}));
  checkUnchanged("after updates of fields that are not updatable");

  // The failing config first, or the same command again.
  EXPECT_CL_ERROR(CL_INVALID_OPERATION,
                  update(buffer, {{.command = second, .global_work_size = &size128}, validFirst}));
  const DispatchArg badFirst[] = {argument(9, ten)};
  EXPECT_CL_ERROR(
      CL_INVALID_ARG_INDEX,
      update(buffer, {validFirst, {.command = first, .num_args = 1, .arg_list = badFirst}}));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION,
                  update(buffer, {validFirst, {.command = first, .work_dim = 2}}));
  checkUnchanged("after failed updates of the first command");

  // The command buffer still takes a valid update afterwards.
  const DispatchArg scaleTen[] = {argument(1, ten)};
  ASSERT_CL_SUCCESS(
      update(buffer, {validFirst, {.command = second, .num_args = 1, .arg_list = scaleTen}}));
  clear(out1, kSize);
  clear(out2, kSize);
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(produced(kSize, 4, 128, 9), read<int>(out1, kSize)));
  EXPECT_TRUE(equalArrays(produced(kSize, 0, kCount, 10), read<int>(out2, kSize)));
}

TEST_F(MutableDispatchTest, RunEnqueuedBeforeAnUpdateKeepsItsArguments) {
  SKIP_UNLESS_UPDATABLE(kArgumentsField);
  constexpr size_t kCount = 512;
  Mem out1 = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Mem out2 = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Mem total = bufferWith(std::vector<int>(kCount, 0));
  Kernel produce = kernel("produce");
  Kernel add = kernel("add");
  ASSERT_TRUE(setArgs(produce, out1, 2));
  ASSERT_TRUE(setArgs(add, total, 1));
  clear(out1, kCount);
  clear(out2, kCount);
  CommandBuffer buffer = createMutable();
  cl_mutable_command_khr producer = nullptr, adder = nullptr;
  ASSERT_CL_SUCCESS(record1D(buffer, produce, kCount, &producer));
  ASSERT_CL_SUCCESS(record1D(buffer, add, kCount, &adder));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));

  Gate gate(context_);
  Event before, after;
  ASSERT_CL_SUCCESS(replay(buffer, {gate}, before.out()));
  // While that run waits: a new target and scale for the producer, a new value for the adder.
  const cl_int three = 3, ten = 10;
  const DispatchArg producerArgs[] = {argument(0, out2), argument(1, three)};
  const DispatchArg adderArgs[] = {argument(1, ten)};
  ASSERT_CL_SUCCESS(update(buffer, {{.command = producer, .num_args = 2, .arg_list = producerArgs},
                                    {.command = adder, .num_args = 1, .arg_list = adderArgs}}));
  ASSERT_CL_SUCCESS(replay(buffer, {}, after.out()));
  EXPECT_TRUE(staysFalse([&] { return eventStatus(before) <= CL_COMPLETE; }))
      << "the first run ran before its user event completed";

  ASSERT_CL_SUCCESS(gate.open());
  ASSERT_CL_SUCCESS(clWaitForEvents(1, after.ptr()));
  EXPECT_EQ(CL_COMPLETE, eventStatus(before));
  EXPECT_TRUE(equalArrays(produced(kCount, 0, kCount, 2), read<int>(out1, kCount)))
      << "the run enqueued before the update";
  EXPECT_TRUE(equalArrays(produced(kCount, 0, kCount, 3), read<int>(out2, kCount)))
      << "the run enqueued after the update";
  // 0 + 1 (the first run) + 10 (the second).
  EXPECT_TRUE(equalArrays(std::vector<int>(kCount, 11), read<int>(total, kCount)));
}

// ---------------------------------------------------------------------------------------------
// Arguments set by updates after finalizing

TEST_F(MutableDispatchTest, DeferredArgumentsMakeTheBufferExecutableOnceSet) {
  SKIP_UNLESS_UPDATABLE(kArgumentsField);
  constexpr size_t kCount = 256;
  const std::vector<int> values = smallValues(kCount, 4);
  Mem source = bufferWith(values);
  Mem target = bufferWith(std::vector<int>(kCount, -1));
  Kernel scaleCopy = mutableKernel("scale_copy");
  ASSERT_CL_SUCCESS(setArg(scaleCopy, 0, source)); // the target and the scale stay unset

  CommandBuffer buffer = createMutable();
  // Without CL_MUTABLE_DISPATCH_ARGUMENTS_KHR among its updatable fields, a command needs every
  // argument set.
  const cl_command_properties_khr sizesOnly[] = {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
                                                 kGlobalSizeField, 0};
  const size_t global = kCount;
  cl_mutable_command_khr command = nullptr;
  if ((capabilities_ & kGlobalSizeField) != 0)
    EXPECT_CL_ERROR(CL_INVALID_KERNEL_ARGS,
                    record(buffer, scaleCopy, 1, nullptr, &global, nullptr, &command, sizesOnly));
  const cl_command_properties_khr arguments[] = {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
                                                 kArgumentsField, 0};
  // What can be checked before the arguments come is: the work sizes.
  EXPECT_CL_ERROR(CL_INVALID_WORK_DIMENSION,
                  record(buffer, scaleCopy, 0, nullptr, &global, nullptr, &command, arguments));
  const size_t tooLarge = size_t{1} << 20;
  EXPECT_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE,
                  record(buffer, scaleCopy, 1, nullptr, &global, &tooLarge, &command, arguments));
  ASSERT_CL_SUCCESS(record(buffer, scaleCopy, 1, nullptr, &global, nullptr, &command, arguments));
  ASSERT_NE(nullptr, command);
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  EXPECT_EQ(kStateFinalized, state(buffer));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, replay(buffer));

  // One of the two: still not executable.
  const DispatchArg targetArg[] = {argument(1, target)};
  ASSERT_CL_SUCCESS(update(buffer, {{.command = command, .num_args = 1, .arg_list = targetArg}}));
  EXPECT_EQ(kStateFinalized, state(buffer));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, replay(buffer));

  // A failed update sets nothing.
  const cl_int four = 4;
  const DispatchArg failing[] = {argument(2, four), argument(5, four)};
  EXPECT_CL_ERROR(CL_INVALID_ARG_INDEX,
                  update(buffer, {{.command = command, .num_args = 2, .arg_list = failing}}));
  EXPECT_EQ(kStateFinalized, state(buffer));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, replay(buffer));

  const DispatchArg scaleArg[] = {argument(2, four)};
  ASSERT_CL_SUCCESS(update(buffer, {{.command = command, .num_args = 1, .arg_list = scaleArg}}));
  EXPECT_EQ(cl_command_buffer_state_khr{CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR}, state(buffer));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(scaled(values, 4), read<int>(target, kCount)));
  EXPECT_EQ(std::vector<size_t>{kCount}, globalSize(command));
}

// ---------------------------------------------------------------------------------------------
// Queries

TEST_F(MutableDispatchTest, MutableCommandInfoReportsTheCommandBeforeAndAfterAnUpdate) {
  SKIP_UNLESS_UPDATABLE(kOffsetField | kGlobalSizeField | kLocalSizeField);
  constexpr size_t kSize = 256;
  Mem out = createBuffer(CL_MEM_READ_WRITE, kSize * sizeof(int));
  Kernel produce = kernel("produce");
  ASSERT_TRUE(setArgs(produce, out, 3));
  CommandBuffer buffer = createMutable();
  cl_sync_point_khr cleared = 0;
  ASSERT_CL_SUCCESS(recordClear(buffer, out, kSize, &cleared));
  const std::vector<cl_command_properties_khr> properties = {
      CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, kOffsetField | kGlobalSizeField | kLocalSizeField,
      0};
  const size_t offset = 8, global = 64, local = 16;
  cl_mutable_command_khr command = nullptr;
  ASSERT_CL_SUCCESS(
      record(buffer, produce, 1, &offset, &global, &local, &command, properties.data(), {cleared}));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));

  EXPECT_EQ(queue_.get(),
            commandInfo<cl_command_queue>(command, CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR));
  EXPECT_EQ(buffer.get(),
            commandInfo<cl_command_buffer_khr>(command, CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR));
  EXPECT_EQ(cl_command_type{CL_COMMAND_NDRANGE_KERNEL},
            commandInfo<cl_command_type>(command, CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR));
  EXPECT_EQ(properties, commandArray<cl_command_properties_khr>(command, kCommandPropertiesArray));
  EXPECT_EQ(produce.get(), commandInfo<cl_kernel>(command, CL_MUTABLE_DISPATCH_KERNEL_KHR));
  EXPECT_EQ(1u, commandInfo<cl_uint>(command, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR));
  EXPECT_EQ(std::vector<size_t>{8},
            commandArray<size_t>(command, CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR));
  EXPECT_EQ(std::vector<size_t>{64}, globalSize(command));
  EXPECT_EQ(std::vector<size_t>{16},
            commandArray<size_t>(command, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(produced(kSize, 8, 64, 3), read<int>(out, kSize)));

  const size_t newOffset = 0, newGlobal = 128, newLocal = 32;
  ASSERT_CL_SUCCESS(update(buffer, {{.command = command,
                                     .global_work_offset = &newOffset,
                                     .global_work_size = &newGlobal,
                                     .local_work_size = &newLocal}}));
  EXPECT_EQ(std::vector<size_t>{0},
            commandArray<size_t>(command, CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR));
  EXPECT_EQ(std::vector<size_t>{128}, globalSize(command));
  EXPECT_EQ(std::vector<size_t>{32},
            commandArray<size_t>(command, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR));
  // The rest as before.
  EXPECT_EQ(1u, commandInfo<cl_uint>(command, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR));
  EXPECT_EQ(produce.get(), commandInfo<cl_kernel>(command, CL_MUTABLE_DISPATCH_KERNEL_KHR));
  EXPECT_EQ(properties, commandArray<cl_command_properties_khr>(command, kCommandPropertiesArray));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(produced(kSize, 0, 128, 3), read<int>(out, kSize)));
}

TEST_F(MutableDispatchTest, MutableCommandInfoOfATwoDimensionalCommand) {
  SKIP_UNLESS_UPDATABLE(kGlobalSizeField);
  constexpr size_t kWidth = 32, kHeight = 16;
  Mem out = createBuffer(CL_MEM_READ_WRITE, kWidth * kHeight * sizeof(int));
  Kernel gridKernel = mutableKernel("grid");
  ASSERT_TRUE(setArgs(gridKernel, out, static_cast<cl_int>(kWidth)));
  CommandBuffer buffer = createMutable();
  const size_t global[2] = {8, 4}, local[2] = {4, 2};
  cl_mutable_command_khr command = nullptr;
  ASSERT_CL_SUCCESS(record(buffer, gridKernel, 2, nullptr, global, local, &command));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  EXPECT_EQ(2u, commandInfo<cl_uint>(command, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR));
  // "If a global work-item offset was not set, zero is returned for each element."
  EXPECT_EQ((std::vector<size_t>{0, 0}),
            commandArray<size_t>(command, CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR));
  EXPECT_EQ((std::vector<size_t>{8, 4}), globalSize(command));
  EXPECT_EQ((std::vector<size_t>{4, 2}),
            commandArray<size_t>(command, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR));
  // "If the properties argument specified on creation of command was NULL, the implementation
  // must return param_value_size_ret equal to 0".
  size_t size = 1;
  EXPECT_CL_SUCCESS(mutableKhr.info(command, kCommandPropertiesArray, 0, nullptr, &size));
  EXPECT_EQ(0u, size);

  const size_t newGlobal[2] = {16, 8};
  ASSERT_CL_SUCCESS(update(buffer, {{.command = command, .global_work_size = newGlobal}}));
  EXPECT_EQ((std::vector<size_t>{16, 8}), globalSize(command));
  EXPECT_EQ((std::vector<size_t>{4, 2}),
            commandArray<size_t>(command, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR));
  EXPECT_EQ((std::vector<size_t>{0, 0}),
            commandArray<size_t>(command, CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR));
  clear(out, kWidth * kHeight);
  ASSERT_TRUE(replayAndWait(buffer));
  const size_t noOffset[2] = {0, 0};
  EXPECT_TRUE(
      equalArrays(grid(kWidth, kHeight, noOffset, newGlobal), read<int>(out, kWidth * kHeight)));
}

// CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR: "If a local work-item size was not set, zero is
// returned for each element in the array."
TEST_F(MutableDispatchTest, LocalSizeNotGivenIsReportedAsZeros) {
  SKIP_UNLESS_UPDATABLE(kGlobalSizeField);
  Mem out = createBuffer(CL_MEM_READ_WRITE, 256 * sizeof(int));
  Kernel produce = kernel("produce");
  ASSERT_TRUE(setArgs(produce, out, 1));
  CommandBuffer buffer = createMutable();
  cl_mutable_command_khr command = nullptr;
  ASSERT_CL_SUCCESS(record1D(buffer, produce, 64, &command));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  EXPECT_EQ(std::vector<size_t>{0},
            commandArray<size_t>(command, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR));
  const size_t global = 256;
  ASSERT_CL_SUCCESS(update(buffer, {{.command = command, .global_work_size = &global}}));
  EXPECT_EQ(std::vector<size_t>{0},
            commandArray<size_t>(command, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(produced(256, 0, 256, 1), read<int>(out, 256)));
}

TEST_F(MutableDispatchTest, MutableCommandInfoErrors) {
  Mem out = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(int));
  Kernel produce = kernel("produce");
  ASSERT_TRUE(setArgs(produce, out, 1));
  CommandBuffer buffer = createMutable();
  cl_mutable_command_khr command = nullptr;
  ASSERT_CL_SUCCESS(record1D(buffer, produce, 64, &command));
  cl_uint value = 0;
  EXPECT_CL_ERROR(
      CL_INVALID_MUTABLE_COMMAND_KHR,
      mutableKhr.info(nullptr, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  mutableKhr.info(command, 0x7FFF, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, mutableKhr.info(command, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR,
                                                    sizeof value - 1, &value, nullptr));
  cl_command_buffer_khr owner = nullptr;
  EXPECT_CL_ERROR(CL_INVALID_VALUE, mutableKhr.info(command, CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR,
                                                    sizeof owner - 1, &owner, nullptr));
}

TEST_F(MutableDispatchTest, DeviceReportsMutableDispatchCapabilities) {
  EXPECT_NE(0u, capabilities_);
  EXPECT_EQ(0u, capabilities_ & ~kAllFields) << "unknown bits in " << capabilities_;
}

// ---------------------------------------------------------------------------------------------
// Errors of clUpdateMutableCommandsKHR

TEST_F(MutableDispatchTest, UpdateErrors) {
  SKIP_UNLESS_UPDATABLE(kArgumentsField);
  constexpr size_t kCount = 64;
  Mem out = createBuffer(CL_MEM_READ_WRITE, kCount * sizeof(int));
  Kernel produce = kernel("produce");
  ASSERT_TRUE(setArgs(produce, out, 2));
  const cl_int five = 5;
  const DispatchArg scaleFive[] = {argument(1, five)};

  // "CL_INVALID_OPERATION if command_buffer has not been finalized."
  CommandBuffer buffer = createMutable();
  cl_mutable_command_khr command = nullptr;
  ASSERT_CL_SUCCESS(record1D(buffer, produce, kCount, &command));
  const DispatchConfig valid{.command = command, .num_args = 1, .arg_list = scaleFive};
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, update(buffer, {valid}));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));

  // "CL_INVALID_OPERATION if command_buffer was not created with the CL_COMMAND_BUFFER_MUTABLE_KHR
  // flag."
  CommandBuffer immutable = create();
  cl_mutable_command_khr immutableCommand = nullptr;
  ASSERT_CL_SUCCESS(record1D(immutable, produce, kCount, &immutableCommand));
  ASSERT_CL_SUCCESS(khr.finalize(immutable));
  EXPECT_CL_ERROR(
      CL_INVALID_OPERATION,
      update(immutable, {{.command = immutableCommand, .num_args = 1, .arg_list = scaleFive}}));

  EXPECT_CL_ERROR(CL_INVALID_COMMAND_BUFFER_KHR, update(nullptr, {valid}));

  // The arrays of configs and of their types.
  const cl_uint types[] = {kDispatchConfigType};
  const void *configs[] = {&valid};
  EXPECT_CL_ERROR(CL_INVALID_VALUE, mutableKhr.update(buffer, 1, nullptr, configs));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, mutableKhr.update(buffer, 1, types, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, mutableKhr.update(buffer, 0, types, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, mutableKhr.update(buffer, 0, nullptr, configs));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, mutableKhr.update(buffer, 0, types, configs));
  const void *nullConfig[] = {nullptr};
  EXPECT_CL_ERROR(CL_INVALID_VALUE, mutableKhr.update(buffer, 1, types, nullConfig));
  // The older version's value of CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR, and nonsense.
  for (cl_uint type : {1u, 0x7FFFu}) {
    EXPECT_CL_ERROR(CL_INVALID_VALUE, mutableKhr.update(buffer, 1, &type, configs))
        << "type " << type;
  }
  // A valid config, then an invalid type.
  const cl_uint validThenInvalid[] = {kDispatchConfigType, 1};
  const void *twoConfigs[] = {&valid, &valid};
  EXPECT_CL_ERROR(CL_INVALID_VALUE, mutableKhr.update(buffer, 2, validThenInvalid, twoConfigs));

  // A count and its list disagree.
  const size_t global = kCount;
  const DispatchArg svmArg[] = {{0, 0, nullptr}};
  const cl_bool flag = CL_FALSE;
  const DispatchExecInfo execInfo[] = {
      {CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof flag, &flag}};
  EXPECT_CL_ERROR(CL_INVALID_VALUE, update(buffer, {{.command = command, .num_args = 1}}));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, update(buffer, {{.command = command, .arg_list = scaleFive}}));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, update(buffer, {{.command = command, .num_svm_args = 1}}));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, update(buffer, {{.command = command, .arg_svm_list = svmArg}}));
  if (capabilities_ & kExecInfoField) {
    EXPECT_CL_ERROR(CL_INVALID_VALUE, update(buffer, {{.command = command, .num_exec_infos = 1}}));
    EXPECT_CL_ERROR(CL_INVALID_VALUE,
                    update(buffer, {{.command = command, .exec_info_list = execInfo}}));
  }

  // Commands that are not this buffer's.
  EXPECT_CL_ERROR(CL_INVALID_MUTABLE_COMMAND_KHR,
                  update(buffer, {{.command = nullptr, .num_args = 1, .arg_list = scaleFive}}));
  CommandBuffer other = createMutable();
  cl_mutable_command_khr otherCommand = nullptr;
  ASSERT_CL_SUCCESS(record1D(other, produce, kCount, &otherCommand));
  ASSERT_CL_SUCCESS(khr.finalize(other));
  EXPECT_CL_ERROR(
      CL_INVALID_MUTABLE_COMMAND_KHR,
      update(buffer, {{.command = otherCommand, .num_args = 1, .arg_list = scaleFive}}));
  EXPECT_CL_ERROR(
      CL_INVALID_MUTABLE_COMMAND_KHR,
      update(buffer, {valid, {.command = otherCommand, .num_args = 1, .arg_list = scaleFive}}));

  // "CL_INVALID_OPERATION if work_dim is not zero and different from the work_dim set on
  // command recording."
  const size_t global2D[2] = {kCount, 1};
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, update(buffer, {{.command = command, .work_dim = 2}}));
  if (capabilities_ & kGlobalSizeField)
    EXPECT_CL_ERROR(
        CL_INVALID_OPERATION,
        update(buffer, {{.command = command, .work_dim = 2, .global_work_size = global2D}}));

  // Nothing of the above changed the command: the recorded scale, on the recorded range.
  clear(out, kCount);
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(produced(kCount, 0, kCount, 2), read<int>(out, kCount)));
  EXPECT_EQ(std::vector<size_t>{global}, globalSize(command));
  // And the valid update, with its work_dim given, applies.
  ASSERT_CL_SUCCESS(
      update(buffer, {{.command = command, .num_args = 1, .work_dim = 1, .arg_list = scaleFive}}));
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(produced(kCount, 0, kCount, 5), read<int>(out, kCount)));
}

TEST_F(MutableDispatchTest, UpdateThatChangesWorkGroupUniformityIsInvalidOperation) {
  SKIP_UNLESS_UPDATABLE(kGlobalSizeField | kLocalSizeField);
  if (!deviceInfo<cl_bool>(device_, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT))
    GTEST_SKIP() << "the device has no non-uniform work-groups";
  Program program = build(kMutableSource, "-cl-std=CL2.0");
  ASSERT_TRUE(program);
  Kernel idsKernel = createKernel(program, "ids");
  constexpr size_t kSize = 128;
  Mem out = createBuffer(CL_MEM_READ_WRITE, kSize * sizeof(int));
  ASSERT_TRUE(setArgs(idsKernel, out));
  CommandBuffer buffer = createMutable();
  cl_mutable_command_khr command = nullptr;
  ASSERT_CL_SUCCESS(record1D(buffer, idsKernel, 64, &command, 8));
  ASSERT_CL_SUCCESS(khr.finalize(buffer));
  // "CL_INVALID_OPERATION if the values of local_work_size and/or global_work_size result in a
  // change to work-group uniformity."
  const size_t global60 = 60, local12 = 12;
  EXPECT_CL_ERROR(CL_INVALID_OPERATION,
                  update(buffer, {{.command = command, .global_work_size = &global60}}));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION,
                  update(buffer, {{.command = command, .local_work_size = &local12}}));
  clear(out, kSize);
  ASSERT_TRUE(replayAndWait(buffer));
  EXPECT_TRUE(equalArrays(ids(kSize, 64, 8), read<int>(out, kSize)));
}
