#include "runtime/objects/command_buffer.hpp"

namespace kiln {

bool CommandBuffer::isFinalized() const {
  std::lock_guard lock(mutex_);
  return finalized_;
}

bool CommandBuffer::isExecutable() const {
  std::lock_guard lock(mutex_);
  if (!finalized_)
    return false;
  for (const std::unique_ptr<MutableCommand> &command : mutableCommands_)
    if (command->awaitsArguments())
      return false;
  return true;
}

cl_sync_point_khr CommandBuffer::record(cl_command_type type, CommandPayload payload) {
  std::lock_guard lock(mutex_);
  if (finalized_)
    return 0;
  recording_->commands.push_back({type, std::move(payload)});
  // Sync point n is the n-th command: 0 names none.
  return static_cast<cl_sync_point_khr>(recording_->commands.size());
}

bool CommandBuffer::hasSyncPoint(cl_sync_point_khr point) const {
  std::lock_guard lock(mutex_);
  return point != 0 && point <= recording_->commands.size();
}

bool CommandBuffer::finalize() {
  std::lock_guard lock(mutex_);
  return !std::exchange(finalized_, true);
}

std::shared_ptr<const RecordedCommands> CommandBuffer::commands() const {
  std::lock_guard lock(mutex_);
  return recording_;
}

MutableCommand &CommandBuffer::addMutableCommand(std::unique_ptr<MutableCommand> command) {
  std::lock_guard lock(mutex_);
  mutableCommands_.push_back(std::move(command));
  return *mutableCommands_.back();
}

bool CommandBuffer::owns(const MutableCommand &command) const {
  std::lock_guard lock(mutex_);
  for (const std::unique_ptr<MutableCommand> &owned : mutableCommands_)
    if (owned.get() == &command)
      return true;
  return false;
}

void CommandBuffer::replaceCommands(std::vector<std::pair<size_t, CommandPayload>> replacements) {
  std::lock_guard lock(mutex_);
  // Runs in flight hold the recording they were enqueued with: this one is a new one.
  auto updated = std::make_shared<RecordedCommands>();
  updated->commands = recording_->commands;
  for (auto &[index, payload] : replacements)
    updated->commands[index].payload = std::move(payload);
  recording_ = std::move(updated);
}

} // namespace kiln
