#include "api/api_support.hpp"

#include "runtime/objects/queue.hpp"

#include "runtime/objects/context.hpp"
#include "runtime/objects/event.hpp"

namespace kiln::api {

cl_int validateWaitList(cl_uint count, const cl_event *list, const Context *context,
                        std::vector<Event *> &events) {
  if ((count == 0) != (list == nullptr))
    return CL_INVALID_EVENT_WAIT_LIST;
  events.reserve(count);
  for (cl_uint index = 0; index < count; ++index) {
    Event *event = toObject<Event>(list[index]);
    if (event == nullptr)
      return CL_INVALID_EVENT_WAIT_LIST;
    if (context != nullptr && &event->context() != context)
      return CL_INVALID_CONTEXT;
    events.push_back(event);
  }
  return CL_SUCCESS;
}

void returnEvent(Event &event, cl_event *eventOut) {
  if (eventOut != nullptr)
    *eventOut = &event;
  else
    event.releaseExternal();
}

Queue *toHostQueue(cl_command_queue handle) {
  Queue *queue = toObject<Queue>(handle);
  return queue != nullptr && !queue->isOnDevice() ? queue : nullptr;
}

} // namespace kiln::api
