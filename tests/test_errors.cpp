// Invalid handles across the whole API: every entry point given a NULL, a foreign (an object the
// implementation never created) or a mistyped (a live object of another type) handle answers
// with the CL_INVALID_<object> error the specification names, and never crashes.
#include "cl_test.hpp"

#include <functional>
#include <set>

using namespace cltest;

namespace {

struct Case {
  const char *call;
  cl_int expected;
  std::function<cl_int()> run;
};

/// Runs `call` for a creation function and returns its error code.
template <typename F> cl_int errorOf(F &&call) {
  cl_int error = CL_SUCCESS;
  call(&error);
  return error;
}

void CL_CALLBACK ignoreMem(cl_mem, void *) {}
void CL_CALLBACK ignoreContext(cl_context, void *) {}
void CL_CALLBACK ignoreEvent(cl_event, cl_int, void *) {}
void CL_CALLBACK ignoreNative(void *) {}

class HandleErrorTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    buffer_ = createBuffer(CL_MEM_READ_WRITE, 256);
    const char *source = "kernel void k(global int *p) { p[0] = 1; }";
    cl_int error = CL_SUCCESS;
    program_ = Program(clCreateProgramWithSource(context_, 1, &source, nullptr, &error));
    ASSERT_CL_SUCCESS(error);
    event_ = userEvent();
    ASSERT_CL_SUCCESS(clSetUserEventStatus(event_, CL_COMPLETE));
  }

  /// Every entry point that takes the given handles, with otherwise valid arguments.
  std::vector<Case> cases(cl_platform_id platform, cl_device_id device, cl_context context,
                          cl_command_queue queue, cl_mem mem, cl_program program, cl_kernel kernel,
                          cl_event event) {
    static char host[256];
    static size_t size;
    static cl_uint count;
    static size_t origin[3] = {0, 0, 0}, region[3] = {4, 1, 1}, global = 1;
    static int pattern = 0;
    const char *source = "kernel void k() {}";
    const unsigned char *binary = reinterpret_cast<const unsigned char *>(source);
    size_t length = 8;
    cl_mem goodMem = buffer_;
    cl_command_queue goodQueue = queue_;
    cl_device_id goodDevice = device_;
    cl_buffer_region bufferRegion{0, 64};
    cl_image_format format{CL_RGBA, CL_UNORM_INT8};
    cl_image_desc desc{};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = desc.image_height = 4;
    return {
        // Platforms
        {"clGetPlatformInfo", CL_INVALID_PLATFORM,
         [=] { return clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof host, host, &size); }},
        {"clGetDeviceIDs", CL_INVALID_PLATFORM,
         [=] { return clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count); }},
        {"clUnloadPlatformCompiler", CL_INVALID_PLATFORM,
         [=] { return clUnloadPlatformCompiler(platform); }},
        // Devices
        {"clGetDeviceInfo", CL_INVALID_DEVICE,
         [=] { return clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof host, host, &size); }},
        {"clRetainDevice", CL_INVALID_DEVICE, [=] { return clRetainDevice(device); }},
        {"clReleaseDevice", CL_INVALID_DEVICE, [=] { return clReleaseDevice(device); }},
        {"clCreateSubDevices", CL_INVALID_DEVICE,
         [=] {
           cl_device_partition_property properties[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
           return clCreateSubDevices(device, properties, 0, nullptr, &count);
         }},
        {"clGetHostTimer", CL_INVALID_DEVICE,
         [=] {
           cl_ulong time;
           return clGetHostTimer(device, &time);
         }},
        // Contexts
        {"clRetainContext", CL_INVALID_CONTEXT, [=] { return clRetainContext(context); }},
        {"clReleaseContext", CL_INVALID_CONTEXT, [=] { return clReleaseContext(context); }},
        {"clGetContextInfo", CL_INVALID_CONTEXT,
         [=] {
           return clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, nullptr);
         }},
        {"clSetContextDestructorCallback", CL_INVALID_CONTEXT,
         [=] { return clSetContextDestructorCallback(context, ignoreContext, nullptr); }},
        {"clCreateCommandQueueWithProperties", CL_INVALID_CONTEXT,
         [=] {
           return errorOf([&](cl_int *e) {
             return clCreateCommandQueueWithProperties(context, goodDevice, nullptr, e);
           });
         }},
        {"clCreateCommandQueue", CL_INVALID_CONTEXT,
         [=] {
           return errorOf(
               [&](cl_int *e) { return clCreateCommandQueue(context, goodDevice, 0, e); });
         }},
        {"clCreateBuffer", CL_INVALID_CONTEXT,
         [=] {
           return errorOf([&](cl_int *e) {
             return clCreateBuffer(context, CL_MEM_READ_WRITE, 64, nullptr, e);
           });
         }},
        {"clCreateBufferWithProperties", CL_INVALID_CONTEXT,
         [=] {
           return errorOf([&](cl_int *e) {
             return clCreateBufferWithProperties(context, nullptr, CL_MEM_READ_WRITE, 64, nullptr,
                                                 e);
           });
         }},
        {"clCreateImage", CL_INVALID_CONTEXT,
         [=] {
           return errorOf([&](cl_int *e) {
             return clCreateImage(context, CL_MEM_READ_WRITE, &format, &desc, nullptr, e);
           });
         }},
        {"clCreateSamplerWithProperties", CL_INVALID_CONTEXT,
         [=] {
           return errorOf(
               [&](cl_int *e) { return clCreateSamplerWithProperties(context, nullptr, e); });
         }},
        {"clGetSupportedImageFormats", CL_INVALID_CONTEXT,
         [=] {
           return clGetSupportedImageFormats(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0,
                                             nullptr, &count);
         }},
        {"clCreateUserEvent", CL_INVALID_CONTEXT,
         [=] { return errorOf([&](cl_int *e) { return clCreateUserEvent(context, e); }); }},
        {"clCreateProgramWithSource", CL_INVALID_CONTEXT,
         [=] {
           return errorOf([&](cl_int *e) {
             const char *text = source;
             return clCreateProgramWithSource(context, 1, &text, nullptr, e);
           });
         }},
        {"clCreateProgramWithBinary", CL_INVALID_CONTEXT,
         [=] {
           return errorOf([&](cl_int *e) {
             const unsigned char *bytes = binary;
             size_t size = length;
             cl_device_id target = goodDevice;
             return clCreateProgramWithBinary(context, 1, &target, &size, &bytes, nullptr, e);
           });
         }},
        {"clCreateProgramWithIL", CL_INVALID_CONTEXT,
         [=] {
           return errorOf([&](cl_int *e) { return clCreateProgramWithIL(context, source, 16, e); });
         }},
        // Queues
        {"clRetainCommandQueue", CL_INVALID_COMMAND_QUEUE,
         [=] { return clRetainCommandQueue(queue); }},
        {"clReleaseCommandQueue", CL_INVALID_COMMAND_QUEUE,
         [=] { return clReleaseCommandQueue(queue); }},
        {"clGetCommandQueueInfo", CL_INVALID_COMMAND_QUEUE,
         [=] {
           return clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof count, &count,
                                        nullptr);
         }},
        {"clFlush", CL_INVALID_COMMAND_QUEUE, [=] { return clFlush(queue); }},
        {"clFinish", CL_INVALID_COMMAND_QUEUE, [=] { return clFinish(queue); }},
        {"clEnqueueReadBuffer", CL_INVALID_COMMAND_QUEUE,
         [=] {
           return clEnqueueReadBuffer(queue, goodMem, CL_TRUE, 0, 4, host, 0, nullptr, nullptr);
         }},
        {"clEnqueueWriteBuffer", CL_INVALID_COMMAND_QUEUE,
         [=] {
           return clEnqueueWriteBuffer(queue, goodMem, CL_TRUE, 0, 4, host, 0, nullptr, nullptr);
         }},
        {"clEnqueueCopyBuffer", CL_INVALID_COMMAND_QUEUE,
         [=] {
           return clEnqueueCopyBuffer(queue, goodMem, goodMem, 0, 8, 4, 0, nullptr, nullptr);
         }},
        {"clEnqueueFillBuffer", CL_INVALID_COMMAND_QUEUE,
         [=] {
           return clEnqueueFillBuffer(queue, goodMem, &pattern, sizeof pattern, 0, 4, 0, nullptr,
                                      nullptr);
         }},
        {"clEnqueueReadBufferRect", CL_INVALID_COMMAND_QUEUE,
         [=] {
           return clEnqueueReadBufferRect(queue, goodMem, CL_TRUE, origin, origin, region, 0, 0, 0,
                                          0, host, 0, nullptr, nullptr);
         }},
        {"clEnqueueWriteBufferRect", CL_INVALID_COMMAND_QUEUE,
         [=] {
           return clEnqueueWriteBufferRect(queue, goodMem, CL_TRUE, origin, origin, region, 0, 0, 0,
                                           0, host, 0, nullptr, nullptr);
         }},
        {"clEnqueueCopyBufferRect", CL_INVALID_COMMAND_QUEUE,
         [=] {
           size_t to[3] = {8, 0, 0};
           return clEnqueueCopyBufferRect(queue, goodMem, goodMem, origin, to, region, 0, 0, 0, 0,
                                          0, nullptr, nullptr);
         }},
        {"clEnqueueMapBuffer", CL_INVALID_COMMAND_QUEUE,
         [=] {
           return errorOf([&](cl_int *e) {
             return clEnqueueMapBuffer(queue, goodMem, CL_TRUE, CL_MAP_READ, 0, 4, 0, nullptr,
                                       nullptr, e);
           });
         }},
        {"clEnqueueUnmapMemObject", CL_INVALID_COMMAND_QUEUE,
         [=] { return clEnqueueUnmapMemObject(queue, goodMem, host, 0, nullptr, nullptr); }},
        {"clEnqueueMigrateMemObjects", CL_INVALID_COMMAND_QUEUE,
         [=] {
           cl_mem list[] = {goodMem};
           return clEnqueueMigrateMemObjects(queue, 1, list, 0, 0, nullptr, nullptr);
         }},
        {"clEnqueueMarkerWithWaitList", CL_INVALID_COMMAND_QUEUE,
         [=] { return clEnqueueMarkerWithWaitList(queue, 0, nullptr, nullptr); }},
        {"clEnqueueBarrierWithWaitList", CL_INVALID_COMMAND_QUEUE,
         [=] { return clEnqueueBarrierWithWaitList(queue, 0, nullptr, nullptr); }},
        {"clEnqueueMarker", CL_INVALID_COMMAND_QUEUE,
         [=] {
           cl_event out = nullptr;
           return clEnqueueMarker(queue, &out);
         }},
        {"clEnqueueBarrier", CL_INVALID_COMMAND_QUEUE, [=] { return clEnqueueBarrier(queue); }},
        {"clEnqueueNativeKernel", CL_INVALID_COMMAND_QUEUE,
         [=] {
           return clEnqueueNativeKernel(queue, ignoreNative, nullptr, 0, 0, nullptr, nullptr, 0,
                                        nullptr, nullptr);
         }},
        // Memory objects
        {"clRetainMemObject", CL_INVALID_MEM_OBJECT, [=] { return clRetainMemObject(mem); }},
        {"clReleaseMemObject", CL_INVALID_MEM_OBJECT, [=] { return clReleaseMemObject(mem); }},
        {"clGetMemObjectInfo", CL_INVALID_MEM_OBJECT,
         [=] { return clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, nullptr); }},
        {"clSetMemObjectDestructorCallback", CL_INVALID_MEM_OBJECT,
         [=] { return clSetMemObjectDestructorCallback(mem, ignoreMem, nullptr); }},
        {"clCreateSubBuffer", CL_INVALID_MEM_OBJECT,
         [=] {
           return errorOf([&](cl_int *e) {
             return clCreateSubBuffer(mem, 0, CL_BUFFER_CREATE_TYPE_REGION, &bufferRegion, e);
           });
         }},
        {"clEnqueueReadBuffer(mem)", CL_INVALID_MEM_OBJECT,
         [=] {
           return clEnqueueReadBuffer(goodQueue, mem, CL_TRUE, 0, 4, host, 0, nullptr, nullptr);
         }},
        {"clEnqueueWriteBuffer(mem)", CL_INVALID_MEM_OBJECT,
         [=] {
           return clEnqueueWriteBuffer(goodQueue, mem, CL_TRUE, 0, 4, host, 0, nullptr, nullptr);
         }},
        {"clEnqueueCopyBuffer(mem)", CL_INVALID_MEM_OBJECT,
         [=] {
           return clEnqueueCopyBuffer(goodQueue, goodMem, mem, 0, 0, 4, 0, nullptr, nullptr);
         }},
        {"clEnqueueFillBuffer(mem)", CL_INVALID_MEM_OBJECT,
         [=] {
           return clEnqueueFillBuffer(goodQueue, mem, &pattern, sizeof pattern, 0, 4, 0, nullptr,
                                      nullptr);
         }},
        {"clEnqueueMapBuffer(mem)", CL_INVALID_MEM_OBJECT,
         [=] {
           return errorOf([&](cl_int *e) {
             return clEnqueueMapBuffer(goodQueue, mem, CL_TRUE, CL_MAP_READ, 0, 4, 0, nullptr,
                                       nullptr, e);
           });
         }},
        {"clEnqueueUnmapMemObject(mem)", CL_INVALID_MEM_OBJECT,
         [=] { return clEnqueueUnmapMemObject(goodQueue, mem, host, 0, nullptr, nullptr); }},
        // Programs
        {"clRetainProgram", CL_INVALID_PROGRAM, [=] { return clRetainProgram(program); }},
        {"clReleaseProgram", CL_INVALID_PROGRAM, [=] { return clReleaseProgram(program); }},
        {"clGetProgramInfo", CL_INVALID_PROGRAM,
         [=] {
           return clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof count, &count, nullptr);
         }},
        {"clGetProgramBuildInfo", CL_INVALID_PROGRAM,
         [=] {
           cl_build_status status;
           return clGetProgramBuildInfo(program, goodDevice, CL_PROGRAM_BUILD_STATUS, sizeof status,
                                        &status, nullptr);
         }},
        {"clBuildProgram", CL_INVALID_PROGRAM,
         [=] { return clBuildProgram(program, 0, nullptr, nullptr, nullptr, nullptr); }},
        {"clCompileProgram", CL_INVALID_PROGRAM,
         [=] {
           return clCompileProgram(program, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr,
                                   nullptr);
         }},
        {"clCreateKernel", CL_INVALID_PROGRAM,
         [=] { return errorOf([&](cl_int *e) { return clCreateKernel(program, "k", e); }); }},
        {"clCreateKernelsInProgram", CL_INVALID_PROGRAM,
         [=] { return clCreateKernelsInProgram(program, 0, nullptr, &count); }},
        // Kernels
        {"clRetainKernel", CL_INVALID_KERNEL, [=] { return clRetainKernel(kernel); }},
        {"clReleaseKernel", CL_INVALID_KERNEL, [=] { return clReleaseKernel(kernel); }},
        {"clGetKernelInfo", CL_INVALID_KERNEL,
         [=] {
           return clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof count, &count, nullptr);
         }},
        {"clGetKernelWorkGroupInfo", CL_INVALID_KERNEL,
         [=] {
           return clGetKernelWorkGroupInfo(kernel, goodDevice, CL_KERNEL_WORK_GROUP_SIZE,
                                           sizeof size, &size, nullptr);
         }},
        {"clGetKernelArgInfo", CL_INVALID_KERNEL,
         [=] {
           return clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_NAME, sizeof host, host, nullptr);
         }},
        {"clSetKernelArg", CL_INVALID_KERNEL,
         [=] { return clSetKernelArg(kernel, 0, sizeof goodMem, &goodMem); }},
        {"clCloneKernel", CL_INVALID_KERNEL,
         [=] { return errorOf([&](cl_int *e) { return clCloneKernel(kernel, e); }); }},
        {"clEnqueueNDRangeKernel", CL_INVALID_KERNEL,
         [=] {
           return clEnqueueNDRangeKernel(goodQueue, kernel, 1, nullptr, &global, nullptr, 0,
                                         nullptr, nullptr);
         }},
        {"clEnqueueTask", CL_INVALID_KERNEL,
         [=] { return clEnqueueTask(goodQueue, kernel, 0, nullptr, nullptr); }},
        // Events
        {"clRetainEvent", CL_INVALID_EVENT, [=] { return clRetainEvent(event); }},
        {"clReleaseEvent", CL_INVALID_EVENT, [=] { return clReleaseEvent(event); }},
        {"clGetEventInfo", CL_INVALID_EVENT,
         [=] {
           cl_int status;
           return clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                                 nullptr);
         }},
        {"clGetEventProfilingInfo", CL_INVALID_EVENT,
         [=] {
           cl_ulong time;
           return clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof time, &time,
                                          nullptr);
         }},
        {"clSetEventCallback", CL_INVALID_EVENT,
         [=] { return clSetEventCallback(event, CL_COMPLETE, ignoreEvent, nullptr); }},
        {"clSetUserEventStatus", CL_INVALID_EVENT,
         [=] { return clSetUserEventStatus(event, CL_COMPLETE); }},
        {"clWaitForEvents", CL_INVALID_EVENT, [=] { return clWaitForEvents(1, &event); }},
        {"clEnqueueMarkerWithWaitList(event)", CL_INVALID_EVENT_WAIT_LIST,
         [=] {
           cl_event list[] = {event};
           return clEnqueueMarkerWithWaitList(goodQueue, 1, list, nullptr);
         }},
        {"clEnqueueReadBuffer(event)", CL_INVALID_EVENT_WAIT_LIST,
         [=] {
           cl_event list[] = {event};
           return clEnqueueReadBuffer(goodQueue, goodMem, CL_TRUE, 0, 4, host, 1, list, nullptr);
         }},
    };
  }

  void check(const std::vector<Case> &list, const std::set<std::string> &skip = {}) {
    for (const Case &c : list) {
      if (skip.count(c.call))
        continue;
      if (std::getenv("KILN_TESTS_TRACE") != nullptr)
        std::fprintf(stderr, "calling %s\n", c.call);
      EXPECT_CL_ERROR(c.expected, c.run()) << "in " << c.call;
    }
    ASSERT_CL_SUCCESS(clFinish(queue_));
  }

  Mem buffer_;
  Program program_;
  Event event_;
};

} // namespace

TEST_F(HandleErrorTest, NullHandles) {
  // A NULL platform selects an implementation-defined platform (the loader's default), so the
  // platform entries are left out.
  std::set<std::string> skip = {"clGetPlatformInfo", "clGetDeviceIDs", "clUnloadPlatformCompiler"};
  if (isPocl()) // PoCL 3.1 crashes on these NULL arguments
    skip.insert({"clEnqueueNDRangeKernel", "clEnqueueTask"});
  check(cases(platform_, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr), skip);
}

TEST_F(HandleErrorTest, ForeignHandles) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  ForeignObject platform, device, context, queue, mem, program, kernel, event;
  check(cases(platform.as<cl_platform_id>(platform_), device.as<cl_device_id>(device_),
              context.as<cl_context>(context_.get()), queue.as<cl_command_queue>(queue_.get()),
              mem.as<cl_mem>(buffer_.get()), program.as<cl_program>(program_.get()),
              kernel.as<cl_kernel>(program_.get()), event.as<cl_event>(event_.get())));
}

TEST_F(HandleErrorTest, MistypedHandles) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  // Live objects of other types, each in the place of the next.
  check(cases(
      reinterpret_cast<cl_platform_id>(context_.get()),
      reinterpret_cast<cl_device_id>(queue_.get()), reinterpret_cast<cl_context>(buffer_.get()),
      reinterpret_cast<cl_command_queue>(program_.get()), reinterpret_cast<cl_mem>(event_.get()),
      reinterpret_cast<cl_program>(context_.get()), reinterpret_cast<cl_kernel>(buffer_.get()),
      reinterpret_cast<cl_event>(queue_.get())));
}

TEST_F(HandleErrorTest, NullSamplerIsInvalidSampler) {
  cl_uint value = 0;
  EXPECT_CL_ERROR(CL_INVALID_SAMPLER, clRetainSampler(nullptr));
  EXPECT_CL_ERROR(CL_INVALID_SAMPLER, clReleaseSampler(nullptr));
  EXPECT_CL_ERROR(CL_INVALID_SAMPLER, clGetSamplerInfo(nullptr, CL_SAMPLER_REFERENCE_COUNT,
                                                       sizeof value, &value, nullptr));
}

TEST_F(HandleErrorTest, ReleasedRetainedObjectStaysValid) {
  // Retain/release pairs leave the object usable: after clRetain + clRelease the application
  // still holds its own reference.
  ASSERT_CL_SUCCESS(clRetainMemObject(buffer_));
  ASSERT_CL_SUCCESS(clReleaseMemObject(buffer_));
  size_t size = 0;
  EXPECT_CL_SUCCESS(clGetMemObjectInfo(buffer_, CL_MEM_SIZE, sizeof size, &size, nullptr));
  EXPECT_EQ(256u, size);
}

// ---------------------------------------------------------------------------------------------
// Entry points of optional features the device does not support

namespace {

class UnsupportedFeatureTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    kernel_ = buildKernel("kernel void k(global int *p) { p[0] = 1; }", "k");
  }
  Kernel kernel_;
};

} // namespace

TEST_F(UnsupportedFeatureTest, SvmEntryPointsWithoutSvm) {
  if (deviceInfo<cl_device_svm_capabilities>(device_, CL_DEVICE_SVM_CAPABILITIES) != 0)
    GTEST_SKIP() << "the device supports SVM";
  ASSERT_NE(nullptr, kernel_.get());
  int source[16] = {}, destination[16] = {}, pattern = 0;
  void *pointers[] = {destination};
  const void *constPointers[] = {destination};
  size_t sizes[] = {sizeof destination};
  // "CL_INVALID_OPERATION if the device associated with command_queue does not support SVM."
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, clEnqueueSVMMemcpy(queue_, CL_TRUE, destination, source,
                                                           sizeof source, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION,
                  clEnqueueSVMMemFill(queue_, destination, &pattern, sizeof pattern,
                                      sizeof destination, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, clEnqueueSVMMap(queue_, CL_TRUE, CL_MAP_READ, destination,
                                                        sizeof destination, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION,
                  clEnqueueSVMUnmap(queue_, destination, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION,
                  clEnqueueSVMFree(queue_, 1, pointers, nullptr, nullptr, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION,
                  clEnqueueSVMMigrateMem(queue_, 1, constPointers, sizes, 0, 0, nullptr, nullptr));
  // "CL_INVALID_OPERATION if no devices in the context associated with kernel support SVM."
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, clSetKernelArgSVMPointer(kernel_, 0, destination));
  // clSetKernelExecInfo: "CL_INVALID_OPERATION if param_name is CL_KERNEL_EXEC_INFO_SVM_PTRS and
  // no devices in the context associated with kernel support SVM", and for
  // CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM only "if ... param_value is CL_TRUE".
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, clSetKernelExecInfo(kernel_, CL_KERNEL_EXEC_INFO_SVM_PTRS,
                                                            sizeof pointers, pointers));
  cl_bool yes = CL_TRUE, no = CL_FALSE;
  EXPECT_CL_ERROR(
      CL_INVALID_OPERATION,
      clSetKernelExecInfo(kernel_, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof yes, &yes));
  EXPECT_CL_SUCCESS(
      clSetKernelExecInfo(kernel_, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof no, &no));
  // "CL_INVALID_VALUE if param_name is not valid".
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clSetKernelExecInfo(kernel_, 0x7FFF, sizeof no, &no));
}

TEST_F(UnsupportedFeatureTest, SubGroupInfoWithoutSubGroups) {
  if (deviceInfo<cl_uint>(device_, CL_DEVICE_MAX_NUM_SUB_GROUPS) != 0)
    GTEST_SKIP() << "the device supports sub-groups";
  ASSERT_NE(nullptr, kernel_.get());
  size_t local = 1, value = 0;
  // "CL_INVALID_OPERATION if device does not support sub-groups."
  EXPECT_CL_ERROR(CL_INVALID_OPERATION,
                  clGetKernelSubGroupInfo(kernel_, device_,
                                          CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                                          &local, sizeof value, &value, nullptr));
}

TEST_F(UnsupportedFeatureTest, DefaultDeviceQueueWithoutDeviceEnqueue) {
  SKIP_ON_POCL("aborts in clSetDefaultDeviceCommandQueue (\"unimplemented\")");
  auto capabilities = deviceInfo<cl_device_device_enqueue_capabilities>(
      device_, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES);
  if (capabilities & CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT)
    GTEST_SKIP() << "the device has a replaceable default device queue";
  // "CL_INVALID_OPERATION if device does not support a replaceable default on-device queue".
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, clSetDefaultDeviceCommandQueue(context_, device_, queue_));
}

TEST_F(UnsupportedFeatureTest, ImageAndPipeCommandsOnNonImagesAreInvalidMemObject) {
  size_t origin[3] = {0, 0, 0}, region[3] = {1, 1, 1};
  char host[64];
  cl_uint value = 0;
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clEnqueueReadImage(queue_, nullptr, CL_TRUE, origin, region, 0, 0, host, 0,
                                     nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clEnqueueWriteImage(queue_, nullptr, CL_TRUE, origin, region, 0, 0, host, 0,
                                      nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clGetImageInfo(nullptr, CL_IMAGE_WIDTH, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clGetPipeInfo(nullptr, CL_PIPE_PACKET_SIZE, sizeof value, &value, nullptr));
}
