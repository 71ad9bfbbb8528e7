// What every clEnqueue* entry point does around its own checks: validating the queue and the
// wait list, creating the command's event, handing the command to the queue, and blocking.
#pragma once

#include "runtime/scheduling/command.hpp"

#include <vector>

namespace kiln {
class CommandBuffer;
class Queue;
} // namespace kiln

namespace kiln::api {

/// Where a clCommand*KHR call records its command (into a command buffer) instead of enqueueing
/// it.
struct CommandRecording {
  CommandBuffer *buffer = nullptr;
  cl_sync_point_khr *syncPoint = nullptr; // the application's, may be null
};

struct EnqueueTarget {
  Queue *queue = nullptr;
  std::vector<Event *> waitList;
  CommandRecording recording; // empty for an enqueue
};

/// CL_INVALID_COMMAND_QUEUE, CL_INVALID_EVENT_WAIT_LIST or CL_INVALID_CONTEXT (an event of
/// another context), else CL_SUCCESS with `target` filled.
cl_int validateEnqueue(cl_command_queue queue, cl_uint numEvents, const cl_event *waitList,
                       EnqueueTarget &target);

enum class CommandOrdering { Normal, AfterAll, Barrier };

/// Enqueues a validated command, or records it when `target` is a recording. With `blocking`, waits
/// until it finishes and returns CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if it failed.
cl_int submitCommand(const EnqueueTarget &target, cl_command_type type, CommandPayload payload,
                     cl_event *eventOut, bool blocking = false,
                     CommandOrdering ordering = CommandOrdering::Normal);

} // namespace kiln::api
