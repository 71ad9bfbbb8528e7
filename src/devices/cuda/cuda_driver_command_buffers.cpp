// A GPU's command buffers as CUDA graphs. The graph is captured from the very stream operations
// the commands make when they are enqueued (kernels, copies, fills), in recording order, which
// satisfies every sync point; a run is one cuGraphLaunch on the stream of its queue, preceded by
// the moves of managed memory that the host may have touched since the last run.
#include "devices/cuda/cuda_driver_class.hpp"

#include "devices/cuda/cuda_graph.hpp"
#include "devices/cuda/current_context.hpp"
#include "runtime/objects/kernel.hpp"
#include "runtime/scheduling/command_buffer_replay.hpp"

#include <algorithm>
#include <variant>

namespace kiln::cuda {
namespace {

bool usesImages(const KernelLaunch &launch) {
  const std::vector<compiler::KernelArgInfo> &args = launch.kernel->info().args;
  return std::ranges::any_of(launch.arguments.memObjects, [&](const LaunchMemObject &named) {
    return args[named.argument].kind == compiler::ArgKind::Image;
  });
}

} // namespace

bool CudaDriver::capturable(const CommandPayload &payload) {
  // A barrier adds nothing: the graph keeps recording order.
  if (std::holds_alternative<NoOperation>(payload))
    return true;
  if (!startsFromAnyThread(payload))
    return false;
  auto *launch = std::get_if<KernelLaunch>(&payload);
  return launch == nullptr || !usesImages(*launch);
}

std::unique_ptr<PreparedSequence> CudaDriver::prepareSequence(const RecordedCommands &commands) {
  bool allCapturable = std::ranges::all_of(commands.commands, [](const RecordedCommand &recorded) {
    return capturable(recorded.payload);
  });
  if (commands.commands.empty() || !allCapturable)
    return nullptr;
  CurrentContext current(*cuda_, context_);
  return CudaGraph::capture(*cuda_, [&](CUstream stream) {
    for (const RecordedCommand &recorded : commands.commands) {
      if (std::holds_alternative<NoOperation>(recorded.payload))
        continue;
      // The graph keeps what each operation reads at its call (a kernel's argument block).
      CommandPayload payload = recorded.payload;
      if (enqueueOnStream(payload, stream) != CL_COMPLETE)
        return false;
    }
    return true;
  });
}

void CudaDriver::submitPrepared(const std::shared_ptr<Command> &command,
                                std::shared_ptr<const RecordedCommands> commands,
                                const PreparedSequence &prepared) {
  putOnLane({.command = command,
             .graph = &static_cast<const CudaGraph &>(prepared),
             .recording = std::move(commands)});
}

} // namespace kiln::cuda
