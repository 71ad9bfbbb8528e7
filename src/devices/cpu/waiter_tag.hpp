//===- waiter_tag.hpp - Which waiting threads may run a command -----------===//
#pragma once

#include "runtime/objects/event.hpp"
#include "runtime/scheduling/command.hpp"

namespace kiln::cpu {

/// The job of `command`'s waiterTag (see ThreadPool::helpUntil): a thread waiting for a command
/// of the same queue may run it. No thread may when the application has asked for callbacks on
/// its event: they would run on that thread, inside its clFinish or clWaitForEvents, where a lock
/// the application holds around the wait would deadlock a callback that takes it.
inline const void *waiterTagOf(const Command &command) {
  const Event &event = command.event();
  return event.hasCallbacks() ? nullptr : event.queue();
}

} // namespace kiln::cpu
