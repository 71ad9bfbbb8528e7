#include "runtime/objects/command_buffer.hpp"

namespace kiln {

bool CommandBuffer::isFinalized() const {
  std::lock_guard lock(mutex_);
  return finalized_;
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

} // namespace kiln
