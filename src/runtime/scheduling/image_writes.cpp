#include "runtime/scheduling/image_writes.hpp"

#include "runtime/objects/kernel.hpp"
#include "runtime/scheduling/command_buffer_replay.hpp"

namespace kiln {
namespace {

void markIfImage(MemObject *memory) {
  if (memory != nullptr && memory->image() != nullptr)
    memory->noteContentsChanged();
}

void markLaunchWrites(const KernelLaunch &launch) {
  const std::vector<compiler::KernelArgInfo> &args = launch.kernel->info().args;
  for (const LaunchMemObject &named : launch.arguments.memObjects) {
    const compiler::KernelArgInfo &arg = args[named.argument];
    if (arg.kind == compiler::ArgKind::Image &&
        arg.accessQualifier != CL_KERNEL_ARG_ACCESS_READ_ONLY)
      named.memory->noteContentsChanged();
  }
}

} // namespace

void markWrittenImages(const CommandPayload &payload) {
  std::visit(
      [](const auto &command) {
        using T = std::decay_t<decltype(command)>;
        if constexpr (std::is_same_v<T, KernelLaunch>) {
          markLaunchWrites(command);
        } else if constexpr (std::is_same_v<T, UnmapBuffer>) {
          markIfImage(command.buffer.get());
        } else if constexpr (std::is_same_v<T, CopyRect>) {
          markIfImage(command.destination.get());
        } else if constexpr (std::is_same_v<T, FillImage>) {
          markIfImage(command.image.get());
        } else if constexpr (std::is_same_v<T, MigrateMemory>) {
          for (const Ref<MemObject> &memory : command.memObjects)
            markIfImage(memory.get());
        } else if constexpr (std::is_same_v<T, RunCommandBuffer>) {
          if (command.commands != nullptr)
            for (const RecordedCommand &recorded : command.commands->commands)
              markWrittenImages(recorded.payload);
        }
      },
      payload);
}

} // namespace kiln
