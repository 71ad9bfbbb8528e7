// The CUDA driver API (libcuda.so.1), opened with dlopen when the platform starts. Machines
// without an NVIDIA driver simply have no GPU device: nothing links against libcuda, and a
// missing library or a failing cuInit costs nothing more.
#pragma once

#include <cuda.h>

#include <memory>
#include <optional>
#include <string>

namespace kiln::cuda {

/// The driver functions Kiln calls, resolved once. Shared by the drivers of all GPUs.
struct CudaLibrary {
  CUresult (*init)(unsigned int flags);
  CUresult (*driverGetVersion)(int *version);
  CUresult (*getErrorString)(CUresult error, const char **text);
  CUresult (*deviceGetCount)(int *count);
  CUresult (*deviceGet)(CUdevice *device, int ordinal);
  CUresult (*deviceGetName)(char *name, int length, CUdevice device);
  CUresult (*deviceGetAttribute)(int *value, CUdevice_attribute attribute, CUdevice device);
  CUresult (*deviceTotalMem)(size_t *bytes, CUdevice device);
  CUresult (*primaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*ctxPushCurrent)(CUcontext context);
  CUresult (*ctxPopCurrent)(CUcontext *context);
  CUresult (*memAllocManaged)(CUdeviceptr *pointer, size_t size, unsigned int flags);
  CUresult (*memFree)(CUdeviceptr pointer);
  CUresult (*memHostAlloc)(void **pointer, size_t size, unsigned int flags);
  CUresult (*memHostGetDevicePointer)(CUdeviceptr *device, void *host, unsigned int flags);
  CUresult (*memFreeHost)(void *pointer);
  CUresult (*memcpyAsync)(CUdeviceptr destination, CUdeviceptr source, size_t size,
                          CUstream stream);
  CUresult (*memcpy3DAsync)(const CUDA_MEMCPY3D *copy, CUstream stream);
  CUresult (*memsetD8Async)(CUdeviceptr destination, unsigned char value, size_t count,
                            CUstream stream);
  CUresult (*memsetD16Async)(CUdeviceptr destination, unsigned short value, size_t count,
                             CUstream stream);
  CUresult (*memsetD32Async)(CUdeviceptr destination, unsigned int value, size_t count,
                             CUstream stream);
  CUresult (*array3DCreate)(CUarray *array, const CUDA_ARRAY3D_DESCRIPTOR *descriptor);
  CUresult (*arrayDestroy)(CUarray array);
  CUresult (*texObjectCreate)(CUtexObject *texture, const CUDA_RESOURCE_DESC *resource,
                              const CUDA_TEXTURE_DESC *sampling,
                              const CUDA_RESOURCE_VIEW_DESC *view);
  CUresult (*texObjectDestroy)(CUtexObject texture);
  CUresult (*moduleLoadDataEx)(CUmodule *module, const void *image, unsigned int optionCount,
                               CUjit_option *options, void **optionValues);
  CUresult (*moduleUnload)(CUmodule module);
  CUresult (*moduleGetFunction)(CUfunction *function, CUmodule module, const char *name);
  CUresult (*moduleGetGlobal)(CUdeviceptr *pointer, size_t *size, CUmodule module,
                              const char *name);
  CUresult (*memcpyHtoD)(CUdeviceptr destination, const void *source, size_t size);
  CUresult (*funcGetAttribute)(int *value, CUfunction_attribute attribute, CUfunction function);
  CUresult (*funcSetAttribute)(CUfunction function, CUfunction_attribute attribute, int value);
  CUresult (*launchKernel)(CUfunction function, unsigned int gridX, unsigned int gridY,
                           unsigned int gridZ, unsigned int blockX, unsigned int blockY,
                           unsigned int blockZ, unsigned int sharedBytes, CUstream stream,
                           void **parameters, void **extra);
  CUresult (*streamCreate)(CUstream *stream, unsigned int flags);
  CUresult (*streamSynchronize)(CUstream stream);
  CUresult (*eventCreate)(CUevent *event, unsigned int flags);
  CUresult (*eventDestroy)(CUevent event);
  CUresult (*eventRecord)(CUevent event, CUstream stream);
  CUresult (*eventSynchronize)(CUevent event);
  CUresult (*eventElapsedTime)(float *milliseconds, CUevent start, CUevent end);

  /// Optional (null when the driver lacks it, before CUDA 12.2): moves managed memory to a
  /// processor in stream order, in large transfers instead of one page fault at a time.
  CUresult (*memPrefetchAsync)(CUdeviceptr pointer, size_t size, CUmemLocation location,
                               unsigned int flags, CUstream stream) = nullptr;

  /// Optional (CUDA 11.7 and later): a stream writes a word to memory.
  CUresult (*streamWriteValue32)(CUstream stream, CUdeviceptr address, cuuint32_t value,
                                 unsigned int flags) = nullptr;

  /// Optional, all or none (CUDA 11.4 and later): stream capture into a CUDA graph, and the
  /// graph's launches, for command buffers.
  struct Graphs {
    CUresult (*streamDestroy)(CUstream stream);
    CUresult (*streamBeginCapture)(CUstream stream, CUstreamCaptureMode mode);
    CUresult (*streamEndCapture)(CUstream stream, CUgraph *graph);
    CUresult (*instantiate)(CUgraphExec *executable, CUgraph graph, unsigned long long flags);
    CUresult (*launch)(CUgraphExec executable, CUstream stream);
    CUresult (*execDestroy)(CUgraphExec executable);
    CUresult (*destroy)(CUgraph graph);
  };
  std::optional<Graphs> graphs;

  /// Optional, all or none: the driver's linker, which joins a program's PTX with CUDA's device
  /// runtime when its kernels start kernels themselves.
  struct Linker {
    CUresult (*create)(unsigned int optionCount, CUjit_option *options, void **optionValues,
                       CUlinkState *state);
    CUresult (*addData)(CUlinkState state, CUjitInputType type, void *data, size_t size,
                        const char *name, unsigned int optionCount, CUjit_option *options,
                        void **optionValues);
    CUresult (*complete)(CUlinkState state, void **image, size_t *size);
    CUresult (*destroy)(CUlinkState state);
  };
  std::optional<Linker> linker;

  /// The library with every function resolved and cuInit done, or null when this machine has
  /// no usable NVIDIA driver.
  static std::shared_ptr<const CudaLibrary> open();

  /// "CUDA_ERROR_..." text for `result`.
  std::string describe(CUresult result) const;
};

} // namespace kiln::cuda
