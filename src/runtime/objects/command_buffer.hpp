// cl_command_buffer_khr: commands recorded once for a queue and run on it again and again.
#pragma once

#include "runtime/objects/mutable_command.hpp"
#include "runtime/objects/object.hpp"
#include "runtime/objects/queue.hpp"
#include "runtime/scheduling/command_buffer_replay.hpp"
#include "support/command_buffer_khr.hpp"

#include <memory>
#include <mutex>
#include <vector>

namespace kiln {

class CommandBuffer : public Object<_cl_command_buffer_khr, ObjectKind::CommandBuffer>,
                      public RefCounted<CommandBuffer> {
public:
  /// `properties`: the application's list as given (with its terminating 0), empty for none.
  CommandBuffer(Queue &queue, std::vector<cl_command_buffer_properties_khr> properties,
                cl_command_buffer_flags_khr flags)
      : queue_(&queue), properties_(std::move(properties)), flags_(flags),
        recording_(std::make_shared<RecordedCommands>()) {}

  Queue &queue() const { return *queue_; }
  Context &context() const { return queue_->context(); }
  const std::vector<cl_command_buffer_properties_khr> &properties() const { return properties_; }
  cl_command_buffer_flags_khr flags() const { return flags_; }

  bool isFinalized() const;
  /// Finalized, and no kernel command awaits arguments: it may be enqueued.
  bool isExecutable() const;
  bool isMutable() const { return flags_ & CL_COMMAND_BUFFER_MUTABLE_KHR; }

  /// Appends a command; returns its sync point, or 0 when the buffer is finalized.
  cl_sync_point_khr record(cl_command_type type, CommandPayload payload);

  /// Whether `point` names a command recorded in this buffer.
  bool hasSyncPoint(cl_sync_point_khr point) const;

  /// Ends the recording; false when it had ended already.
  bool finalize();

  /// The commands of a finalized buffer, for a run of it.
  std::shared_ptr<const RecordedCommands> commands() const;

  /// Keeps `command`, the handle of the command at its index; returns it.
  MutableCommand &addMutableCommand(std::unique_ptr<MutableCommand> command);

  /// Whether `command` is one of this buffer's.
  bool owns(const MutableCommand &command) const;

  /// Replaces the payloads of commands by index. Runs enqueued before keep the commands they
  /// were enqueued with; later runs get the new ones.
  void replaceCommands(std::vector<std::pair<size_t, CommandPayload>> replacements);

private:
  Ref<Queue> queue_;
  std::vector<cl_command_buffer_properties_khr> properties_;
  cl_command_buffer_flags_khr flags_;

  mutable std::mutex mutex_;
  std::shared_ptr<RecordedCommands> recording_;
  bool finalized_ = false;
  std::vector<std::unique_ptr<MutableCommand>> mutableCommands_;
};

} // namespace kiln
