// The cl_khr_command_buffer (version 0.9.8) fixture the command buffer tests share: the extension's
// functions, found by name on the platform under test; the command buffer handle; the kernels the
// tests record; and the fixture itself, which skips where the device lacks the extension.
//
// The system's OpenCL headers (Debian's 2023.02) declare an older version of the extension, whose
// recording functions have no properties parameter: this file declares the 0.9.8 signatures.
#pragma once

#include "cl_test.hpp"

#include <cstring>
#include <type_traits>
#include <vector>

// Names of version 0.9.8 that the older headers lack.
typedef cl_properties cl_command_properties_khr;
#ifndef CL_COMMAND_BUFFER_CONTEXT_KHR
#define CL_COMMAND_BUFFER_CONTEXT_KHR 0x1299
#endif
#ifndef CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR
#define CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR 0x129A
#endif

namespace cbtest {

using namespace cltest;

using CreateCommandBufferFn = cl_command_buffer_khr(CL_API_CALL *)(
    cl_uint, const cl_command_queue *, const cl_command_buffer_properties_khr *, cl_int *);
/// clFinalizeCommandBufferKHR, clRetainCommandBufferKHR and clReleaseCommandBufferKHR.
using CommandBufferFn = cl_int(CL_API_CALL *)(cl_command_buffer_khr);
using EnqueueCommandBufferFn = cl_int(CL_API_CALL *)(cl_uint, cl_command_queue *,
                                                     cl_command_buffer_khr, cl_uint,
                                                     const cl_event *, cl_event *);
using CommandBarrierWithWaitListFn = cl_int(CL_API_CALL *)(cl_command_buffer_khr, cl_command_queue,
                                                           const cl_command_properties_khr *,
                                                           cl_uint, const cl_sync_point_khr *,
                                                           cl_sync_point_khr *,
                                                           cl_mutable_command_khr *);
using CommandCopyBufferFn = cl_int(CL_API_CALL *)(cl_command_buffer_khr, cl_command_queue,
                                                  const cl_command_properties_khr *, cl_mem, cl_mem,
                                                  size_t, size_t, size_t, cl_uint,
                                                  const cl_sync_point_khr *, cl_sync_point_khr *,
                                                  cl_mutable_command_khr *);
using CommandCopyBufferRectFn = cl_int(CL_API_CALL *)(
    cl_command_buffer_khr, cl_command_queue, const cl_command_properties_khr *, cl_mem, cl_mem,
    const size_t *, const size_t *, const size_t *, size_t, size_t, size_t, size_t, cl_uint,
    const cl_sync_point_khr *, cl_sync_point_khr *, cl_mutable_command_khr *);
using CommandFillBufferFn = cl_int(CL_API_CALL *)(cl_command_buffer_khr, cl_command_queue,
                                                  const cl_command_properties_khr *, cl_mem,
                                                  const void *, size_t, size_t, size_t, cl_uint,
                                                  const cl_sync_point_khr *, cl_sync_point_khr *,
                                                  cl_mutable_command_khr *);
using CommandNDRangeKernelFn = cl_int(CL_API_CALL *)(cl_command_buffer_khr, cl_command_queue,
                                                     const cl_command_properties_khr *, cl_kernel,
                                                     cl_uint, const size_t *, const size_t *,
                                                     const size_t *, cl_uint,
                                                     const cl_sync_point_khr *, cl_sync_point_khr *,
                                                     cl_mutable_command_khr *);
using CommandSVMMemcpyFn = cl_int(CL_API_CALL *)(cl_command_buffer_khr, cl_command_queue,
                                                 const cl_command_properties_khr *, void *,
                                                 const void *, size_t, cl_uint,
                                                 const cl_sync_point_khr *, cl_sync_point_khr *,
                                                 cl_mutable_command_khr *);
using CommandSVMMemFillFn = cl_int(CL_API_CALL *)(cl_command_buffer_khr, cl_command_queue,
                                                  const cl_command_properties_khr *, void *,
                                                  const void *, size_t, size_t, cl_uint,
                                                  const cl_sync_point_khr *, cl_sync_point_khr *,
                                                  cl_mutable_command_khr *);
using GetCommandBufferInfoFn = cl_int(CL_API_CALL *)(cl_command_buffer_khr,
                                                     cl_command_buffer_info_khr, size_t, void *,
                                                     size_t *);

/// The extension's functions, found by name on the platform under test (by the fixture).
struct CommandBufferFunctions {
  CreateCommandBufferFn create = nullptr;
  CommandBufferFn finalize = nullptr;
  CommandBufferFn retain = nullptr;
  CommandBufferFn release = nullptr;
  EnqueueCommandBufferFn enqueue = nullptr;
  CommandBarrierWithWaitListFn barrier = nullptr;
  CommandCopyBufferFn copy = nullptr;
  CommandCopyBufferRectFn copyRect = nullptr;
  CommandFillBufferFn fill = nullptr;
  CommandNDRangeKernelFn ndrange = nullptr;
  CommandSVMMemcpyFn svmMemcpy = nullptr;
  CommandSVMMemFillFn svmMemFill = nullptr;
  GetCommandBufferInfoFn info = nullptr;
};
inline CommandBufferFunctions khr;

} // namespace cbtest

// Handle<cl_command_buffer_khr> retains and releases through the functions found above.
namespace cltest {
template <> struct HandleTraits<cl_command_buffer_khr> {
  static cl_int retain(cl_command_buffer_khr buffer) { return cbtest::khr.retain(buffer); }
  static cl_int release(cl_command_buffer_khr buffer) { return cbtest::khr.release(buffer); }
};
} // namespace cltest

namespace cbtest {

using CommandBuffer = Handle<cl_command_buffer_khr>;

inline constexpr const char *kSource = R"(
    kernel void step(global int *a) {
      size_t i = get_global_id(0);
      a[i] = a[i] * 2 + 1;
    }
    kernel void add(global int *a, int value) {
      a[get_global_id(0)] += value;
    }
    kernel void produce(global int *out, int scale) {
      size_t i = get_global_id(0);
      out[i] = (int)i * scale;
    }
    kernel void sum(global const int *a, global const int *b, global int *out) {
      size_t i = get_global_id(0);
      out[i] = a[i] + b[i];
    }
    kernel void mix(global uint *a, uint k) {
      size_t i = get_global_id(0);
      a[i] = (a[i] ^ k) * 1664525u + (uint)i;
    })";

/// The host's `mix`.
inline void mix(std::vector<cl_uint> &a, cl_uint k) {
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = (a[i] ^ k) * 1664525u + static_cast<cl_uint>(i);
}

/// A wait list's pointer: null for an empty list, as the API wants.
template <typename T> const T *listData(const std::vector<T> &list) {
  return list.empty() ? nullptr : list.data();
}

class CommandBufferTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (!hasExtension(device_, "cl_khr_command_buffer"))
      GTEST_SKIP() << "no cl_khr_command_buffer";
    ASSERT_EQ(cl_version{CL_MAKE_VERSION(0, 9, 8)}, extensionVersion("cl_khr_command_buffer"))
        << "these tests call the functions of version 0.9.8";
    auto find = [&](auto &function, const char *name) {
      function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
          clGetExtensionFunctionAddressForPlatform(platform_, name));
      ASSERT_NE(nullptr, reinterpret_cast<void *>(function)) << name;
    };
    find(khr.create, "clCreateCommandBufferKHR");
    find(khr.finalize, "clFinalizeCommandBufferKHR");
    find(khr.retain, "clRetainCommandBufferKHR");
    find(khr.release, "clReleaseCommandBufferKHR");
    find(khr.enqueue, "clEnqueueCommandBufferKHR");
    find(khr.barrier, "clCommandBarrierWithWaitListKHR");
    find(khr.copy, "clCommandCopyBufferKHR");
    find(khr.copyRect, "clCommandCopyBufferRectKHR");
    find(khr.fill, "clCommandFillBufferKHR");
    find(khr.ndrange, "clCommandNDRangeKernelKHR");
    find(khr.info, "clGetCommandBufferInfoKHR");
    // The SVM commands exist where the device has SVM (SvmFillAndCopy asks for them).
    khr.svmMemcpy = reinterpret_cast<CommandSVMMemcpyFn>(
        clGetExtensionFunctionAddressForPlatform(platform_, "clCommandSVMMemcpyKHR"));
    khr.svmMemFill = reinterpret_cast<CommandSVMMemFillFn>(
        clGetExtensionFunctionAddressForPlatform(platform_, "clCommandSVMMemFillKHR"));

    required_ = deviceInfo<cl_command_queue_properties>(
        device_, CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR);
    supported_ = deviceInfo<cl_command_queue_properties>(
        device_, CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR);
    // The fixture's in-order queue, with the properties replays require.
    if (required_ != 0)
      queue_ = queueWith(required_);
    program_ = build(kSource);
    ASSERT_TRUE(program_);
  }

  cl_version extensionVersion(const char *name) {
    for (const cl_name_version &entry :
         deviceArray<cl_name_version>(device_, CL_DEVICE_EXTENSIONS_WITH_VERSION))
      if (std::strcmp(entry.name, name) == 0)
        return entry.version;
    return 0;
  }

  Queue queueWith(cl_command_queue_properties properties) {
    cl_queue_properties list[] = {CL_QUEUE_PROPERTIES, properties, 0};
    cl_int error = CL_SUCCESS;
    Queue queue(clCreateCommandQueueWithProperties(context_, device_, list, &error));
    EXPECT_CL_SUCCESS(error);
    return queue;
  }

  /// An out-of-order queue that replays may run on, or null where the device has none.
  Queue outOfOrderQueue() {
    cl_command_queue_properties wanted = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | required_;
    auto host =
        deviceInfo<cl_command_queue_properties>(device_, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
    if ((supported_ & host & wanted) != wanted)
      return Queue();
    return queueWith(wanted);
  }

  Kernel kernel(const char *name) { return createKernel(program_, name); }

  /// A command buffer recording for `queue` (the fixture's queue when null).
  CommandBuffer create(cl_command_queue queue = nullptr,
                       const cl_command_buffer_properties_khr *properties = nullptr) {
    if (queue == nullptr)
      queue = queue_;
    cl_int error = CL_SUCCESS;
    CommandBuffer buffer(khr.create(1, &queue, properties, &error));
    EXPECT_CL_SUCCESS(error);
    EXPECT_NE(nullptr, buffer.get());
    return buffer;
  }

  cl_int recordFill(cl_command_buffer_khr buffer, cl_mem mem, cl_int value, size_t count) {
    return khr.fill(buffer, nullptr, nullptr, mem, &value, sizeof value, 0, count * sizeof value, 0,
                    nullptr, nullptr, nullptr);
  }

  /// Records `kernel` over `count` work-items, after `waitList`; its sync point goes to `point`.
  cl_int recordKernel(cl_command_buffer_khr buffer, cl_kernel kernel, size_t count,
                      const std::vector<cl_sync_point_khr> &waitList = {},
                      cl_sync_point_khr *point = nullptr) {
    return khr.ndrange(buffer, nullptr, nullptr, kernel, 1, nullptr, &count, nullptr,
                       static_cast<cl_uint>(waitList.size()), listData(waitList), point, nullptr);
  }

  /// clEnqueueCommandBufferKHR on the queue the command buffer was created with.
  cl_int replay(cl_command_buffer_khr buffer, const std::vector<cl_event> &waitList = {},
                cl_event *event = nullptr) {
    return khr.enqueue(0, nullptr, buffer, static_cast<cl_uint>(waitList.size()),
                       listData(waitList), event);
  }

  template <typename T>
  T bufferInfo(cl_command_buffer_khr buffer, cl_command_buffer_info_khr param) {
    return queryValue<T>(
        [&](size_t s, void *v, size_t *r) { return khr.info(buffer, param, s, v, r); });
  }
  cl_command_buffer_state_khr state(cl_command_buffer_khr buffer) {
    return bufferInfo<cl_command_buffer_state_khr>(buffer, CL_COMMAND_BUFFER_STATE_KHR);
  }

  cl_command_queue_properties required_ = 0;
  cl_command_queue_properties supported_ = 0;
  Program program_;
};

} // namespace cbtest
