#include "devices/cpu/launch_buffers.hpp"

namespace kiln::cpu {

LaunchBuffers launchBuffersOf(const KernelLaunch &launch) {
  LaunchBuffers buffers;
  const std::vector<compiler::KernelArgInfo> &args = launch.kernel->info().args;
  for (const LaunchMemObject &named : launch.arguments.memObjects) {
    const compiler::KernelArgInfo &arg = args[named.argument];
    if (arg.kind != compiler::ArgKind::GlobalPointer &&
        arg.kind != compiler::ArgKind::ConstantPointer)
      continue;
    const MemObject &memory = *named.memory;
    if (arg.onlyWritten)
      buffers.outputBytes += memory.size();
    buffers.bytes += memory.size();
    buffers.haveReadSlack = buffers.haveReadSlack && memory.hasReadSlack();
  }
  return buffers;
}

} // namespace kiln::cpu
