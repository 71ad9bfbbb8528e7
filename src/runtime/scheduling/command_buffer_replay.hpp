// A finalized command buffer's commands, and how one enqueue of them runs: each command is copied
// into a command of its own on the command buffer's queue, in the order they were recorded, and
// the enqueue's command finishes after the last of them.
//
// Recording order satisfies every sync point (a command can only wait for commands recorded
// before it), so the copies run one after the other on every queue, in order or not.
#pragma once

#include "runtime/scheduling/command.hpp"
#include "runtime/scheduling/prepared_sequence.hpp"

#include <memory>
#include <mutex>
#include <vector>

namespace kiln {

class DeviceDriver;

struct RecordedCommand {
  cl_command_type type;
  CommandPayload payload; // copied for each run
};

struct RecordedCommands {
  std::vector<RecordedCommand> commands;

  /// What `driver` made of the commands, made at the first call; null where it has no form of
  /// its own for them. Every run of a command buffer is on one device, so one form is kept.
  const PreparedSequence *preparedFor(DeviceDriver &driver) const;

private:
  mutable std::once_flag prepareOnce_;
  mutable std::unique_ptr<PreparedSequence> prepared_;
};

/// Runs the commands of `parent`'s RunCommandBuffer payload; `parent` completes after them, with
/// CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST when one of them failed. For Command, when
/// `parent` is submitted.
void startReplay(const std::shared_ptr<Command> &parent);

} // namespace kiln
