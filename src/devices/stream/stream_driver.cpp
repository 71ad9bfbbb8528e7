//===- stream_driver.cpp - A test-only device that keeps submission order --===//
#include "devices/stream/stream_driver.hpp"

#include "runtime/scheduling/command.hpp"
#include "runtime/scheduling/host_commands.hpp"

#include <variant>

namespace kiln::stream {

StreamDriver::StreamDriver() : thread_([this] { runCommands(); }) {
  info_.type = CL_DEVICE_TYPE_ACCELERATOR;
  info_.name = kName;
  // Host memory, as much as a test needs.
  info_.globalMemSize = cl_ulong{1} << 30;
  info_.maxMemAllocSize = info_.globalMemSize / 4;
}

StreamDriver::~StreamDriver() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

std::unique_ptr<DeviceProgram> StreamDriver::loadProgram(const compiler::Bitcode &,
                                                         const compiler::ProgramInfo &, bool,
                                                         std::string &error) {
  error = "the submission-order stream device compiles no kernels";
  return nullptr;
}

void StreamDriver::submit(std::shared_ptr<Command> command) {
  std::lock_guard lock(mutex_);
  submitted_.push_back(&command->event());
  waiting_.push_back(std::move(command));
  changed_.notify_all();
}

void StreamDriver::hold() {
  std::lock_guard lock(mutex_);
  held_ = true;
}

void StreamDriver::release() {
  {
    std::lock_guard lock(mutex_);
    held_ = false;
  }
  changed_.notify_all();
}

std::vector<Event *> StreamDriver::submitted() const {
  std::lock_guard lock(mutex_);
  return submitted_;
}

std::vector<Event *> StreamDriver::executed() const {
  std::lock_guard lock(mutex_);
  return executed_;
}

void StreamDriver::runCommands() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || (!held_ && !waiting_.empty()); });
    if (stopping_)
      return;
    std::shared_ptr<Command> command = std::move(waiting_.front());
    waiting_.pop_front();
    executed_.push_back(&command->event());
    lock.unlock();
    command->markRunning();
    // No program loads on this device, so no kernel launch reaches it.
    cl_int status = std::holds_alternative<KernelLaunch>(command->payload())
                        ? CL_INVALID_OPERATION
                        : executeHostCommand(command->payload());
    command->complete(status);
    command.reset();
    lock.lock();
  }
}

std::vector<std::unique_ptr<DeviceDriver>> createStreamDrivers(CompilerLoader &) {
  std::vector<std::unique_ptr<DeviceDriver>> drivers;
  drivers.push_back(std::make_unique<StreamDriver>());
  return drivers;
}

} // namespace kiln::stream
