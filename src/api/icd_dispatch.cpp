// The dispatch table the ICD loader calls through (cl_khr_icd), and the loader-facing entry
// points: clIcdGetPlatformIDsKHR and clGetExtensionFunctionAddress(ForPlatform).
#include "api/api_support.hpp"
#include "api/command_buffer_api.hpp"
#include "runtime/objects/platform.hpp"

#include <CL/cl_egl.h>
#include <CL/cl_gl.h>

#include <cstring>
#include <string_view>
#include <utility>

namespace kiln {

const cl_icd_dispatch &icdDispatchTable() {
  // Every member the loader may call is set; only the Windows-only Direct3D/DX9 sharing entry
  // points, which no Linux application can call, are left null.
  static const cl_icd_dispatch table = {
      .clGetPlatformIDs = &clGetPlatformIDs,
      .clGetPlatformInfo = &clGetPlatformInfo,
      .clGetDeviceIDs = &clGetDeviceIDs,
      .clGetDeviceInfo = &clGetDeviceInfo,
      .clCreateContext = &clCreateContext,
      .clCreateContextFromType = &clCreateContextFromType,
      .clRetainContext = &clRetainContext,
      .clReleaseContext = &clReleaseContext,
      .clGetContextInfo = &clGetContextInfo,
      .clCreateCommandQueue = &clCreateCommandQueue,
      .clRetainCommandQueue = &clRetainCommandQueue,
      .clReleaseCommandQueue = &clReleaseCommandQueue,
      .clGetCommandQueueInfo = &clGetCommandQueueInfo,
      .clSetCommandQueueProperty = &clSetCommandQueueProperty,
      .clCreateBuffer = &clCreateBuffer,
      .clCreateImage2D = &clCreateImage2D,
      .clCreateImage3D = &clCreateImage3D,
      .clRetainMemObject = &clRetainMemObject,
      .clReleaseMemObject = &clReleaseMemObject,
      .clGetSupportedImageFormats = &clGetSupportedImageFormats,
      .clGetMemObjectInfo = &clGetMemObjectInfo,
      .clGetImageInfo = &clGetImageInfo,
      .clCreateSampler = &clCreateSampler,
      .clRetainSampler = &clRetainSampler,
      .clReleaseSampler = &clReleaseSampler,
      .clGetSamplerInfo = &clGetSamplerInfo,
      .clCreateProgramWithSource = &clCreateProgramWithSource,
      .clCreateProgramWithBinary = &clCreateProgramWithBinary,
      .clRetainProgram = &clRetainProgram,
      .clReleaseProgram = &clReleaseProgram,
      .clBuildProgram = &clBuildProgram,
      .clUnloadCompiler = &clUnloadCompiler,
      .clGetProgramInfo = &clGetProgramInfo,
      .clGetProgramBuildInfo = &clGetProgramBuildInfo,
      .clCreateKernel = &clCreateKernel,
      .clCreateKernelsInProgram = &clCreateKernelsInProgram,
      .clRetainKernel = &clRetainKernel,
      .clReleaseKernel = &clReleaseKernel,
      .clSetKernelArg = &clSetKernelArg,
      .clGetKernelInfo = &clGetKernelInfo,
      .clGetKernelWorkGroupInfo = &clGetKernelWorkGroupInfo,
      .clWaitForEvents = &clWaitForEvents,
      .clGetEventInfo = &clGetEventInfo,
      .clRetainEvent = &clRetainEvent,
      .clReleaseEvent = &clReleaseEvent,
      .clGetEventProfilingInfo = &clGetEventProfilingInfo,
      .clFlush = &clFlush,
      .clFinish = &clFinish,
      .clEnqueueReadBuffer = &clEnqueueReadBuffer,
      .clEnqueueWriteBuffer = &clEnqueueWriteBuffer,
      .clEnqueueCopyBuffer = &clEnqueueCopyBuffer,
      .clEnqueueReadImage = &clEnqueueReadImage,
      .clEnqueueWriteImage = &clEnqueueWriteImage,
      .clEnqueueCopyImage = &clEnqueueCopyImage,
      .clEnqueueCopyImageToBuffer = &clEnqueueCopyImageToBuffer,
      .clEnqueueCopyBufferToImage = &clEnqueueCopyBufferToImage,
      .clEnqueueMapBuffer = &clEnqueueMapBuffer,
      .clEnqueueMapImage = &clEnqueueMapImage,
      .clEnqueueUnmapMemObject = &clEnqueueUnmapMemObject,
      .clEnqueueNDRangeKernel = &clEnqueueNDRangeKernel,
      .clEnqueueTask = &clEnqueueTask,
      .clEnqueueNativeKernel = &clEnqueueNativeKernel,
      .clEnqueueMarker = &clEnqueueMarker,
      .clEnqueueWaitForEvents = &clEnqueueWaitForEvents,
      .clEnqueueBarrier = &clEnqueueBarrier,
      .clGetExtensionFunctionAddress = &clGetExtensionFunctionAddress,
      .clCreateFromGLBuffer = &clCreateFromGLBuffer,
      .clCreateFromGLTexture2D = &clCreateFromGLTexture2D,
      .clCreateFromGLTexture3D = &clCreateFromGLTexture3D,
      .clCreateFromGLRenderbuffer = &clCreateFromGLRenderbuffer,
      .clGetGLObjectInfo = &clGetGLObjectInfo,
      .clGetGLTextureInfo = &clGetGLTextureInfo,
      .clEnqueueAcquireGLObjects = &clEnqueueAcquireGLObjects,
      .clEnqueueReleaseGLObjects = &clEnqueueReleaseGLObjects,
      .clGetGLContextInfoKHR = &clGetGLContextInfoKHR,
      .clGetDeviceIDsFromD3D10KHR = nullptr,      // Windows-only
      .clCreateFromD3D10BufferKHR = nullptr,      // Windows-only
      .clCreateFromD3D10Texture2DKHR = nullptr,   // Windows-only
      .clCreateFromD3D10Texture3DKHR = nullptr,   // Windows-only
      .clEnqueueAcquireD3D10ObjectsKHR = nullptr, // Windows-only
      .clEnqueueReleaseD3D10ObjectsKHR = nullptr, // Windows-only
      .clSetEventCallback = &clSetEventCallback,
      .clCreateSubBuffer = &clCreateSubBuffer,
      .clSetMemObjectDestructorCallback = &clSetMemObjectDestructorCallback,
      .clCreateUserEvent = &clCreateUserEvent,
      .clSetUserEventStatus = &clSetUserEventStatus,
      .clEnqueueReadBufferRect = &clEnqueueReadBufferRect,
      .clEnqueueWriteBufferRect = &clEnqueueWriteBufferRect,
      .clEnqueueCopyBufferRect = &clEnqueueCopyBufferRect,
      .clCreateSubDevicesEXT = &clCreateSubDevicesEXT,
      .clRetainDeviceEXT = &clRetainDeviceEXT,
      .clReleaseDeviceEXT = &clReleaseDeviceEXT,
      .clCreateEventFromGLsyncKHR = &clCreateEventFromGLsyncKHR,
      .clCreateSubDevices = &clCreateSubDevices,
      .clRetainDevice = &clRetainDevice,
      .clReleaseDevice = &clReleaseDevice,
      .clCreateImage = &clCreateImage,
      .clCreateProgramWithBuiltInKernels = &clCreateProgramWithBuiltInKernels,
      .clCompileProgram = &clCompileProgram,
      .clLinkProgram = &clLinkProgram,
      .clUnloadPlatformCompiler = &clUnloadPlatformCompiler,
      .clGetKernelArgInfo = &clGetKernelArgInfo,
      .clEnqueueFillBuffer = &clEnqueueFillBuffer,
      .clEnqueueFillImage = &clEnqueueFillImage,
      .clEnqueueMigrateMemObjects = &clEnqueueMigrateMemObjects,
      .clEnqueueMarkerWithWaitList = &clEnqueueMarkerWithWaitList,
      .clEnqueueBarrierWithWaitList = &clEnqueueBarrierWithWaitList,
      .clGetExtensionFunctionAddressForPlatform = &clGetExtensionFunctionAddressForPlatform,
      .clCreateFromGLTexture = &clCreateFromGLTexture,
      .clGetDeviceIDsFromD3D11KHR = nullptr,           // Windows-only
      .clCreateFromD3D11BufferKHR = nullptr,           // Windows-only
      .clCreateFromD3D11Texture2DKHR = nullptr,        // Windows-only
      .clCreateFromD3D11Texture3DKHR = nullptr,        // Windows-only
      .clCreateFromDX9MediaSurfaceKHR = nullptr,       // Windows-only
      .clEnqueueAcquireD3D11ObjectsKHR = nullptr,      // Windows-only
      .clEnqueueReleaseD3D11ObjectsKHR = nullptr,      // Windows-only
      .clGetDeviceIDsFromDX9MediaAdapterKHR = nullptr, // Windows-only
      .clEnqueueAcquireDX9MediaSurfacesKHR = nullptr,  // Windows-only
      .clEnqueueReleaseDX9MediaSurfacesKHR = nullptr,  // Windows-only
      .clCreateFromEGLImageKHR = &clCreateFromEGLImageKHR,
      .clEnqueueAcquireEGLObjectsKHR = &clEnqueueAcquireEGLObjectsKHR,
      .clEnqueueReleaseEGLObjectsKHR = &clEnqueueReleaseEGLObjectsKHR,
      .clCreateEventFromEGLSyncKHR = &clCreateEventFromEGLSyncKHR,
      .clCreateCommandQueueWithProperties = &clCreateCommandQueueWithProperties,
      .clCreatePipe = &clCreatePipe,
      .clGetPipeInfo = &clGetPipeInfo,
      .clSVMAlloc = &clSVMAlloc,
      .clSVMFree = &clSVMFree,
      .clEnqueueSVMFree = &clEnqueueSVMFree,
      .clEnqueueSVMMemcpy = &clEnqueueSVMMemcpy,
      .clEnqueueSVMMemFill = &clEnqueueSVMMemFill,
      .clEnqueueSVMMap = &clEnqueueSVMMap,
      .clEnqueueSVMUnmap = &clEnqueueSVMUnmap,
      .clCreateSamplerWithProperties = &clCreateSamplerWithProperties,
      .clSetKernelArgSVMPointer = &clSetKernelArgSVMPointer,
      .clSetKernelExecInfo = &clSetKernelExecInfo,
      .clGetKernelSubGroupInfoKHR = &clGetKernelSubGroupInfoKHR,
      .clCloneKernel = &clCloneKernel,
      .clCreateProgramWithIL = &clCreateProgramWithIL,
      .clEnqueueSVMMigrateMem = &clEnqueueSVMMigrateMem,
      .clGetDeviceAndHostTimer = &clGetDeviceAndHostTimer,
      .clGetHostTimer = &clGetHostTimer,
      .clGetKernelSubGroupInfo = &clGetKernelSubGroupInfo,
      .clSetDefaultDeviceCommandQueue = &clSetDefaultDeviceCommandQueue,
      .clSetProgramReleaseCallback = &clSetProgramReleaseCallback,
      .clSetProgramSpecializationConstant = &clSetProgramSpecializationConstant,
      .clCreateBufferWithProperties = &clCreateBufferWithProperties,
      .clCreateImageWithProperties = &clCreateImageWithProperties,
      .clSetContextDestructorCallback = &clSetContextDestructorCallback,
  };
  return table;
}

} // namespace kiln

using namespace kiln;

namespace {

#define KILN_EXTENSION_FUNCTION(name)                                                              \
  { #name, reinterpret_cast < void *>(&name) }

/// Extension functions Kiln provides, by name.
void *extensionFunction(const char *name) {
  static const std::pair<std::string_view, void *> kFunctions[] = {
      KILN_EXTENSION_FUNCTION(clIcdGetPlatformIDsKHR),
      KILN_EXTENSION_FUNCTION(clGetKernelSuggestedLocalWorkSizeKHR),
      KILN_EXTENSION_FUNCTION(clCreateProgramWithILKHR),
      // cl_intel_unified_shared_memory
      KILN_EXTENSION_FUNCTION(clHostMemAllocINTEL),
      KILN_EXTENSION_FUNCTION(clDeviceMemAllocINTEL),
      KILN_EXTENSION_FUNCTION(clSharedMemAllocINTEL),
      KILN_EXTENSION_FUNCTION(clMemFreeINTEL),
      KILN_EXTENSION_FUNCTION(clMemBlockingFreeINTEL),
      KILN_EXTENSION_FUNCTION(clGetMemAllocInfoINTEL),
      KILN_EXTENSION_FUNCTION(clSetKernelArgMemPointerINTEL),
      KILN_EXTENSION_FUNCTION(clEnqueueMemFillINTEL),
      KILN_EXTENSION_FUNCTION(clEnqueueMemcpyINTEL),
      KILN_EXTENSION_FUNCTION(clEnqueueMigrateMemINTEL),
      KILN_EXTENSION_FUNCTION(clEnqueueMemAdviseINTEL),
  };
  if (name == nullptr)
    return nullptr;
  for (const auto &[known, function] : kFunctions)
    if (known == name)
      return function;
  return api::commandBufferFunction(name);
}

#undef KILN_EXTENSION_FUNCTION

} // namespace

KILN_API cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id *platforms,
                                                   cl_uint *num_platforms) {
  return clGetPlatformIDs(num_entries, platforms, num_platforms);
}

KILN_API void *CL_API_CALL clGetExtensionFunctionAddress(const char *func_name) {
  return extensionFunction(func_name);
}

KILN_API void *CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                                    const char *func_name) {
  if (!Platform::isObject(platform))
    return nullptr;
  return extensionFunction(func_name);
}
