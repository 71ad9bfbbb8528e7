#include "api/enqueue_support.hpp"

#include "api/api_support.hpp"
#include "runtime/objects/command_buffer.hpp"
#include "runtime/objects/queue.hpp"

namespace kiln::api {

cl_int validateEnqueue(cl_command_queue queue, cl_uint numEvents, const cl_event *waitList,
                       EnqueueTarget &target) {
  target.queue = toHostQueue(queue);
  if (target.queue == nullptr)
    return CL_INVALID_COMMAND_QUEUE;
  return validateWaitList(numEvents, waitList, &target.queue->context(), target.waitList);
}

cl_int submitCommand(const EnqueueTarget &target, cl_command_type type, CommandPayload payload,
                     cl_event *eventOut, bool blocking, CommandOrdering ordering) {
  if (CommandBuffer *buffer = target.recording.buffer) {
    cl_sync_point_khr point = buffer->record(type, std::move(payload));
    if (point == 0)
      return CL_INVALID_OPERATION;
    if (target.recording.syncPoint != nullptr)
      *target.recording.syncPoint = point;
    return CL_SUCCESS;
  }
  // The event starts with the application's reference; the command holds its own.
  Event *event = createObject<Event>(*target.queue, type);
  Ref<Event> held(event);
  std::shared_ptr<Command> command = Command::make(held, std::move(payload));
  switch (ordering) {
  case CommandOrdering::Normal:
    target.queue->enqueue(command, target.waitList);
    break;
  case CommandOrdering::AfterAll:
    target.queue->enqueueMarker(command, target.waitList);
    break;
  case CommandOrdering::Barrier:
    target.queue->enqueueBarrier(command, target.waitList);
    break;
  }
  returnEvent(*event, eventOut);
  if (blocking && held->wait() < 0)
    return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  return CL_SUCCESS;
}

} // namespace kiln::api
