//===- stream_driver.hpp - A test-only device that keeps submission order --===//
//
// A device only the runtime's tests link (kiln_runtime_tests): a stream that runs the commands
// it is given one at a time, in submission order, on a thread of its own, as a GPU's CUDA stream
// does. Its memory is the host's, so it carries out every memory command as the CPU device does;
// it compiles no kernels. CI has no GPU: this device lets the tests drive the scheduler's
// submission-order path, and shows what adding a kind of device takes: this folder and a row in
// the device list (devices/device_list.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/device_driver.hpp"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln {
class CompilerLoader;
}

namespace kiln::stream {

class StreamDriver final : public DeviceDriver {
public:
  static constexpr const char *kName = "Kiln submission-order stream (tests only)";

  StreamDriver();
  ~StreamDriver() override;

  const DeviceInfo &info() const override { return info_; }
  const compiler::TargetDescription &compilerTarget() const override { return target_; }
  std::unique_ptr<DeviceProgram> loadProgram(const compiler::Bitcode &,
                                             const compiler::ProgramInfo &, bool,
                                             std::string &error) override;
  bool keepsSubmissionOrder() const override { return true; }
  void submit(std::shared_ptr<Command> command) override;

  /// While held, the stream runs nothing: what is submitted stays queued.
  void hold();
  void release();

  /// The events of the commands submitted and run so far, in order.
  std::vector<Event *> submitted() const;
  std::vector<Event *> executed() const;

private:
  void runCommands();

  DeviceInfo info_;
  compiler::TargetDescription target_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::shared_ptr<Command>> waiting_;
  std::vector<Event *> submitted_, executed_;
  bool held_ = false;
  bool stopping_ = false;
  std::thread thread_; // last: it starts once the rest exists
};

/// One stream device.
std::vector<std::unique_ptr<DeviceDriver>> createStreamDrivers(CompilerLoader &compiler);

} // namespace kiln::stream
