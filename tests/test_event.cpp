// Events: queries, user events gating commands, status progression, callbacks, failure
// propagation, clWaitForEvents, markers and barriers (with and without wait lists, in in-order
// and out-of-order queues) and profiling information.
#include "cl_test.hpp"

#include <array>
#include <atomic>
#include <mutex>
#include <thread>

using namespace cltest;

namespace {

class EventTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    buffer_ = createBuffer(CL_MEM_READ_WRITE, kSize * sizeof(int));
  }

  /// A queue with `properties`, or null (and the test skipped by the caller) if unsupported.
  Queue queueWith(cl_command_queue_properties properties) {
    auto supported =
        deviceInfo<cl_command_queue_properties>(device_, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
    if ((supported & properties) != properties)
      return Queue();
    cl_queue_properties list[] = {CL_QUEUE_PROPERTIES, properties, 0};
    cl_int error = CL_SUCCESS;
    Queue queue(clCreateCommandQueueWithProperties(context_, device_, list, &error));
    EXPECT_CL_SUCCESS(error);
    return queue;
  }

  /// A non-blocking write of `value` into element `index` of buffer_, waiting for `waitList`.
  Event writeValue(cl_command_queue queue, size_t index, int value,
                   std::vector<cl_event> waitList = {}) {
    values_.push_back(std::make_unique<int>(value));
    Event event;
    EXPECT_CL_SUCCESS(
        clEnqueueWriteBuffer(queue, buffer_, CL_FALSE, index * sizeof(int), sizeof(int),
                             values_.back().get(), static_cast<cl_uint>(waitList.size()),
                             waitList.empty() ? nullptr : waitList.data(), event.out()));
    return event;
  }

  static constexpr size_t kSize = 64;
  Mem buffer_;
  std::vector<std::unique_ptr<int>> values_; // the host memory of pending writes
};

/// Each work-item runs `rounds` dependent steps that no compiler can fold into fewer.
const char *const kSpinSource = R"(
    kernel void spin(global uint *x, uint rounds) {
      uint v = x[get_global_id(0)];
      for (uint i = 0; i < rounds; ++i)
        v = (v ^ (v >> 13)) * 1664525u + i;
      x[get_global_id(0)] = v;
    })";

/// What a callback saw.
struct CallbackRecord {
  std::atomic<int> calls{0};
  std::atomic<cl_int> status{999};
  cl_event event = nullptr;
  std::atomic<bool> eventMatched{true};
};

void CL_CALLBACK recordCallback(cl_event event, cl_int status, void *data) {
  auto *record = static_cast<CallbackRecord *>(data);
  if (record->event != nullptr && record->event != event)
    record->eventMatched = false;
  record->status = status;
  record->calls.fetch_add(1);
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Queries

TEST_F(EventTest, CommandEventReportsQueueContextTypeAndStatus) {
  Event event = writeValue(queue_, 0, 1);
  ASSERT_CL_SUCCESS(clWaitForEvents(1, event.ptr()));
  EXPECT_EQ(queue_.get(), eventInfo<cl_command_queue>(event, CL_EVENT_COMMAND_QUEUE));
  EXPECT_EQ(context_.get(), eventInfo<cl_context>(event, CL_EVENT_CONTEXT));
  EXPECT_EQ(cl_command_type{CL_COMMAND_WRITE_BUFFER},
            eventInfo<cl_command_type>(event, CL_EVENT_COMMAND_TYPE));
  EXPECT_EQ(CL_COMPLETE, eventStatus(event));
  EXPECT_GE(refCount(event.get()), 1u);
}

TEST_F(EventTest, InfoErrors) {
  Event event = writeValue(queue_, 0, 1);
  cl_int value = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetEventInfo(event, 0x7FFF, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                                   sizeof value - 1, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_EVENT, clGetEventInfo(nullptr, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                                   sizeof value, &value, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
}

TEST_F(EventTest, RetainAndReleaseMoveTheReferenceCount) {
  // A user event: no command holds it, so only the application moves its count.
  Event event = userEvent();
  cl_uint initial = refCount(event.get());
  ASSERT_CL_SUCCESS(clRetainEvent(event));
  EXPECT_EQ(initial + 1, refCount(event.get()));
  ASSERT_CL_SUCCESS(clReleaseEvent(event));
  EXPECT_EQ(initial, refCount(event.get()));
  ASSERT_CL_SUCCESS(clSetUserEventStatus(event, CL_COMPLETE));
  EXPECT_CL_ERROR(CL_INVALID_EVENT, clRetainEvent(nullptr));
  EXPECT_CL_ERROR(CL_INVALID_EVENT, clReleaseEvent(nullptr));
}

TEST_F(EventTest, ForeignEventIsInvalidEvent) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  Event event = writeValue(queue_, 0, 1);
  ASSERT_CL_SUCCESS(clFinish(queue_));
  ForeignObject foreign;
  cl_event handle = foreign.as<cl_event>(event.get());
  cl_int value = 0;
  EXPECT_CL_ERROR(CL_INVALID_EVENT, clRetainEvent(handle));
  EXPECT_CL_ERROR(CL_INVALID_EVENT, clReleaseEvent(handle));
  EXPECT_CL_ERROR(CL_INVALID_EVENT, clGetEventInfo(handle, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                                   sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_EVENT, clWaitForEvents(1, &handle));
  EXPECT_CL_ERROR(CL_INVALID_EVENT, clSetUserEventStatus(handle, CL_COMPLETE));
  EXPECT_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST,
                  clEnqueueMarkerWithWaitList(queue_, 1, &handle, nullptr));
  // A queue handle is not an event.
  cl_event mistyped = reinterpret_cast<cl_event>(queue_.get());
  EXPECT_CL_ERROR(CL_INVALID_EVENT, clGetEventInfo(mistyped, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                                   sizeof value, &value, nullptr));
}

// ---------------------------------------------------------------------------------------------
// User events

TEST_F(EventTest, UserEventStartsSubmittedAndHasNoQueue) {
  Event event = userEvent();
  // "The execution status of the user event object created is set to CL_SUBMITTED."
  EXPECT_EQ(CL_SUBMITTED, eventStatus(event));
  EXPECT_EQ(cl_command_type{CL_COMMAND_USER},
            eventInfo<cl_command_type>(event, CL_EVENT_COMMAND_TYPE));
  EXPECT_EQ(nullptr, eventInfo<cl_command_queue>(event, CL_EVENT_COMMAND_QUEUE));
  EXPECT_EQ(context_.get(), eventInfo<cl_context>(event, CL_EVENT_CONTEXT));
  ASSERT_CL_SUCCESS(clSetUserEventStatus(event, CL_COMPLETE));
  EXPECT_EQ(CL_COMPLETE, eventStatus(event));
}

TEST_F(EventTest, UserEventStatusCanBeSetOnlyOnce) {
  Event event = userEvent();
  ASSERT_CL_SUCCESS(clSetUserEventStatus(event, CL_COMPLETE));
  // "CL_INVALID_OPERATION if the execution_status for event has already been changed by a
  // previous call to clSetUserEventStatus."
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, clSetUserEventStatus(event, CL_COMPLETE));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, clSetUserEventStatus(event, -5));
  EXPECT_EQ(CL_COMPLETE, eventStatus(event));
}

TEST_F(EventTest, UserEventStatusMustBeCompleteOrAnError) {
  Event event = userEvent();
  // "CL_INVALID_VALUE if the execution_status is not CL_COMPLETE or a negative integer value."
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clSetUserEventStatus(event, CL_SUBMITTED));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clSetUserEventStatus(event, CL_RUNNING));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clSetUserEventStatus(event, CL_QUEUED));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clSetUserEventStatus(event, 17));
  ASSERT_CL_SUCCESS(clSetUserEventStatus(event, -42));
  EXPECT_EQ(-42, eventStatus(event));
}

TEST_F(EventTest, SetUserEventStatusOfACommandEventIsInvalidEvent) {
  Event event = writeValue(queue_, 0, 1);
  ASSERT_CL_SUCCESS(clFinish(queue_));
  // "CL_INVALID_EVENT if event is not a valid user event object."
  EXPECT_CL_ERROR(CL_INVALID_EVENT, clSetUserEventStatus(event, CL_COMPLETE));
  EXPECT_CL_ERROR(CL_INVALID_EVENT, clSetUserEventStatus(nullptr, CL_COMPLETE));
}

TEST_F(EventTest, CreateUserEventWithNullContextIsInvalidContext) {
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateUserEvent(nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, error);
}

TEST_F(EventTest, UserEventGatesACommandUntilComplete) {
  Gate gate(context_);
  Event write = writeValue(queue_, 3, 1234, {gate});
  EXPECT_TRUE(staysFalse([&] { return eventStatus(write) <= CL_COMPLETE; }))
      << "the command ran before its user event completed";
  // A command waiting for its wait list is still queued (not submitted to the device).
  EXPECT_EQ(CL_QUEUED, eventStatus(write));
  ASSERT_CL_SUCCESS(gate.open());
  ASSERT_CL_SUCCESS(clWaitForEvents(1, write.ptr()));
  EXPECT_EQ(1234, read<int>(buffer_, 1, 3)[0]);
}

TEST_F(EventTest, StatusOnlyMovesForwardThroughTheSpecifiedStates) {
  Gate gate(context_);
  const size_t count = 1 << 22;
  std::vector<unsigned char> big(count, 1);
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, count);
  Event event;
  ASSERT_CL_SUCCESS(clEnqueueWriteBuffer(queue_, buffer, CL_FALSE, 0, count, big.data(), 1,
                                         gate.list(), event.out()));
  ASSERT_CL_SUCCESS(gate.open());
  cl_int previous = CL_QUEUED + 1;
  for (;;) {
    cl_int status = eventStatus(event);
    ASSERT_TRUE(status == CL_QUEUED || status == CL_SUBMITTED || status == CL_RUNNING ||
                status == CL_COMPLETE)
        << status;
    ASSERT_LE(status, previous) << "status went backwards";
    previous = status;
    if (status == CL_COMPLETE)
      break;
  }
}

TEST_F(EventTest, InOrderQueueRunsCommandsInOrder) {
  // In an in-order queue, a command waits for the one before it even without a wait list.
  Gate gate(context_);
  Event first = writeValue(queue_, 0, 1, {gate});
  Event second = writeValue(queue_, 0, 2);
  EXPECT_TRUE(staysFalse([&] { return eventStatus(second) <= CL_COMPLETE; }));
  ASSERT_CL_SUCCESS(gate.open());
  ASSERT_CL_SUCCESS(clFinish(queue_));
  EXPECT_EQ(2, read<int>(buffer_, 1)[0]) << "the second write must land last";
}

TEST_F(EventTest, InOrderQueueKeepsOrderAcrossAThousandMixedCommandsBehindAUserEvent) {
  // Each launch computes x = 3x + i, so any reordering changes the result; writes, copies, fills
  // and markers in between run on the device's stream or on the host. The gate holds the whole
  // chain back until it is enqueued (a device that queues commands back to back must not
  // recurse once per command when it opens).
  Kernel step = buildKernel(R"(
      kernel void step(global uint *x, uint i) { x[0] = x[0] * 3u + i; })",
                            "step");
  ASSERT_NE(nullptr, step.get());
  Mem scratch = createBuffer(CL_MEM_READ_WRITE, sizeof(cl_uint));
  Gate gate(context_);
  cl_uint initial = 7;
  ASSERT_CL_SUCCESS(clEnqueueWriteBuffer(queue_, buffer_, CL_FALSE, 0, sizeof initial, &initial, 1,
                                         gate.list(), nullptr));
  cl_uint expected = initial;
  const cl_uint kLaunches = 1000;
  for (cl_uint i = 0; i < kLaunches; ++i) {
    ASSERT_TRUE(setArgs(step.get(), buffer_, i));
    size_t one = 1;
    ASSERT_CL_SUCCESS(
        clEnqueueNDRangeKernel(queue_, step, 1, nullptr, &one, &one, 0, nullptr, nullptr));
    expected = expected * 3u + i;
    if (i % 97 == 50) {
      // Round trip through another buffer: copy out, overwrite, copy back.
      ASSERT_CL_SUCCESS(clEnqueueCopyBuffer(queue_, buffer_, scratch, 0, 0, sizeof(cl_uint), 0,
                                            nullptr, nullptr));
      cl_uint junk = 0xdead;
      ASSERT_CL_SUCCESS(clEnqueueFillBuffer(queue_, buffer_, &junk, sizeof junk, 0, sizeof junk, 0,
                                            nullptr, nullptr));
      ASSERT_CL_SUCCESS(clEnqueueMarkerWithWaitList(queue_, 0, nullptr, nullptr));
      ASSERT_CL_SUCCESS(clEnqueueCopyBuffer(queue_, scratch, buffer_, 0, 0, sizeof(cl_uint), 0,
                                            nullptr, nullptr));
    }
  }
  ASSERT_CL_SUCCESS(gate.open());
  ASSERT_CL_SUCCESS(clFinish(queue_));
  EXPECT_EQ(expected, read<cl_uint>(buffer_, 1)[0]);
}

TEST_F(EventTest, FinishWaitsForEarlierCommandsWhenALaterOneFailsAtOnce) {
  // The later write fails as soon as it may run (its wait list failed); clFinish must still
  // wait for the kernel before it.
  Kernel spin = buildKernel(kSpinSource, "spin");
  ASSERT_NE(nullptr, spin.get());
  ASSERT_TRUE(setArgs(spin.get(), buffer_, cl_uint{20'000'000}));
  Gate failed(context_);
  ASSERT_CL_SUCCESS(failed.fail(-5));
  Event kernel;
  size_t one = 1;
  ASSERT_CL_SUCCESS(
      clEnqueueNDRangeKernel(queue_, spin, 1, nullptr, &one, &one, 0, nullptr, kernel.out()));
  Event write = writeValue(queue_, 1, 5, {failed});
  ASSERT_CL_SUCCESS(clFinish(queue_));
  EXPECT_EQ(CL_COMPLETE, eventStatus(kernel)) << "clFinish returned before an earlier command";
  EXPECT_LT(eventStatus(write), 0);
}

// ---------------------------------------------------------------------------------------------
// Failure propagation

TEST_F(EventTest, FailedUserEventFailsTheCommandsWaitingForIt) {
  Gate gate(context_);
  Event write = writeValue(queue_, 5, 777, {gate});
  Event dependent = writeValue(queue_, 6, 888, {write});
  ASSERT_CL_SUCCESS(gate.fail(-7));
  // The commands are terminated: their status is a negative error code.
  ASSERT_TRUE(eventually([&] { return eventStatus(write) < 0; })) << eventStatus(write);
  ASSERT_TRUE(eventually([&] { return eventStatus(dependent) < 0; })) << eventStatus(dependent);
  // "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution status of any of the events in
  // event_list is a negative integer value."
  EXPECT_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(1, write.ptr()));
  cl_event both[] = {write, dependent};
  EXPECT_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(2, both));
  EXPECT_NE(777, read<int>(buffer_, 1, 5)[0]) << "a failed write must not run";
}

TEST_F(EventTest, BlockingCallWaitingForAFailedEventReportsTheFailure) {
  SKIP_ON_POCL("hangs in a blocking read whose wait list has a failed event");
  Gate gate(context_);
  ASSERT_CL_SUCCESS(gate.fail(-3));
  int value = 0;
  // "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the read and write operations are blocking
  // and the execution status of any of the events in event_wait_list is a negative integer".
  EXPECT_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
                  clEnqueueReadBuffer(queue_, buffer_, CL_TRUE, 0, sizeof value, &value, 1,
                                      gate.list(), nullptr));
  EXPECT_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
                  clEnqueueWriteBuffer(queue_, buffer_, CL_TRUE, 0, sizeof value, &value, 1,
                                       gate.list(), nullptr));
  cl_int error = CL_SUCCESS;
  void *mapped = clEnqueueMapBuffer(queue_, buffer_, CL_TRUE, CL_MAP_READ, 0, 16, 1, gate.list(),
                                    nullptr, &error);
  EXPECT_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, error);
  EXPECT_EQ(nullptr, mapped);
  // The failed map mapped nothing: there is no pointer the application could unmap.
  EXPECT_EQ(0u, memInfo<cl_uint>(buffer_, CL_MEM_MAP_COUNT));
}

TEST_F(EventTest, FailedEventPropagatesThroughAMarker) {
  Gate gate(context_);
  Event marker;
  ASSERT_CL_SUCCESS(clEnqueueMarkerWithWaitList(queue_, 1, gate.list(), marker.out()));
  Event after = writeValue(queue_, 0, 5, {marker});
  ASSERT_CL_SUCCESS(gate.fail());
  ASSERT_TRUE(eventually([&] { return eventStatus(marker) < 0; }));
  ASSERT_TRUE(eventually([&] { return eventStatus(after) < 0; }));
}

// ---------------------------------------------------------------------------------------------
// Callbacks

TEST_F(EventTest, CallbacksRunForEveryStatusOnceReached) {
  Gate gate(context_);
  Event write = writeValue(queue_, 0, 1, {gate});
  CallbackRecord submitted, running, complete;
  for (auto *record : {&submitted, &running, &complete})
    record->event = write;
  ASSERT_CL_SUCCESS(clSetEventCallback(write, CL_SUBMITTED, recordCallback, &submitted));
  ASSERT_CL_SUCCESS(clSetEventCallback(write, CL_RUNNING, recordCallback, &running));
  ASSERT_CL_SUCCESS(clSetEventCallback(write, CL_COMPLETE, recordCallback, &complete));
  EXPECT_TRUE(staysFalse([&] { return complete.calls > 0; }));
  EXPECT_EQ(0, complete.calls.load());
  ASSERT_CL_SUCCESS(gate.open());
  ASSERT_CL_SUCCESS(clWaitForEvents(1, write.ptr()));
  ASSERT_TRUE(eventually(
      [&] { return submitted.calls == 1 && running.calls == 1 && complete.calls == 1; }));
  // Each callback is called once, with the status it was registered for.
  EXPECT_EQ(CL_SUBMITTED, submitted.status.load());
  EXPECT_EQ(CL_RUNNING, running.status.load());
  EXPECT_EQ(CL_COMPLETE, complete.status.load());
  for (auto *record : {&submitted, &running, &complete})
    EXPECT_TRUE(record->eventMatched);
  // No second call later.
  EXPECT_TRUE(staysFalse([&] { return complete.calls > 1 || submitted.calls > 1; }));
}

TEST_F(EventTest, CallbackRegisteredAfterCompletionIsStillCalled) {
  Event write = writeValue(queue_, 0, 1);
  ASSERT_CL_SUCCESS(clWaitForEvents(1, write.ptr()));
  CallbackRecord record;
  record.event = write;
  ASSERT_CL_SUCCESS(clSetEventCallback(write, CL_COMPLETE, recordCallback, &record));
  ASSERT_TRUE(eventually([&] { return record.calls == 1; }));
  EXPECT_EQ(CL_COMPLETE, record.status.load());
}

TEST_F(EventTest, CallbacksOfAFailedCommandGetTheErrorStatus) {
  Gate gate(context_);
  Event write = writeValue(queue_, 0, 1, {gate});
  CallbackRecord complete;
  ASSERT_CL_SUCCESS(clSetEventCallback(write, CL_COMPLETE, recordCallback, &complete));
  ASSERT_CL_SUCCESS(gate.fail(-9));
  // "The callback function registered for a command_exec_callback_type value of CL_COMPLETE will
  // be called when the command has completed successfully or is abnormally terminated", with
  // "an appropriate error code" as the status. (PoCL 3.1 never calls it.)
  ASSERT_TRUE(eventually([&] { return complete.calls == 1; }));
  EXPECT_LT(complete.status.load(), 0);
}

TEST_F(EventTest, UserEventCallbacks) {
  Event event = userEvent();
  CallbackRecord complete;
  complete.event = event;
  ASSERT_CL_SUCCESS(clSetEventCallback(event, CL_COMPLETE, recordCallback, &complete));
  EXPECT_TRUE(staysFalse([&] { return complete.calls > 0; }));
  ASSERT_CL_SUCCESS(clSetUserEventStatus(event, CL_COMPLETE));
  ASSERT_TRUE(eventually([&] { return complete.calls == 1; }));
  EXPECT_EQ(CL_COMPLETE, complete.status.load());
}

TEST_F(EventTest, CallbackMayReleaseTheEvent) {
  // A callback that drops the last reference of its own event must not crash.
  Event write = writeValue(queue_, 0, 1);
  std::atomic<int> calls{0};
  struct Data {
    std::atomic<int> *calls;
  } data{&calls};
  cl_event raw = write.release();
  ASSERT_CL_SUCCESS(clSetEventCallback(
      raw, CL_COMPLETE,
      [](cl_event event, cl_int, void *user) {
        clReleaseEvent(event);
        static_cast<Data *>(user)->calls->fetch_add(1);
      },
      &data));
  ASSERT_TRUE(eventually([&] { return calls == 1; }));
  ASSERT_CL_SUCCESS(clFinish(queue_));
}

TEST_F(EventTest, CallbackErrors) {
  Event event = userEvent();
  CallbackRecord record;
  // "CL_INVALID_VALUE if pfn_event_notify is NULL or if command_exec_callback_type is not
  // CL_SUBMITTED, CL_RUNNING, or CL_COMPLETE."
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clSetEventCallback(event, CL_COMPLETE, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clSetEventCallback(event, CL_QUEUED, recordCallback, &record));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clSetEventCallback(event, -1, recordCallback, &record));
  EXPECT_CL_ERROR(CL_INVALID_EVENT,
                  clSetEventCallback(nullptr, CL_COMPLETE, recordCallback, &record));
  ASSERT_CL_SUCCESS(clSetUserEventStatus(event, CL_COMPLETE));
  EXPECT_EQ(0, record.calls.load());
}

// ---------------------------------------------------------------------------------------------
// clWaitForEvents

TEST_F(EventTest, WaitForEventsErrors) {
  Event event = userEvent();
  ASSERT_CL_SUCCESS(clSetUserEventStatus(event, CL_COMPLETE));
  // "CL_INVALID_VALUE if num_events is zero or event_list is NULL."
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clWaitForEvents(0, event.ptr()));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clWaitForEvents(1, nullptr));
  cl_event withNull[] = {event, nullptr};
  EXPECT_CL_ERROR(CL_INVALID_EVENT, clWaitForEvents(2, withNull));
  // "CL_INVALID_CONTEXT if events specified in event_list do not belong to the same context."
  cl_int error = CL_SUCCESS;
  Context other(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  Event foreign(clCreateUserEvent(other, &error));
  ASSERT_CL_SUCCESS(error);
  ASSERT_CL_SUCCESS(clSetUserEventStatus(foreign, CL_COMPLETE));
  cl_event mixed[] = {event, foreign};
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, clWaitForEvents(2, mixed));
}

TEST_F(EventTest, WaitForEventsWaitsForAUserEventSetByAnotherThread) {
  Event event = userEvent();
  std::thread setter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    clSetUserEventStatus(event, CL_COMPLETE);
  });
  EXPECT_CL_SUCCESS(clWaitForEvents(1, event.ptr()));
  EXPECT_EQ(CL_COMPLETE, eventStatus(event));
  setter.join();
}

// ---------------------------------------------------------------------------------------------
// Markers and barriers

TEST_F(EventTest, MarkerWithoutWaitListWaitsForEveryEarlierCommand) {
  Queue queue = queueWith(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  if (queue == nullptr)
    GTEST_SKIP() << "no out-of-order queues";
  Gate first(context_), second(context_);
  Event a = writeValue(queue, 0, 1, {first});
  Event b = writeValue(queue, 1, 2, {second});
  Event marker;
  ASSERT_CL_SUCCESS(clEnqueueMarkerWithWaitList(queue, 0, nullptr, marker.out()));
  EXPECT_EQ(cl_command_type{CL_COMMAND_MARKER},
            eventInfo<cl_command_type>(marker, CL_EVENT_COMMAND_TYPE));
  ASSERT_CL_SUCCESS(first.open());
  ASSERT_CL_SUCCESS(clWaitForEvents(1, a.ptr()));
  EXPECT_TRUE(staysFalse([&] { return eventStatus(marker) <= CL_COMPLETE; }))
      << "the marker completed while an earlier command was pending";
  ASSERT_CL_SUCCESS(second.open());
  EXPECT_CL_SUCCESS(clWaitForEvents(1, marker.ptr()));
  EXPECT_EQ(CL_COMPLETE, eventStatus(b));
}

TEST_F(EventTest, MarkerWithWaitListWaitsOnlyForItsList) {
  Queue queue = queueWith(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  if (queue == nullptr)
    GTEST_SKIP() << "no out-of-order queues";
  Gate first(context_), second(context_);
  Event a = writeValue(queue, 0, 1, {first});
  Event b = writeValue(queue, 1, 2, {second});
  Event marker;
  ASSERT_CL_SUCCESS(clEnqueueMarkerWithWaitList(queue, 1, a.ptr(), marker.out()));
  EXPECT_TRUE(staysFalse([&] { return eventStatus(marker) <= CL_COMPLETE; }));
  ASSERT_CL_SUCCESS(first.open());
  // "The marker command either waits for a list of events to complete, or if the list is empty
  // it waits for all commands previously enqueued". (PoCL 3.1 waits for every earlier command.)
  ASSERT_TRUE(eventually([&] { return eventStatus(marker) == CL_COMPLETE; }))
      << "the marker waited for a command outside its wait list";
  EXPECT_NE(CL_COMPLETE, eventStatus(b));
  ASSERT_CL_SUCCESS(second.open());
  ASSERT_CL_SUCCESS(clFinish(queue));
}

TEST_F(EventTest, BarrierWithoutWaitListOrdersLaterCommands) {
  Queue queue = queueWith(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  if (queue == nullptr)
    GTEST_SKIP() << "no out-of-order queues";
  Gate gate(context_);
  Event before = writeValue(queue, 0, 1, {gate});
  Event barrier;
  ASSERT_CL_SUCCESS(clEnqueueBarrierWithWaitList(queue, 0, nullptr, barrier.out()));
  EXPECT_EQ(cl_command_type{CL_COMMAND_BARRIER},
            eventInfo<cl_command_type>(barrier, CL_EVENT_COMMAND_TYPE));
  // A later command without a wait list still waits for the barrier.
  Event after = writeValue(queue, 0, 2);
  EXPECT_TRUE(staysFalse([&] { return eventStatus(after) <= CL_COMPLETE; }))
      << "a command after the barrier ran before the barrier completed";
  ASSERT_CL_SUCCESS(gate.open());
  ASSERT_CL_SUCCESS(clFinish(queue));
  EXPECT_EQ(2, read<int>(buffer_, 1)[0]);
}

TEST_F(EventTest, BarrierWithWaitListWaitsOnlyForItsListAndBlocksLaterCommands) {
  Queue queue = queueWith(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  if (queue == nullptr)
    GTEST_SKIP() << "no out-of-order queues";
  Gate gated(context_), listed(context_);
  Event outside = writeValue(queue, 0, 1, {gated});
  Event inList = writeValue(queue, 1, 2, {listed});
  Event barrier;
  ASSERT_CL_SUCCESS(clEnqueueBarrierWithWaitList(queue, 1, inList.ptr(), barrier.out()));
  Event after = writeValue(queue, 2, 3);
  EXPECT_TRUE(staysFalse([&] { return eventStatus(after) <= CL_COMPLETE; }));
  ASSERT_CL_SUCCESS(listed.open());
  // "The barrier command either waits for a list of events to complete, or if the list is empty
  // it waits for all commands previously enqueued in command_queue to complete": with a list,
  // the command outside it (still gated) does not hold the barrier back.
  ASSERT_TRUE(eventually([&] { return eventStatus(barrier) == CL_COMPLETE; }))
      << "the barrier waited for a command outside its wait list";
  EXPECT_TRUE(eventually([&] { return eventStatus(after) == CL_COMPLETE; }));
  ASSERT_CL_SUCCESS(gated.open());
  ASSERT_CL_SUCCESS(clFinish(queue));
}

TEST_F(EventTest, OutOfOrderQueueHonoursEventDependencies) {
  Queue queue = queueWith(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  if (queue == nullptr)
    GTEST_SKIP() << "no out-of-order queues";
  // write -> copy -> read chained through events only.
  const size_t count = 4096;
  std::vector<int> data(count);
  for (size_t index = 0; index < count; ++index)
    data[index] = static_cast<int>(index * 7);
  Mem source = createBuffer(CL_MEM_READ_WRITE, count * sizeof(int));
  Mem destination = createBuffer(CL_MEM_READ_WRITE, count * sizeof(int));
  Gate gate(context_);
  Event written, copied, readBack;
  ASSERT_CL_SUCCESS(clEnqueueWriteBuffer(queue, source, CL_FALSE, 0, count * sizeof(int),
                                         data.data(), 1, gate.list(), written.out()));
  ASSERT_CL_SUCCESS(clEnqueueCopyBuffer(queue, source, destination, 0, 0, count * sizeof(int), 1,
                                        written.ptr(), copied.out()));
  std::vector<int> out(count, -1);
  ASSERT_CL_SUCCESS(clEnqueueReadBuffer(queue, destination, CL_FALSE, 0, count * sizeof(int),
                                        out.data(), 1, copied.ptr(), readBack.out()));
  EXPECT_TRUE(staysFalse([&] { return eventStatus(readBack) <= CL_COMPLETE; }));
  ASSERT_CL_SUCCESS(gate.open());
  ASSERT_CL_SUCCESS(clWaitForEvents(1, readBack.ptr()));
  EXPECT_TRUE(equalArrays(data, out));
}

TEST_F(EventTest, CommandsWaitForEventsOfAnotherQueue) {
  cl_int error = CL_SUCCESS;
  Queue other(clCreateCommandQueueWithProperties(context_, device_, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  Gate gate(context_);
  Event first = writeValue(other, 0, 5, {gate});
  // A command of queue_ waiting for a command of `other`.
  Event second = writeValue(queue_, 0, 6, {first});
  EXPECT_TRUE(staysFalse([&] { return eventStatus(second) <= CL_COMPLETE; }));
  ASSERT_CL_SUCCESS(gate.open());
  ASSERT_CL_SUCCESS(clWaitForEvents(1, second.ptr()));
  EXPECT_EQ(CL_COMPLETE, eventStatus(first));
  EXPECT_EQ(6, read<int>(buffer_, 1)[0]) << "the write of the other queue must land first";
}

TEST_F(EventTest, DeprecatedMarkerBarrierAndWaitForEvents) {
  SKIP_ON_POCL("aborts in clEnqueueWaitForEvents (\"unimplemented\")");
  Gate gate(context_);
  Event write = writeValue(queue_, 0, 11, {gate});
  Event marker;
  // "CL_INVALID_VALUE if event is NULL."
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clEnqueueMarker(queue_, nullptr));
  ASSERT_CL_SUCCESS(clEnqueueMarker(queue_, marker.out()));
  EXPECT_CL_SUCCESS(clEnqueueBarrier(queue_));
  EXPECT_CL_SUCCESS(clEnqueueWaitForEvents(queue_, 1, gate.list()));
  // "CL_INVALID_VALUE if num_events is 0 or event_list is NULL."
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clEnqueueWaitForEvents(queue_, 0, gate.list()));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clEnqueueWaitForEvents(queue_, 1, nullptr));
  ASSERT_CL_SUCCESS(gate.open());
  ASSERT_CL_SUCCESS(clWaitForEvents(1, marker.ptr()));
  EXPECT_EQ(CL_COMPLETE, eventStatus(write));
  ASSERT_CL_SUCCESS(clFinish(queue_));
}

TEST_F(EventTest, WaitListOfAnotherContextIsInvalidContext) {
  cl_int error = CL_SUCCESS;
  Context other(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  Event foreign(clCreateUserEvent(other, &error));
  ASSERT_CL_SUCCESS(error);
  ASSERT_CL_SUCCESS(clSetUserEventStatus(foreign, CL_COMPLETE));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT,
                  clEnqueueMarkerWithWaitList(queue_, 1, foreign.ptr(), nullptr));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT,
                  clEnqueueBarrierWithWaitList(queue_, 1, foreign.ptr(), nullptr));
  if (!isPocl()) // PoCL 3.1 aborts in clEnqueueWaitForEvents
    EXPECT_CL_ERROR(CL_INVALID_CONTEXT, clEnqueueWaitForEvents(queue_, 1, foreign.ptr()));
  EXPECT_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST,
                  clEnqueueMarkerWithWaitList(queue_, 1, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST,
                  clEnqueueBarrierWithWaitList(queue_, 0, foreign.ptr(), nullptr));
}

// ---------------------------------------------------------------------------------------------
// Profiling

TEST_F(EventTest, ProfilingTimesAreOrdered) {
  Queue queue = queueWith(CL_QUEUE_PROFILING_ENABLE);
  ASSERT_NE(nullptr, queue.get()) << "CL_QUEUE_PROFILING_ENABLE is a mandated capability";
  std::vector<unsigned char> data(1 << 20, 3);
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, data.size());
  Event event;
  ASSERT_CL_SUCCESS(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, data.size(), data.data(), 0,
                                         nullptr, event.out()));
  std::array<cl_ulong, 5> times{};
  const cl_profiling_info points[] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                      CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END,
                                      CL_PROFILING_COMMAND_COMPLETE};
  for (int index = 0; index < 5; ++index) {
    size_t size = 0;
    ASSERT_CL_SUCCESS(
        clGetEventProfilingInfo(event, points[index], sizeof(cl_ulong), &times[index], &size));
    EXPECT_EQ(sizeof(cl_ulong), size);
  }
  EXPECT_GT(times[0], 0u);
  for (int index = 1; index < 5; ++index)
    EXPECT_LE(times[index - 1], times[index]) << "profiling point " << index;
}

TEST_F(EventTest, ProfilingOfAGatedCommandStartsAfterTheGateOpens) {
  Queue queue = queueWith(CL_QUEUE_PROFILING_ENABLE);
  ASSERT_NE(nullptr, queue.get());
  Gate gate(context_);
  Event write = writeValue(queue, 0, 1, {gate});
  // "CL_PROFILING_INFO_NOT_AVAILABLE if ... the execution status of the command identified by
  // event is not CL_COMPLETE".
  cl_ulong value = 0;
  EXPECT_CL_ERROR(
      CL_PROFILING_INFO_NOT_AVAILABLE,
      clGetEventProfilingInfo(write, CL_PROFILING_COMMAND_QUEUED, sizeof value, &value, nullptr));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_CL_SUCCESS(gate.open());
  ASSERT_CL_SUCCESS(clWaitForEvents(1, write.ptr()));
  cl_ulong queued = 0, start = 0;
  ASSERT_CL_SUCCESS(
      clGetEventProfilingInfo(write, CL_PROFILING_COMMAND_QUEUED, sizeof queued, &queued, nullptr));
  ASSERT_CL_SUCCESS(
      clGetEventProfilingInfo(write, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr));
  EXPECT_GE(start - queued, 15'000'000u) << "start must come after the 20 ms gate";
}

TEST_F(EventTest, ProfilingOfKernelsIsOrderedAndCoversTheirRun) {
  Queue queue = queueWith(CL_QUEUE_PROFILING_ENABLE);
  ASSERT_NE(nullptr, queue.get());
  Kernel spin = buildKernel(kSpinSource, "spin");
  ASSERT_NE(nullptr, spin.get());
  // A first run loads the kernel (devices may do that at its first launch).
  ASSERT_TRUE(setArgs(spin.get(), buffer_, cl_uint{1}));
  size_t items = kSize;
  ASSERT_CL_SUCCESS(
      clEnqueueNDRangeKernel(queue, spin, 1, nullptr, &items, nullptr, 0, nullptr, nullptr));
  // Back to back in one queue: each kernel starts after the one before it ends.
  std::array<Event, 3> events;
  std::array<cl_uint, 3> rounds{1000, 2'000'000, 1000};
  for (size_t k = 0; k < events.size(); ++k) {
    ASSERT_TRUE(setArgs(spin.get(), buffer_, rounds[k]));
    size_t global = kSize;
    ASSERT_CL_SUCCESS(clEnqueueNDRangeKernel(queue, spin, 1, nullptr, &global, nullptr, 0, nullptr,
                                             events[k].out()));
  }
  ASSERT_CL_SUCCESS(clFinish(queue));
  const cl_profiling_info points[] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                      CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END,
                                      CL_PROFILING_COMMAND_COMPLETE};
  std::array<std::array<cl_ulong, 5>, 3> times{};
  for (size_t k = 0; k < events.size(); ++k) {
    for (int index = 0; index < 5; ++index)
      ASSERT_CL_SUCCESS(clGetEventProfilingInfo(events[k], points[index], sizeof(cl_ulong),
                                                &times[k][index], nullptr));
    for (int index = 1; index < 5; ++index)
      EXPECT_LE(times[k][index - 1], times[k][index]) << "kernel " << k << ", point " << index;
  }
  EXPECT_LE(times[0][3], times[1][2]) << "the second kernel started before the first ended";
  EXPECT_LE(times[1][3], times[2][2]) << "the third kernel started before the second ended";
  // Two million dependent multiply-adds take far more than the thousand-round kernels.
  EXPECT_GT(times[1][3] - times[1][2], times[0][3] - times[0][2]);
  EXPECT_GT(times[1][3] - times[1][2], times[2][3] - times[2][2]);
}

TEST_F(EventTest, ProfilingInfoNotAvailableCases) {
  cl_ulong value = 0;
  // A queue without CL_QUEUE_PROFILING_ENABLE.
  Event write = writeValue(queue_, 0, 1);
  ASSERT_CL_SUCCESS(clWaitForEvents(1, write.ptr()));
  EXPECT_CL_ERROR(
      CL_PROFILING_INFO_NOT_AVAILABLE,
      clGetEventProfilingInfo(write, CL_PROFILING_COMMAND_START, sizeof value, &value, nullptr));
  // A user event.
  Event user = userEvent();
  ASSERT_CL_SUCCESS(clSetUserEventStatus(user, CL_COMPLETE));
  EXPECT_CL_ERROR(
      CL_PROFILING_INFO_NOT_AVAILABLE,
      clGetEventProfilingInfo(user, CL_PROFILING_COMMAND_START, sizeof value, &value, nullptr));
}

TEST_F(EventTest, ProfilingOfAFailedCommandIsNotAvailable) {
  Queue queue = queueWith(CL_QUEUE_PROFILING_ENABLE);
  ASSERT_NE(nullptr, queue.get());
  Gate gate(context_);
  Event write = writeValue(queue, 0, 1, {gate});
  ASSERT_CL_SUCCESS(gate.fail());
  ASSERT_TRUE(eventually([&] { return eventStatus(write) < 0; }));
  cl_ulong value = 0;
  // The execution status is not CL_COMPLETE.
  EXPECT_CL_ERROR(
      CL_PROFILING_INFO_NOT_AVAILABLE,
      clGetEventProfilingInfo(write, CL_PROFILING_COMMAND_END, sizeof value, &value, nullptr));
}

TEST_F(EventTest, ProfilingInfoErrors) {
  Queue queue = queueWith(CL_QUEUE_PROFILING_ENABLE);
  ASSERT_NE(nullptr, queue.get());
  Event write = writeValue(queue, 0, 1);
  ASSERT_CL_SUCCESS(clWaitForEvents(1, write.ptr()));
  cl_ulong value = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetEventProfilingInfo(write, 0x7FFF, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetEventProfilingInfo(write, CL_PROFILING_COMMAND_END,
                                                            sizeof value - 1, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_EVENT, clGetEventProfilingInfo(nullptr, CL_PROFILING_COMMAND_END,
                                                            sizeof value, &value, nullptr));
}
