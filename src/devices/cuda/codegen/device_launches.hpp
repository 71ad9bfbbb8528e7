//===- device_launches.hpp - Kernels the GPU starts itself -----------------===//
//
// A kernel that enqueues a block kernel starts it on the GPU itself, through CUDA's dynamic
// parallelism, where it can, instead of leaving a record that the host launches once the parent
// has finished (compiler/device_enqueue_format.hpp, DeviceLaunchRequest). Each block kernel
// without printf gets a second entry, whose first parameter is the request, and the library's
// two launch primitives become calls of CUDA's device runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/program_info.hpp"

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace kiln::cuda {

/// Whether the GPU starts enqueued kernels itself: CUDA's device runtime was at hand when Kiln
/// was built, and KILN_CUDA_DEVICE_LAUNCH does not turn it off.
bool launchesOnDevice();

/// Adds the device entries of the block kernels and defines the launch primitives, if the
/// module's kernels call them (after addKernelEntries, before inlining).
llvm::Error addDeviceLaunches(llvm::Module &module, const compiler::ProgramInfo &info);

} // namespace kiln::cuda
