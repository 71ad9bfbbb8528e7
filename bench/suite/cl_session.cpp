#include "cl_session.hpp"

#include <algorithm>

namespace bench {
namespace {

void check(cl_int error, const char *call) {
  if (error != CL_SUCCESS)
    throw ClFailure(std::string(call) + " failed with error " + std::to_string(error));
}

/// A string query of any object: clGetPlatformInfo, clGetDeviceInfo, ...
template <typename Object, typename Name>
std::string infoString(cl_int (*query)(Object, Name, size_t, void *, size_t *), Object object,
                       Name name) {
  size_t size = 0;
  query(object, name, 0, nullptr, &size);
  std::string text(size, '\0');
  query(object, name, size, text.data(), nullptr);
  return text.c_str();
}

} // namespace

std::vector<ClDevice> installedDevices(cl_device_type type) {
  cl_uint count = 0;
  if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0)
    return {};
  std::vector<cl_platform_id> platforms(count);
  clGetPlatformIDs(count, platforms.data(), nullptr);
  std::vector<ClDevice> devices;
  std::vector<std::string> platformNames; // as the platforms report them
  for (cl_platform_id platform : platforms) {
    cl_device_id device = nullptr;
    if (clGetDeviceIDs(platform, type, 1, &device, nullptr) != CL_SUCCESS)
      continue;
    std::string name = infoString(clGetPlatformInfo, platform, cl_platform_info{CL_PLATFORM_NAME});
    platformNames.push_back(name);
    // Two platforms of one name (two copies of a library, registered to measure the harness's
    // own noise) are told apart by a number: "Kiln", then "Kiln#2".
    if (auto copies = std::count(platformNames.begin(), platformNames.end(), name); copies > 1)
      name += "#" + std::to_string(copies);
    devices.push_back({platform, device, std::move(name),
                       infoString(clGetDeviceInfo, device, cl_device_info{CL_DEVICE_NAME})});
  }
  return devices;
}

ClSession::ClSession(const ClDevice &device, bool timeKernels)
    : device_(device), timeKernels_(timeKernels) {
  cl_int error = CL_SUCCESS;
  context_.reset(clCreateContext(nullptr, 1, &device_.device, nullptr, nullptr, &error));
  check(error, "clCreateContext");
  cl_queue_properties profiled[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  queue_.reset(clCreateCommandQueueWithProperties(context_.get(), device_.device,
                                                  timeKernels ? profiled : nullptr, &error));
  check(error, "clCreateCommandQueueWithProperties");
}

ClSession::~ClSession() {
  for (cl_event event : launched_)
    clReleaseEvent(event);
}

ClKernel ClSession::kernel(const std::string &source, const char *name,
                           const std::string &options) {
  const char *text = source.c_str();
  cl_int error = CL_SUCCESS;
  ClProgram program(clCreateProgramWithSource(context_.get(), 1, &text, nullptr, &error));
  check(error, "clCreateProgramWithSource");
  if (clBuildProgram(program.get(), 1, &device_.device, options.c_str(), nullptr, nullptr) !=
      CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(program.get(), device_.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(program.get(), device_.device, CL_PROGRAM_BUILD_LOG, size, log.data(),
                          nullptr);
    throw ClFailure("clBuildProgram failed:\n" + log);
  }
  ClKernel kernel(clCreateKernel(program.get(), name, &error));
  check(error, "clCreateKernel");
  programs_.push_back(std::move(program));
  return kernel;
}

ClBuffer ClSession::buffer(size_t bytes, const void *data) {
  cl_int error = CL_SUCCESS;
  cl_mem_flags flags = CL_MEM_READ_WRITE | (data != nullptr ? CL_MEM_COPY_HOST_PTR : 0);
  ClBuffer buffer(clCreateBuffer(context_.get(), flags, bytes, const_cast<void *>(data), &error));
  check(error, "clCreateBuffer");
  return buffer;
}

ClBuffer ClSession::image2d(const cl_image_format &format, size_t width, size_t height,
                            const void *data) {
  cl_image_desc description{};
  description.image_type = CL_MEM_OBJECT_IMAGE2D;
  description.image_width = width;
  description.image_height = height;
  cl_int error = CL_SUCCESS;
  ClBuffer image(clCreateImage(context_.get(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format,
                               &description, const_cast<void *>(data), &error));
  check(error, "clCreateImage");
  return image;
}

ClSession::SvmPointer ClSession::svm(size_t bytes, cl_svm_mem_flags flags) {
  void *pointer = clSVMAlloc(context_.get(), flags, bytes, 0);
  if (pointer == nullptr)
    throw ClFailure("clSVMAlloc failed (no SVM of that kind)");
  return SvmPointer(pointer, SvmFree{context_.get()});
}

void ClSession::mapSvm(void *pointer, size_t bytes, cl_map_flags flags) {
  check(clEnqueueSVMMap(queue_.get(), CL_TRUE, flags, pointer, bytes, 0, nullptr, nullptr),
        "clEnqueueSVMMap");
}

void ClSession::unmapSvm(void *pointer) {
  check(clEnqueueSVMUnmap(queue_.get(), pointer, 0, nullptr, nullptr), "clEnqueueSVMUnmap");
  check(clFinish(queue_.get()), "clFinish");
}

ClSession::HostBuffer ClSession::hostBuffer(size_t bytes) {
  cl_int error = CL_SUCCESS;
  HostBuffer host;
  host.buffer.reset(clCreateBuffer(context_.get(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes,
                                   nullptr, &error));
  check(error, "clCreateBuffer");
  // Never unmapped: releasing a mapped buffer is allowed, and frees the mapping with it.
  host.mapped = map(host.buffer.get(), bytes, CL_MAP_READ | CL_MAP_WRITE);
  return host;
}

void *ClSession::map(cl_mem buffer, size_t bytes, cl_map_flags flags) {
  cl_int error = CL_SUCCESS;
  void *mapped = clEnqueueMapBuffer(queue_.get(), buffer, CL_TRUE, flags, 0, bytes, 0, nullptr,
                                    nullptr, &error);
  check(error, "clEnqueueMapBuffer");
  return mapped;
}

void ClSession::unmap(cl_mem buffer, void *mapped) {
  check(clEnqueueUnmapMemObject(queue_.get(), buffer, mapped, 0, nullptr, nullptr),
        "clEnqueueUnmapMemObject");
}

void ClSession::read(cl_mem buffer, size_t bytes, void *out) {
  check(clEnqueueReadBuffer(queue_.get(), buffer, CL_TRUE, 0, bytes, out, 0, nullptr, nullptr),
        "clEnqueueReadBuffer");
}

void ClSession::launch(cl_kernel kernel, cl_uint dims, const size_t *global, const size_t *local) {
  cl_event event = nullptr;
  check(clEnqueueNDRangeKernel(queue_.get(), kernel, dims, nullptr, global, local, 0, nullptr,
                               timeKernels_ ? &event : nullptr),
        "clEnqueueNDRangeKernel");
  if (event != nullptr)
    launched_.push_back(event);
}

double ClSession::takeKernelSeconds() {
  cl_ulong total = 0;
  for (cl_event event : launched_) {
    cl_ulong start = 0, end = 0;
    check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr),
          "clGetEventProfilingInfo");
    check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr),
          "clGetEventProfilingInfo");
    total += end - start;
    clReleaseEvent(event);
  }
  launched_.clear();
  return double(total) * 1e-9;
}

void ClSession::finish() {
  check(clFinish(queue_.get()), "clFinish");
}

void setArg(cl_kernel kernel, cl_uint index, const ClBuffer &buffer) {
  cl_mem handle = buffer.get();
  setArg(kernel, index, handle);
}

} // namespace bench
