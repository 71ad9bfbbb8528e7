#include "runtime/command.hpp"

#include "runtime/device.hpp"
#include "runtime/queue.hpp"

namespace kiln {

void Command::dependencyFinished(cl_int status, bool propagatesErrors) {
  if (status < 0 && propagatesErrors)
    dependencyFailed_.store(true, std::memory_order_relaxed);
  if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1)
    submit();
}

void Command::submit() {
  if (dependencyFailed_.load(std::memory_order_relaxed)) {
    // The specification's answer for a command whose wait list failed: it never runs.
    complete(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    return;
  }
  event_->setStatus(CL_SUBMITTED);
  event_->queue()->device().driver().submit(shared_from_this());
}

void Command::complete(cl_int status) {
  event_->setStatus(status);
  // Only now may the objects the command used be destroyed (the specification deletes a
  // released object once the commands using it have finished).
  payload_ = NoOperation{};
}

} // namespace kiln
