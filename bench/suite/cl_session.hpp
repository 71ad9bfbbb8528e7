// One OpenCL device of any installed platform, with a context and an in-order queue (profiled
// only when the kernels' own times are measured), and the few operations the workloads need. Every
// object is released by its owner.
#pragma once

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace bench {

template <typename Handle, cl_int (*Release)(Handle)> struct ClReleaser {
  void operator()(Handle handle) const {
    if (handle != nullptr)
      Release(handle);
  }
};

using ClContext =
    std::unique_ptr<std::remove_pointer_t<cl_context>, ClReleaser<cl_context, clReleaseContext>>;
using ClQueue = std::unique_ptr<std::remove_pointer_t<cl_command_queue>,
                                ClReleaser<cl_command_queue, clReleaseCommandQueue>>;
using ClProgram =
    std::unique_ptr<std::remove_pointer_t<cl_program>, ClReleaser<cl_program, clReleaseProgram>>;
using ClKernel =
    std::unique_ptr<std::remove_pointer_t<cl_kernel>, ClReleaser<cl_kernel, clReleaseKernel>>;
using ClBuffer =
    std::unique_ptr<std::remove_pointer_t<cl_mem>, ClReleaser<cl_mem, clReleaseMemObject>>;

/// A device the benchmarks can run on, named by its platform.
struct ClDevice {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string platformName;
  std::string deviceName;
};

/// The first device of `type` of every installed platform (the ICD loader decides which are
/// installed); platforms without one are left out.
std::vector<ClDevice> installedDevices(cl_device_type type);

/// Thrown by ClSession when an OpenCL call fails; what() names the call and the error code.
struct ClFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ClSession {
public:
  /// With `timeKernels`, the queue is profiled and launch() keeps every kernel's event for
  /// takeKernelSeconds().
  explicit ClSession(const ClDevice &device, bool timeKernels = false);
  ~ClSession();

  const ClDevice &device() const { return device_; }
  cl_context context() const { return context_.get(); }
  cl_command_queue queue() const { return queue_.get(); }

  /// Builds `source` and creates the kernel `name`; throws with the build log on failure.
  ClKernel kernel(const std::string &source, const char *name, const std::string &options = "");

  /// A device buffer holding `data` (or `bytes` uninitialized bytes when data is null).
  ClBuffer buffer(size_t bytes, const void *data = nullptr);
  template <typename T> ClBuffer buffer(const std::vector<T> &data) {
    return buffer(data.size() * sizeof(T), data.data());
  }

  /// A read-only 2D image of `format` holding `data`, rows of `width` packed elements. Throws
  /// when the device does not support the format.
  ClBuffer image2d(const cl_image_format &format, size_t width, size_t height, const void *data);

  /// A buffer in host memory (CL_MEM_ALLOC_HOST_PTR), mapped for reading and writing: the
  /// staging memory applications copy through. The mapping lasts as long as the buffer.
  struct HostBuffer {
    ClBuffer buffer;
    void *mapped = nullptr;
  };
  HostBuffer hostBuffer(size_t bytes);

  /// `bytes` of shared virtual memory (clSVMAlloc with `flags`), freed with the session's
  /// context; throws where the device has no SVM of that kind.
  struct SvmFree {
    cl_context context;
    void operator()(void *pointer) const { clSVMFree(context, pointer); }
  };
  using SvmPointer = std::unique_ptr<void, SvmFree>;
  SvmPointer svm(size_t bytes, cl_svm_mem_flags flags = CL_MEM_READ_WRITE);
  /// Blocking clEnqueueSVMMap of `bytes` at `pointer`, and its unmap (which waits too).
  void mapSvm(void *pointer, size_t bytes, cl_map_flags flags);
  void unmapSvm(void *pointer);

  /// Maps the first `bytes` of `buffer` (blocking) with `flags`; unmap() ends the mapping.
  void *map(cl_mem buffer, size_t bytes, cl_map_flags flags);
  void unmap(cl_mem buffer, void *mapped);

  void read(cl_mem buffer, size_t bytes, void *out);
  template <typename T> std::vector<T> read(cl_mem buffer, size_t count) {
    std::vector<T> values(count);
    read(buffer, count * sizeof(T), values.data());
    return values;
  }

  /// Enqueues `kernel` over `dims` dimensions; `local` may be null.
  void launch(cl_kernel kernel, cl_uint dims, const size_t *global, const size_t *local = nullptr);
  void finish();

  /// The sum of the execution times (profiling END - START) of the kernels launched since the
  /// last call, which must have finished.
  double takeKernelSeconds();

private:
  ClDevice device_;
  ClContext context_;
  ClQueue queue_;
  std::vector<ClProgram> programs_;
  bool timeKernels_ = false;
  std::vector<cl_event> launched_;
};

/// Sets the kernel's arguments in order: cl_mem handles (ClBuffer) and plain values.
void setArg(cl_kernel kernel, cl_uint index, const ClBuffer &buffer);
template <typename T> void setArg(cl_kernel kernel, cl_uint index, const T &value) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (clSetKernelArg(kernel, index, sizeof(T), &value) != CL_SUCCESS)
    throw ClFailure("clSetKernelArg failed for argument " + std::to_string(index));
}
template <typename... Args> void setArgs(cl_kernel kernel, const Args &...args) {
  cl_uint index = 0;
  (setArg(kernel, index++, args), ...);
}

} // namespace bench
