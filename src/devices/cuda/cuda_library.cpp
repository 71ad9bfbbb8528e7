#include "devices/cuda/cuda_library.hpp"

#include <dlfcn.h>

namespace kiln::cuda {
namespace {

/// Resolves `name` into `function`; false when the driver lacks it (too old).
template <typename Function> bool resolve(void *library, const char *name, Function &function) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  return function != nullptr;
}

bool resolveAll(void *library, CudaLibrary &cuda) {
  // The versioned names are those cuda.h maps the plain ones to (cuMemFree is cuMemFree_v2).
  return resolve(library, "cuInit", cuda.init) &&
         resolve(library, "cuDriverGetVersion", cuda.driverGetVersion) &&
         resolve(library, "cuGetErrorString", cuda.getErrorString) &&
         resolve(library, "cuDeviceGetCount", cuda.deviceGetCount) &&
         resolve(library, "cuDeviceGet", cuda.deviceGet) &&
         resolve(library, "cuDeviceGetName", cuda.deviceGetName) &&
         resolve(library, "cuDeviceGetAttribute", cuda.deviceGetAttribute) &&
         resolve(library, "cuDeviceTotalMem_v2", cuda.deviceTotalMem) &&
         resolve(library, "cuDevicePrimaryCtxRetain", cuda.primaryCtxRetain) &&
         resolve(library, "cuCtxPushCurrent_v2", cuda.ctxPushCurrent) &&
         resolve(library, "cuCtxPopCurrent_v2", cuda.ctxPopCurrent) &&
         resolve(library, "cuMemAllocManaged", cuda.memAllocManaged) &&
         resolve(library, "cuMemFree_v2", cuda.memFree) &&
         resolve(library, "cuMemHostAlloc", cuda.memHostAlloc) &&
         resolve(library, "cuMemHostGetDevicePointer_v2", cuda.memHostGetDevicePointer) &&
         resolve(library, "cuMemFreeHost", cuda.memFreeHost) &&
         resolve(library, "cuMemcpyAsync", cuda.memcpyAsync) &&
         resolve(library, "cuMemcpy3DAsync_v2", cuda.memcpy3DAsync) &&
         resolve(library, "cuMemsetD8Async", cuda.memsetD8Async) &&
         resolve(library, "cuMemsetD16Async", cuda.memsetD16Async) &&
         resolve(library, "cuMemsetD32Async", cuda.memsetD32Async) &&
         resolve(library, "cuArray3DCreate_v2", cuda.array3DCreate) &&
         resolve(library, "cuArrayDestroy", cuda.arrayDestroy) &&
         resolve(library, "cuTexObjectCreate", cuda.texObjectCreate) &&
         resolve(library, "cuTexObjectDestroy", cuda.texObjectDestroy) &&
         resolve(library, "cuModuleLoadDataEx", cuda.moduleLoadDataEx) &&
         resolve(library, "cuModuleUnload", cuda.moduleUnload) &&
         resolve(library, "cuModuleGetFunction", cuda.moduleGetFunction) &&
         resolve(library, "cuModuleGetGlobal_v2", cuda.moduleGetGlobal) &&
         resolve(library, "cuMemcpyHtoD_v2", cuda.memcpyHtoD) &&
         resolve(library, "cuFuncGetAttribute", cuda.funcGetAttribute) &&
         resolve(library, "cuFuncSetAttribute", cuda.funcSetAttribute) &&
         resolve(library, "cuLaunchKernel", cuda.launchKernel) &&
         resolve(library, "cuStreamCreate", cuda.streamCreate) &&
         resolve(library, "cuStreamSynchronize", cuda.streamSynchronize) &&
         resolve(library, "cuEventCreate", cuda.eventCreate) &&
         resolve(library, "cuEventDestroy_v2", cuda.eventDestroy) &&
         resolve(library, "cuEventRecord", cuda.eventRecord) &&
         resolve(library, "cuEventSynchronize", cuda.eventSynchronize) &&
         // The _v2 of CUDA 12.8 and later, else the original (same signature).
         (resolve(library, "cuEventElapsedTime_v2", cuda.eventElapsedTime) ||
          resolve(library, "cuEventElapsedTime", cuda.eventElapsedTime));
}

/// The functions Kiln does without on older drivers.
void resolveOptional(void *library, CudaLibrary &cuda) {
  resolve(library, "cuMemPrefetchAsync_v2", cuda.memPrefetchAsync);
  resolve(library, "cuStreamWriteValue32_v2", cuda.streamWriteValue32);
  CudaLibrary::Graphs graphs{};
  if (resolve(library, "cuStreamDestroy_v2", graphs.streamDestroy) &&
      resolve(library, "cuStreamBeginCapture_v2", graphs.streamBeginCapture) &&
      resolve(library, "cuStreamEndCapture", graphs.streamEndCapture) &&
      resolve(library, "cuGraphInstantiateWithFlags", graphs.instantiate) &&
      resolve(library, "cuGraphLaunch", graphs.launch) &&
      resolve(library, "cuGraphExecDestroy", graphs.execDestroy) &&
      resolve(library, "cuGraphDestroy", graphs.destroy))
    cuda.graphs = graphs;
  CudaLibrary::Linker linker{};
  if (resolve(library, "cuLinkCreate_v2", linker.create) &&
      resolve(library, "cuLinkAddData_v2", linker.addData) &&
      resolve(library, "cuLinkComplete", linker.complete) &&
      resolve(library, "cuLinkDestroy", linker.destroy))
    cuda.linker = linker;
}

} // namespace

std::shared_ptr<const CudaLibrary> CudaLibrary::open() {
  // RTLD_LOCAL: the application's own use of CUDA (or none) is not affected. Never closed: the
  // drivers of the immortal platform use it until the process ends.
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr)
    return nullptr;
  auto cuda = std::make_shared<CudaLibrary>();
  if (!resolveAll(library, *cuda) || cuda->init(0) != CUDA_SUCCESS) {
    dlclose(library);
    return nullptr;
  }
  resolveOptional(library, *cuda);
  return cuda;
}

std::string CudaLibrary::describe(CUresult result) const {
  const char *text = nullptr;
  if (getErrorString(result, &text) != CUDA_SUCCESS || text == nullptr)
    return "CUDA error " + std::to_string(static_cast<int>(result));
  return text;
}

} // namespace kiln::cuda
