// A GPU's kernel launches: the argument block with the GPU's image descriptors, the printf
// buffer, and one CUDA launch per kind of work-group.
#include "devices/cuda/cuda_driver_class.hpp"

#include "compiler/argument_block.hpp"
#include "compiler/device_enqueue_format.hpp"
#include "devices/cuda/cuda_program.hpp"
#include "devices/cuda/device_image.hpp"
#include "devices/cuda/launch_abi.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/kernel.hpp"
#include "runtime/objects/queue.hpp"
#include "runtime/printf/printf_output.hpp"
#include "runtime/scheduling/work_group_grid.hpp"

#include <array>
#include <cstring>
#include <optional>

namespace kiln::cuda {

bool CudaDriver::needsHostAfterwards(const KernelLaunch &launch) {
  return static_cast<const CudaKernel &>(*launch.deviceKernel).printfCalls() != nullptr ||
         launch.kernel->info().usesDeviceEnqueue;
}

cl_int CudaDriver::runAndFollowUp(CommandThread::Item &item, CUstream stream) {
  auto &launch = std::get<KernelLaunch>(item.command->payload());
  const auto &kernel = static_cast<const CudaKernel &>(*launch.deviceKernel);
  std::optional<PrintfOutput> output;
  if (kernel.printfCalls() != nullptr) {
    size_t capacity = info_.printfBufferSize;
    output.emplace(
        allocateSharedMemory(PrintfOutput::storageSize(capacity), MemoryPlacement::Device),
        capacity);
  }
  if (launch.kernel->info().usesDeviceEnqueue) {
    item.enqueueArena = EnqueueArena::create(launch, item.command->event().queue()->device());
    if (item.enqueueArena == nullptr)
      return CL_OUT_OF_RESOURCES;
  }
  moveUsedMemoryToDevice(item.command->payload(), stream);
  cl_int status =
      start(launch, output ? reinterpret_cast<uint64_t>(output->buffer()) : 0,
            item.enqueueArena ? reinterpret_cast<uint64_t>(item.enqueueArena->arena()) : 0, stream);
  if (status == CL_COMPLETE && !synchronize(stream))
    status = CL_OUT_OF_RESOURCES;
  if (status == CL_COMPLETE && output)
    output->write(*kernel.printfCalls());
  return status;
}

cl_int CudaDriver::start(KernelLaunch &launch, uint64_t printfBuffer, uint64_t enqueueArena,
                         CUstream stream) {
  const auto &kernel = static_cast<const CudaKernel &>(*launch.deviceKernel);
  std::array<uint64_t, 3> groups = workGroupCounts(launch.range);
  if (groups[0] * groups[1] * groups[2] == 0)
    return CL_COMPLETE;
  LaunchParams params{};
  for (int axis = 0; axis < 3; ++axis) {
    params.globalOffset[axis] = launch.range.offset[axis];
    params.globalSize[axis] = launch.range.global[axis];
    params.enqueuedLocalSize[axis] = launch.range.local[axis];
    params.numGroups[axis] = groups[axis];
  }
  params.workDim = launch.range.workDim;
  if (cl_int status = prepareImages(launch, stream); status != CL_COMPLETE)
    return status;
  std::array<std::byte, kMinimumBlockSize> noArguments{};
  void *block = launch.arguments.block.size() >= noArguments.size() ? launch.arguments.block.data()
                                                                    : noArguments.data();
  uint64_t dynamicShared =
      compiler::localArgumentBytes(launch.arguments.localMemorySize, kernel.staticLocalBytes());
  params.printfBuffer = printfBuffer;
  params.deviceEnqueueArena = enqueueArena;
  if (enqueueArena != 0)
    params.defaultQueue =
        reinterpret_cast<const compiler::DeviceEnqueueArena *>(enqueueArena)->defaultQueue;
  // A CUDA launch has one block shape: one launch per kind of work-group.
  for (const WorkGroupKind &kind : workGroupKinds(launch.range)) {
    for (int axis = 0; axis < 3; ++axis) {
      params.firstGroup[axis] = kind.firstGroup[axis];
      params.firstItem[axis] =
          kind.firstGroup[axis] * params.enqueuedLocalSize[axis] + params.globalOffset[axis];
    }
    std::array<uint64_t, 3> blockShape = kind.localSize;
    params.foldedHeight = 0;
    if (blockShape[2] > properties_.maxBlockDepth) {
      params.foldedHeight = static_cast<uint32_t>(blockShape[1]);
      blockShape = {blockShape[0], blockShape[1] * blockShape[2], 1};
    }
    void *parameters[] = {block, &params};
    auto dim = [](uint64_t size) { return static_cast<unsigned>(size); };
    CUresult result = cuda_->launchKernel(
        kernel.function(), dim(kind.count[0]), dim(kind.count[1]), dim(kind.count[2]),
        dim(blockShape[0]), dim(blockShape[1]), dim(blockShape[2]),
        static_cast<unsigned>(dynamicShared), stream, parameters, nullptr);
    if (result != CUDA_SUCCESS)
      return CL_OUT_OF_RESOURCES;
  }
  return CL_COMPLETE;
}

cl_int CudaDriver::prepareImages(KernelLaunch &launch, CUstream stream) {
  const std::vector<compiler::KernelArgInfo> &args = launch.kernel->info().args;
  for (const LaunchMemObject &named : launch.arguments.memObjects) {
    const compiler::KernelArgInfo &arg = args[named.argument];
    if (arg.kind != compiler::ArgKind::Image)
      continue;
    std::shared_ptr<DeviceImage> image = imageOf(*named.memory);
    if (image == nullptr)
      return CL_MEM_OBJECT_ALLOCATION_FAILURE;
    const ImageKernelDescriptor *descriptor = image->kernelDescriptor();
    std::memcpy(launch.arguments.block.data() + arg.blockOffset, &descriptor, sizeof descriptor);
    bool sampled = arg.accessQualifier == CL_KERNEL_ARG_ACCESS_READ_ONLY;
    if (sampled && !image->refreshTextures(stream))
      return CL_OUT_OF_RESOURCES;
  }
  return CL_COMPLETE;
}

std::shared_ptr<DeviceImage> CudaDriver::imageOf(MemObject &memory) {
  return std::static_pointer_cast<DeviceImage>(memory.deviceState(
      this, [&] { return std::shared_ptr<void>(DeviceImage::create(cuda_, context_, memory)); }));
}

} // namespace kiln::cuda
