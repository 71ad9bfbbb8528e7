// One context, two devices: the device under test and another one of the platform (on a machine
// with a GPU, the CPU and the GPU; KILN_TEST_SECOND_DEVICE=gpu or cpu picks the other's kind, so
// that a machine with two GPUs tests them together), or two halves of the device where it is the
// platform's only one (sub-devices). Commands of each device's queue wait for events of the
// other's, copy and map what the other wrote, and sample images the other wrote; profiling times of
// the two devices are on one clock. Every result is checked against a host reference.
#include "cl_test.hpp"

#include <atomic>

using namespace cltest;

namespace {

using Device = Handle<cl_device_id>;

const char *kSource = R"(
  // Two steps that do not commute, so results show the order they ran in.
  kernel void affine(global uint *data) {
    size_t i = get_global_id(0);
    data[i] = data[i] * 3u + (uint)i;
  }
  kernel void scramble(global uint *data) {
    size_t i = get_global_id(0);
    data[i] ^= data[i] >> 3;
  }
  kernel void copyScaled(global const uint *in, global uint *out, uint factor) {
    size_t i = get_global_id(0);
    out[i] = in[i] * factor;
  }
)";

const char *kImageSource = R"(
  kernel void paint(write_only image2d_t image, uint salt) {
    int2 at = (int2)(get_global_id(0), get_global_id(1));
    write_imageui(image, at, (uint4)(at.x, at.y, at.x ^ at.y, salt));
  }
  constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                               CLK_FILTER_NEAREST;
  kernel void sample(read_only image2d_t image, global uint4 *out, int width) {
    int2 at = (int2)(get_global_id(0), get_global_id(1));
    // Half a pixel in: the centre of the pixel, which nearest filtering must return.
    out[at.y * width + at.x] = read_imageui(image, nearest, (float2)(at.x + 0.5f, at.y + 0.5f));
  }
)";

uint32_t affine(uint32_t value, size_t index) {
  return value * 3u + static_cast<uint32_t>(index);
}
uint32_t scramble(uint32_t value) {
  return value ^ (value >> 3);
}

class MultiDeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!chooseDevices())
      GTEST_SKIP() << "the platform has one device, and it cannot be split in two";
    cl_device_id both[] = {devices_[0], devices_[1]};
    cl_int error = CL_SUCCESS;
    context_ = Context(clCreateContext(nullptr, 2, both, nullptr, nullptr, &error));
    ASSERT_CL_SUCCESS(error);
    cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    for (int i = 0; i < 2; ++i) {
      queues_[i] = Queue(clCreateCommandQueueWithProperties(context_, both[i], properties, &error));
      ASSERT_CL_SUCCESS(error);
    }
    program_ = buildForBoth(kSource);
    ASSERT_NE(nullptr, program_.get());
  }

  /// The device under test and another root device (of KILN_TEST_SECOND_DEVICE's kind when it
  /// is set), or two sub-devices of the only one.
  bool chooseDevices() {
    cl_device_type kind = CL_DEVICE_TYPE_ALL;
    if (const char *second = std::getenv("KILN_TEST_SECOND_DEVICE"))
      kind = std::string(second) == "gpu" ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
    cl_uint count = 0;
    if (clGetDeviceIDs(platform(), kind, 0, nullptr, &count) != CL_SUCCESS)
      count = 0;
    std::vector<cl_device_id> all(count);
    if (count > 0)
      EXPECT_CL_SUCCESS(clGetDeviceIDs(platform(), kind, count, all.data(), nullptr));
    for (cl_device_id other : all) {
      if (other != device()) {
        devices_ = {Device(device()), Device(other)};
        // Root devices are not reference counted; the handles' releases are no-ops for them.
        clRetainDevice(device());
        clRetainDevice(other);
        return true;
      }
    }
    cl_uint units = deviceInfo<cl_uint>(device(), CL_DEVICE_MAX_COMPUTE_UNITS);
    if (units < 2 || deviceInfo<cl_uint>(device(), CL_DEVICE_PARTITION_MAX_SUB_DEVICES) < 2)
      return false;
    cl_device_partition_property halves[] = {CL_DEVICE_PARTITION_EQUALLY, units / 2, 0};
    cl_device_id parts[2] = {};
    cl_uint made = 0;
    EXPECT_CL_SUCCESS(clCreateSubDevices(device(), halves, 2, parts, &made));
    devices_ = {Device(parts[0]), Device(parts[1])};
    return made >= 2 && parts[1] != nullptr;
  }

  Program buildForBoth(const char *source, const char *options = "") {
    cl_int error = CL_SUCCESS;
    Program program(clCreateProgramWithSource(context_, 1, &source, nullptr, &error));
    EXPECT_CL_SUCCESS(error);
    cl_device_id both[] = {devices_[0], devices_[1]};
    error = clBuildProgram(program, 2, both, options, nullptr, nullptr);
    if (error != CL_SUCCESS) {
      ADD_FAILURE() << "clBuildProgram: " << errorName(error) << "\n"
                    << buildLog(program, both[0]) << buildLog(program, both[1]);
      return Program();
    }
    return program;
  }

  Mem buffer(const std::vector<uint32_t> &data) {
    cl_int error = CL_SUCCESS;
    Mem made(clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            data.size() * sizeof(uint32_t), const_cast<uint32_t *>(data.data()),
                            &error));
    EXPECT_CL_SUCCESS(error);
    return made;
  }

  /// Enqueues the one-argument kernel `name` on `data` on device `which`, after `waitFor`.
  Event launch(int which, const char *name, cl_mem data, size_t count,
               std::vector<cl_event> waitFor = {}) {
    Kernel kernel = createKernel(program_, name);
    EXPECT_TRUE(setArgs(kernel, data));
    Event done;
    EXPECT_CL_SUCCESS(clEnqueueNDRangeKernel(
        queues_[which], kernel, 1, nullptr, &count, nullptr, static_cast<cl_uint>(waitFor.size()),
        waitFor.empty() ? nullptr : waitFor.data(), done.out()));
    return done;
  }

  std::vector<uint32_t> readBack(int which, cl_mem data, size_t count,
                                 std::vector<cl_event> waitFor = {}) {
    std::vector<uint32_t> out(count);
    EXPECT_CL_SUCCESS(clEnqueueReadBuffer(
        queues_[which], data, CL_TRUE, 0, count * sizeof(uint32_t), out.data(),
        static_cast<cl_uint>(waitFor.size()), waitFor.empty() ? nullptr : waitFor.data(), nullptr));
    return out;
  }

  /// `affine` on the first device once `gate` opens, then `scramble` on the second after it.
  std::pair<Event, Event> gatedChain(const Gate &gate, cl_mem data, size_t count) {
    Event onFirst = launch(0, "affine", data, count, {gate.get()});
    Event onSecond = launch(1, "scramble", data, count, {onFirst});
    return {std::move(onFirst), std::move(onSecond)};
  }

  static std::vector<uint32_t> initial(size_t count) {
    Random random(count);
    return random.values<uint32_t>(count);
  }

  std::vector<Device> devices_;
  Context context_;
  Queue queues_[2];
  Program program_;
};

TEST_F(MultiDeviceTest, KernelOnOneDeviceFeedsAKernelOnTheOther) {
  constexpr size_t kCount = 1 << 16;
  std::vector<uint32_t> expected = initial(kCount);
  Mem data = buffer(expected);
  Event first = launch(0, "affine", data, kCount);
  Event second = launch(1, "scramble", data, kCount, {first});
  for (size_t i = 0; i < kCount; ++i)
    expected[i] = scramble(affine(expected[i], i));
  EXPECT_TRUE(equalArrays(expected, readBack(0, data, kCount, {second})));
  EXPECT_EQ(CL_COMPLETE, eventStatus(first));
  EXPECT_EQ(CL_COMPLETE, eventStatus(second));
}

TEST_F(MultiDeviceTest, CommandsAlternateBetweenDevicesWithoutTheHostWaiting) {
  constexpr size_t kCount = 4096;
  constexpr int kRounds = 24;
  std::vector<uint32_t> expected = initial(kCount);
  Mem data = buffer(expected);
  Event previous;
  for (int round = 0; round < kRounds; ++round) {
    int which = round % 2;
    std::vector<cl_event> after;
    if (previous != nullptr)
      after.push_back(previous);
    previous = launch(which, which == 0 ? "affine" : "scramble", data, kCount, after);
    for (size_t i = 0; i < kCount; ++i)
      expected[i] = which == 0 ? affine(expected[i], i) : scramble(expected[i]);
  }
  EXPECT_TRUE(equalArrays(expected, readBack(1, data, kCount, {previous})));
}

TEST_F(MultiDeviceTest, CopiesAndFillsSeeWhatTheOtherDeviceWrote) {
  constexpr size_t kCount = 1 << 15;
  constexpr size_t kBytes = kCount * sizeof(uint32_t);
  std::vector<uint32_t> source = initial(kCount);
  Mem first = buffer(std::vector<uint32_t>(kCount, 0));
  Mem second = buffer(std::vector<uint32_t>(kCount, 0));
  Mem third = buffer(std::vector<uint32_t>(kCount, 0));
  Event written, copied, filled, scaled;
  ASSERT_CL_SUCCESS(clEnqueueWriteBuffer(queues_[0], first, CL_FALSE, 0, kBytes, source.data(), 0,
                                         nullptr, written.out()));
  ASSERT_CL_SUCCESS(
      clEnqueueCopyBuffer(queues_[1], first, second, 0, 0, kBytes, 1, written.ptr(), copied.out()));
  // The upper half of the copy is overwritten on the first device.
  const uint32_t pattern = 0xA5A5F00Du;
  ASSERT_CL_SUCCESS(clEnqueueFillBuffer(queues_[0], second, &pattern, sizeof pattern, kBytes / 2,
                                        kBytes / 2, 1, copied.ptr(), filled.out()));
  Kernel kernel = createKernel(program_, "copyScaled");
  ASSERT_TRUE(setArgs(kernel, second, third, 5u));
  size_t global = kCount;
  ASSERT_CL_SUCCESS(clEnqueueNDRangeKernel(queues_[1], kernel, 1, nullptr, &global, nullptr, 1,
                                           filled.ptr(), scaled.out()));
  std::vector<uint32_t> expected(kCount);
  for (size_t i = 0; i < kCount; ++i)
    expected[i] = (i < kCount / 2 ? source[i] : pattern) * 5u;
  EXPECT_TRUE(equalArrays(expected, readBack(0, third, kCount, {scaled})));
}

TEST_F(MultiDeviceTest, MapOnOneDeviceSeesAKernelOfTheOtherAndItsWritesGoBack) {
  constexpr size_t kCount = 1 << 14;
  std::vector<uint32_t> expected = initial(kCount);
  Mem data = buffer(expected);
  Event computed = launch(1, "affine", data, kCount);
  cl_int error = CL_SUCCESS;
  Event mapped, unmapped;
  auto *view = static_cast<uint32_t *>(
      clEnqueueMapBuffer(queues_[0], data, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                         kCount * sizeof(uint32_t), 1, computed.ptr(), mapped.out(), &error));
  ASSERT_CL_SUCCESS(error);
  for (size_t i = 0; i < kCount; ++i) {
    expected[i] = affine(expected[i], i);
    ASSERT_EQ(expected[i], view[i]) << "element " << i;
    view[i] = ~view[i];
    expected[i] = scramble(~expected[i]);
  }
  ASSERT_CL_SUCCESS(clEnqueueUnmapMemObject(queues_[0], data, view, 0, nullptr, unmapped.out()));
  Event mixed = launch(1, "scramble", data, kCount, {unmapped});
  EXPECT_TRUE(equalArrays(expected, readBack(1, data, kCount, {mixed})));
}

TEST_F(MultiDeviceTest, UserEventGatesCommandsOfBothDevices) {
  constexpr size_t kCount = 8192;
  std::vector<uint32_t> expected = initial(kCount);
  Mem data = buffer(expected);
  Gate gate(context_);
  auto [onFirst, onSecond] = gatedChain(gate, data, kCount);
  EXPECT_TRUE(staysFalse([&] { return eventStatus(onFirst) <= CL_RUNNING; }));
  EXPECT_GT(eventStatus(onSecond), CL_RUNNING);
  ASSERT_CL_SUCCESS(gate.open());
  for (size_t i = 0; i < kCount; ++i)
    expected[i] = scramble(affine(expected[i], i));
  EXPECT_TRUE(equalArrays(expected, readBack(1, data, kCount, {onSecond})));
}

TEST_F(MultiDeviceTest, FailedEventOnOneDeviceFailsWhatWaitsForItOnTheOther) {
  constexpr size_t kCount = 1024;
  std::vector<uint32_t> original = initial(kCount);
  Mem data = buffer(original);
  Gate gate(context_);
  auto [onFirst, onSecond] = gatedChain(gate, data, kCount);
  ASSERT_CL_SUCCESS(gate.fail(-77));
  ASSERT_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(1, onSecond.ptr()));
  EXPECT_GT(0, eventStatus(onFirst));
  EXPECT_GT(0, eventStatus(onSecond));
  // Neither kernel ran.
  EXPECT_TRUE(equalArrays(original, readBack(1, data, kCount)));
}

TEST_F(MultiDeviceTest, MigrationToEitherDeviceKeepsTheContents) {
  constexpr size_t kCount = 1 << 14;
  std::vector<uint32_t> expected = initial(kCount);
  Mem data = buffer(expected);
  cl_mem list[] = {data};
  Event there, computed, back;
  ASSERT_CL_SUCCESS(clEnqueueMigrateMemObjects(queues_[1], 1, list, 0, 0, nullptr, there.out()));
  computed = launch(1, "affine", data, kCount, {there});
  ASSERT_CL_SUCCESS(
      clEnqueueMigrateMemObjects(queues_[0], 1, list, 0, 1, computed.ptr(), back.out()));
  Event mixed = launch(0, "scramble", data, kCount, {back});
  for (size_t i = 0; i < kCount; ++i)
    expected[i] = scramble(affine(expected[i], i));
  EXPECT_TRUE(equalArrays(expected, readBack(1, data, kCount, {mixed})));
}

TEST_F(MultiDeviceTest, ProfilingTimesOfBothDevicesAreOnOneClock) {
  constexpr size_t kCount = 1 << 16;
  Mem data = buffer(initial(kCount));
  for (int round = 0; round < 8; ++round) {
    Event first = launch(round % 2, "affine", data, kCount);
    Event second = launch(1 - round % 2, "scramble", data, kCount, {first});
    ASSERT_CL_SUCCESS(clWaitForEvents(1, second.ptr()));
    auto time = [](cl_event event, cl_profiling_info which) {
      cl_ulong value = 0;
      EXPECT_CL_SUCCESS(clGetEventProfilingInfo(event, which, sizeof value, &value, nullptr));
      return value;
    };
    // The second command was submitted once the first had completed on the other device.
    EXPECT_LE(time(first, CL_PROFILING_COMMAND_END), time(second, CL_PROFILING_COMMAND_START))
        << "round " << round;
    EXPECT_LE(time(first, CL_PROFILING_COMMAND_QUEUED), time(second, CL_PROFILING_COMMAND_QUEUED));
    EXPECT_LE(time(second, CL_PROFILING_COMMAND_START), time(second, CL_PROFILING_COMMAND_END));
  }
}

TEST_F(MultiDeviceTest, ImageWrittenOnOneDeviceIsSampledOnTheOther) {
  for (const Device &device : devices_)
    if (!deviceInfo<cl_bool>(device, CL_DEVICE_IMAGE_SUPPORT))
      GTEST_SKIP() << "a device has no images";
  constexpr size_t kWidth = 67, kHeight = 33;
  Program images = buildForBoth(kImageSource);
  ASSERT_NE(nullptr, images.get());
  cl_image_format format{CL_RGBA, CL_UNSIGNED_INT16};
  cl_image_desc description{};
  description.image_type = CL_MEM_OBJECT_IMAGE2D;
  description.image_width = kWidth;
  description.image_height = kHeight;
  cl_int error = CL_SUCCESS;
  Mem image(clCreateImage(context_, CL_MEM_READ_WRITE, &format, &description, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  Mem out(clCreateBuffer(context_, CL_MEM_READ_WRITE, kWidth * kHeight * 4 * sizeof(uint32_t),
                         nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  for (int writer = 0; writer < 2; ++writer) {
    Kernel paint = createKernel(images, "paint");
    Kernel sample = createKernel(images, "sample");
    // Each round paints other contents, so a stale copy of the first round's would show.
    const cl_uint salt = 7 + 100 * writer;
    ASSERT_TRUE(setArgs(paint, image, salt));
    ASSERT_TRUE(setArgs(sample, image, out, static_cast<cl_int>(kWidth)));
    size_t global[] = {kWidth, kHeight};
    Event painted, sampled;
    ASSERT_CL_SUCCESS(clEnqueueNDRangeKernel(queues_[writer], paint, 2, nullptr, global, nullptr, 0,
                                             nullptr, painted.out()));
    ASSERT_CL_SUCCESS(clEnqueueNDRangeKernel(queues_[1 - writer], sample, 2, nullptr, global,
                                             nullptr, 1, painted.ptr(), sampled.out()));
    std::vector<uint32_t> expected;
    for (uint32_t y = 0; y < kHeight; ++y)
      for (uint32_t x = 0; x < kWidth; ++x)
        expected.insert(expected.end(), {x, y, x ^ y, salt});
    std::vector<uint32_t> actual(expected.size());
    ASSERT_CL_SUCCESS(clEnqueueReadBuffer(queues_[writer], out, CL_TRUE, 0,
                                          actual.size() * sizeof(uint32_t), actual.data(), 1,
                                          sampled.ptr(), nullptr));
    EXPECT_TRUE(equalArrays(expected, actual)) << "written on device " << writer;
  }
}

} // namespace

namespace {

const char *kSvmSource = R"(
  kernel void affineSvm(global uint *data) {
    size_t i = get_global_id(0);
    data[i] = data[i] * 3u + (uint)i;
  }
  kernel void count(global atomic_int *counter, int perItem) {
    for (int k = 0; k < perItem; ++k)
      atomic_fetch_add_explicit(counter, 1, memory_order_relaxed, memory_scope_all_svm_devices);
  }
)";

cl_device_svm_capabilities svmOf(cl_device_id device) {
  return deviceInfo<cl_device_svm_capabilities>(device, CL_DEVICE_SVM_CAPABILITIES);
}

} // namespace

// One SVM allocation, used by a kernel of each device in turn and by the host in between.
TEST_F(MultiDeviceTest, SvmAllocationIsOneAddressForBothDevicesAndTheHost) {
  if ((svmOf(devices_[0]) & svmOf(devices_[1]) & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) == 0)
    GTEST_SKIP() << "a device has no SVM";
  Program program = buildForBoth(kSvmSource, "-cl-std=CL3.0");
  ASSERT_NE(nullptr, program.get());
  Kernel kernel = createKernel(program, "affineSvm");
  constexpr size_t kCount = 1 << 14;
  auto *data = static_cast<uint32_t *>(
      clSVMAlloc(context_, CL_MEM_READ_WRITE, kCount * sizeof(uint32_t), 0));
  ASSERT_NE(nullptr, data);
  std::vector<uint32_t> expected = initial(kCount);
  ASSERT_CL_SUCCESS(clEnqueueSVMMemcpy(queues_[0], CL_TRUE, data, expected.data(),
                                       kCount * sizeof(uint32_t), 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(kernel, 0, data));
  for (int round = 0; round < 4; ++round) {
    Event done;
    ASSERT_CL_SUCCESS(clEnqueueNDRangeKernel(queues_[round % 2], kernel, 1, nullptr, &kCount,
                                             nullptr, 0, nullptr, done.out()));
    ASSERT_CL_SUCCESS(clFinish(queues_[round % 2]));
    for (size_t i = 0; i < kCount; ++i)
      expected[i] = affine(expected[i], i);
    // The host looks between the devices' turns, through a map on the queue that ran last.
    ASSERT_CL_SUCCESS(clEnqueueSVMMap(queues_[round % 2], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, data,
                                      kCount * sizeof(uint32_t), 0, nullptr, nullptr));
    ASSERT_TRUE(equalArrays(expected, std::vector<uint32_t>(data, data + kCount))) << round;
    data[0] = expected[0] = 12345u + round;
    ASSERT_CL_SUCCESS(clEnqueueSVMUnmap(queues_[round % 2], data, 0, nullptr, nullptr));
  }
  clSVMFree(context_, data);
}

// Kernels of both devices and a host thread add to one fine-grained counter at the same time.
TEST_F(MultiDeviceTest, FineGrainedSvmAtomicsAreSharedByBothDevicesAndTheHost) {
  cl_device_svm_capabilities both = svmOf(devices_[0]) & svmOf(devices_[1]);
  if ((both & (CL_DEVICE_SVM_FINE_GRAIN_BUFFER | CL_DEVICE_SVM_ATOMICS)) !=
      (CL_DEVICE_SVM_FINE_GRAIN_BUFFER | CL_DEVICE_SVM_ATOMICS))
    GTEST_SKIP() << "a device has no SVM atomics";
  Program program = buildForBoth(kSvmSource, "-cl-std=CL3.0");
  ASSERT_NE(nullptr, program.get());
  auto *counter = static_cast<int *>(
      clSVMAlloc(context_, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
                 sizeof(int), 0));
  ASSERT_NE(nullptr, counter);
  *counter = 0;
  constexpr int kPerItem = 100, kHostAdds = 100000;
  constexpr size_t kItems = 2048;
  Kernel kernels[2] = {createKernel(program, "count"), createKernel(program, "count")};
  Event done[2];
  for (int which = 0; which < 2; ++which) {
    ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(kernels[which], 0, counter));
    ASSERT_CL_SUCCESS(clSetKernelArg(kernels[which], 1, sizeof kPerItem, &kPerItem));
    ASSERT_CL_SUCCESS(clEnqueueNDRangeKernel(queues_[which], kernels[which], 1, nullptr, &kItems,
                                             nullptr, 0, nullptr, done[which].out()));
    ASSERT_CL_SUCCESS(clFlush(queues_[which]));
  }
  std::atomic_ref<int> shared(*counter);
  for (int k = 0; k < kHostAdds; ++k)
    shared.fetch_add(1, std::memory_order_relaxed);
  cl_event finished[] = {done[0].get(), done[1].get()};
  ASSERT_CL_SUCCESS(clWaitForEvents(2, finished));
  EXPECT_EQ(2 * static_cast<int>(kItems) * kPerItem + kHostAdds, shared.load());
  clSVMFree(context_, counter);
}
