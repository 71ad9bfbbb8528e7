// One thread that finishes the commands of a GPU device in the order they were submitted,
// taking all those submitted since its last turn at once: it carries out those the host must
// start, and waits for those already started on the GPU's stream. Started at the first command.
//
// While commands arrive close together and no host thread has begun to wait since its last
// turn, it lets them gather before it takes them (up to kGatherLimit of them, kGatherTime, or
// until kGatherQuiet passes without a new one): completing a stream's commands costs a CUDA
// event recorded on the stream and waited for, and recorded per command or two, as the thread
// kept up with an application streaming small kernels, those calls contended with the
// application's launches inside the CUDA driver (on an H200 host, cuLaunchKernel took 4.6 us
// instead of 3.5, and each record 2.1 us).
#pragma once

#include "devices/cuda/cuda_library.hpp"
#include "runtime/scheduling/command.hpp"
#include "runtime/scheduling/device_enqueue.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
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
  /// `hostWaits`: the count of host threads that began waiting for the device's commands
  /// (DeviceDriver::runReadyWorkWhileWaiting); without it commands never gather.
  explicit CommandThread(Execute execute, const std::atomic<uint64_t> *hostWaits = nullptr)
      : execute_(std::move(execute)), hostWaits_(hostWaits) {}
  ~CommandThread();
  CommandThread(const CommandThread &) = delete;
  CommandThread &operator=(const CommandThread &) = delete;

  void submit(Item item);

  /// How many commands, and for how long, the thread lets gather at most; and how long
  /// without a new one ends the gathering. A tenth of a millisecond of completion delay at
  /// most, for a stream that runs behind its enqueues anyway; a host thread that waits ends it.
  static constexpr size_t kGatherLimit = 256;
  static constexpr std::chrono::microseconds kGatherTime{100};
  static constexpr std::chrono::microseconds kGatherQuiet{20};

private:
  void run();
  /// Returns once the pending commands should be taken (see above); `waitsSeen`, the host
  /// waits counted when the last batch was taken.
  void gather(uint64_t waitsSeen);

  Execute execute_;
  const std::atomic<uint64_t> *hostWaits_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Item> pending_;
  /// pending_'s size, which the thread polls before it sleeps: commands that follow one another
  /// closely (a launch, then its completion) then skip a sleeping thread's wake-up.
  std::atomic<size_t> pendingCount_{0};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

} // namespace kiln::cuda
