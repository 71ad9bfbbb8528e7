// Event entry points.
#include "api/api_support.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/event.hpp"
#include "runtime/objects/queue.hpp"

using namespace kiln;
using namespace kiln::api;

KILN_API cl_int CL_API_CALL clWaitForEvents(cl_uint num_events, const cl_event *event_list) {
  if (num_events == 0 || event_list == nullptr)
    return CL_INVALID_VALUE;
  return guard([&] {
    std::vector<Event *> events;
    for (cl_uint index = 0; index < num_events; ++index) {
      Event *event = toObject<Event>(event_list[index]);
      if (event == nullptr)
        return CL_INVALID_EVENT;
      if (!events.empty() && &event->context() != &events.front()->context())
        return CL_INVALID_CONTEXT;
      events.push_back(event);
    }
    cl_int result = CL_SUCCESS;
    for (Event *event : events)
      if (event->wait() < 0)
        result = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    return result;
  });
}

KILN_API cl_int CL_API_CALL clGetEventInfo(cl_event event, cl_event_info param_name,
                                           size_t param_value_size, void *param_value,
                                           size_t *param_value_size_ret) {
  Event *self = toObject<Event>(event);
  if (self == nullptr)
    return CL_INVALID_EVENT;
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    switch (param_name) {
    case CL_EVENT_COMMAND_QUEUE:
      return out(static_cast<cl_command_queue>(self->queue()));
    case CL_EVENT_CONTEXT:
      return out(static_cast<cl_context>(&self->context()));
    case CL_EVENT_COMMAND_TYPE:
      return out(self->commandType());
    case CL_EVENT_COMMAND_EXECUTION_STATUS:
      return out(self->status());
    case CL_EVENT_REFERENCE_COUNT:
      return out(self->externalCount());
    default:
      return CL_INVALID_VALUE;
    }
  });
}

KILN_API cl_event CL_API_CALL clCreateUserEvent(cl_context context, cl_int *errcode_ret) {
  return guardCreate<cl_event>(errcode_ret, [&](cl_int &error) -> cl_event {
    Context *owner = toObject<Context>(context);
    if (owner == nullptr) {
      error = CL_INVALID_CONTEXT;
      return nullptr;
    }
    return createObject<Event>(*owner);
  });
}

KILN_API cl_int CL_API_CALL clSetUserEventStatus(cl_event event, cl_int execution_status) {
  Event *self = toObject<Event>(event);
  if (self == nullptr || !self->isUserEvent())
    return CL_INVALID_EVENT;
  if (execution_status != CL_COMPLETE && execution_status >= 0)
    return CL_INVALID_VALUE;
  return guard(
      [&] { return self->setUserStatus(execution_status) ? CL_SUCCESS : CL_INVALID_OPERATION; });
}

KILN_API cl_int CL_API_CALL clSetEventCallback(cl_event event, cl_int command_exec_callback_type,
                                               Event::Callback pfn_notify, void *user_data) {
  Event *self = toObject<Event>(event);
  if (self == nullptr)
    return CL_INVALID_EVENT;
  if (pfn_notify == nullptr ||
      (command_exec_callback_type != CL_SUBMITTED && command_exec_callback_type != CL_RUNNING &&
       command_exec_callback_type != CL_COMPLETE))
    return CL_INVALID_VALUE;
  return guard([&] {
    self->addCallback(command_exec_callback_type, pfn_notify, user_data);
    return CL_SUCCESS;
  });
}

KILN_API cl_int CL_API_CALL clRetainEvent(cl_event event) {
  return retainObject<Event>(event, CL_INVALID_EVENT);
}

KILN_API cl_int CL_API_CALL clReleaseEvent(cl_event event) {
  return releaseObject<Event>(event, CL_INVALID_EVENT);
}

KILN_API cl_int CL_API_CALL clGetEventProfilingInfo(cl_event event, cl_profiling_info param_name,
                                                    size_t param_value_size, void *param_value,
                                                    size_t *param_value_size_ret) {
  Event *self = toObject<Event>(event);
  if (self == nullptr)
    return CL_INVALID_EVENT;
  if (self->isUserEvent() || !self->profilingEnabled() || self->status() != CL_COMPLETE)
    return CL_PROFILING_INFO_NOT_AVAILABLE;
  if (param_name < CL_PROFILING_COMMAND_QUEUED || param_name > CL_PROFILING_COMMAND_COMPLETE)
    return CL_INVALID_VALUE;
  InfoOutput out(param_value_size, param_value, param_value_size_ret);
  return out(self->profilingTime(param_name));
}
