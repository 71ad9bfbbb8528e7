// One thread that finishes the commands of a GPU device in the order they were submitted,
// taking all those submitted since its last turn at once: it carries out those the host must
// start, and waits for those already started on the GPU's stream. Started at the first command.
#pragma once

#include "devices/cuda/cuda_library.hpp"
#include "runtime/scheduling/command.hpp"
#include "runtime/scheduling/device_enqueue.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln {
struct RecordedCommands;
} // namespace kiln

namespace kiln::cuda {

class CudaGraph;

class CommandThread {
public:
  struct Item {
    enum class State {
      ToStart, ///< the thread starts it (after the commands before it)
      Started, ///< on the GPU's stream already: only its completion is left
      Failed,  ///< could not be started: complete it with `failure`
    };
    std::shared_ptr<Command> command;
    State state = State::ToStart;
    cl_int failure = CL_SUCCESS;
    /// Recorded on the stream around a started command: `end` always, `start` only when its
    /// queue is profiled (both then timing events).
    CUevent start = nullptr, end = nullptr;
    /// A launch whose kernel enqueues kernels: its arena, whose records are launched when it
    /// has finished (runtime/scheduling/device_enqueue.hpp).
    std::unique_ptr<EnqueueArena> enqueueArena = nullptr;
    /// A run of a command buffer: its commands' graph, and the commands themselves (the graph's
    /// kernels use their memory until the run completes).
    const CudaGraph *graph = nullptr;
    std::shared_ptr<const RecordedCommands> recording = nullptr;
  };
  /// Carries out every command submitted since the last call, in submission order.
  using Execute = std::function<void(std::vector<Item> &)>;
  explicit CommandThread(Execute execute) : execute_(std::move(execute)) {}
  ~CommandThread();
  CommandThread(const CommandThread &) = delete;
  CommandThread &operator=(const CommandThread &) = delete;

  void submit(Item item);

private:
  void run();

  Execute execute_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Item> pending_;
  /// pending_'s size, which the thread polls before it sleeps: commands that follow one another
  /// closely (a launch, then its completion) then skip a sleeping thread's wake-up.
  std::atomic<size_t> pendingCount_{0};
  bool stopping_ = false;
  std::thread thread_;
};

} // namespace kiln::cuda
