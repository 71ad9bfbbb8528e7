// Markers, barriers and waits enqueued on a queue.
#include "api/api_support.hpp"
#include "api/enqueue_support.hpp"
#include "runtime/objects/queue.hpp"

using namespace kiln;
using namespace kiln::api;

KILN_API cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue command_queue,
                                                        cl_uint num_events_in_wait_list,
                                                        const cl_event *event_wait_list,
                                                        cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateEnqueue(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    // Without a wait list a marker waits for everything enqueued before it.
    CommandOrdering ordering =
        target.waitList.empty() ? CommandOrdering::AfterAll : CommandOrdering::Normal;
    return submitCommand(target, CL_COMMAND_MARKER, NoOperation{}, event, false, ordering);
  });
}

KILN_API cl_int CL_API_CALL clEnqueueBarrierWithWaitList(cl_command_queue command_queue,
                                                         cl_uint num_events_in_wait_list,
                                                         const cl_event *event_wait_list,
                                                         cl_event *event) {
  return guard([&] {
    EnqueueTarget target;
    if (cl_int error =
            validateEnqueue(command_queue, num_events_in_wait_list, event_wait_list, target))
      return error;
    return submitCommand(target, CL_COMMAND_BARRIER, NoOperation{}, event, false,
                         CommandOrdering::Barrier);
  });
}

KILN_API cl_int CL_API_CALL clEnqueueMarker(cl_command_queue command_queue, cl_event *event) {
  if (event == nullptr)
    return CL_INVALID_VALUE;
  return clEnqueueMarkerWithWaitList(command_queue, 0, nullptr, event);
}

KILN_API cl_int CL_API_CALL clEnqueueBarrier(cl_command_queue command_queue) {
  return clEnqueueBarrierWithWaitList(command_queue, 0, nullptr, nullptr);
}

KILN_API cl_int CL_API_CALL clEnqueueWaitForEvents(cl_command_queue command_queue,
                                                   cl_uint num_events, const cl_event *event_list) {
  if (num_events == 0 || event_list == nullptr)
    return toObject<Queue>(command_queue) == nullptr ? CL_INVALID_COMMAND_QUEUE : CL_INVALID_VALUE;
  return guard([&] {
    EnqueueTarget target;
    cl_int error = validateEnqueue(command_queue, num_events, event_list, target);
    if (error == CL_INVALID_EVENT_WAIT_LIST)
      return CL_INVALID_EVENT;
    if (error != CL_SUCCESS)
      return error;
    // Later commands of the queue wait for these events: a barrier with this wait list.
    return submitCommand(target, CL_COMMAND_BARRIER, NoOperation{}, nullptr, false,
                         CommandOrdering::Barrier);
  });
}
