// The command scheduler with a device that keeps submission order, as the GPU device's CUDA
// stream does (and the runs of command buffers there): there the next command of an in-order queue
// waits only until its predecessor has been handed to the device, not until it has finished. CI has
// no GPU, so these tests drive the runtime's objects directly (linked in, not through the ICD
// loader) with the test-only stream device (devices/stream/), a fresh one for each test.
#include "devices/stream/stream_driver.hpp"
#include "runtime/device_driver.hpp"
#include "runtime/objects/command_buffer.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/event.hpp"
#include "runtime/objects/platform.hpp"
#include "runtime/objects/queue.hpp"
#include "runtime/scheduling/command.hpp"
#include "runtime/scheduling/command_buffer_replay.hpp"

#include "app_ref.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace kiln {
namespace {

using StreamDevice = stream::StreamDriver;

class SubmissionOrderTest : public ::testing::Test {
protected:
  SubmissionOrderTest() {
    auto driver = std::make_unique<StreamDevice>();
    stream_ = driver.get();
    device_ = std::make_unique<Device>(Platform::get(), std::move(driver));
    context_ = make<Context>(std::vector<Device *>{device_.get()},
                             std::vector<cl_context_properties>{}, nullptr, nullptr);
    queue_ = make<Queue>(*context_, *device_, cl_command_queue_properties{0},
                         std::vector<cl_queue_properties>{});
  }
  ~SubmissionOrderTest() override {
    stream_->release();
    queue_->finish();
  }

  /// Enqueues a command that does nothing on `queue_`, after `waitList`; returns its event.
  Event *enqueue(std::vector<Event *> waitList = {}) {
    events_.push_back(make<Event>(*queue_, CL_COMMAND_MARKER));
    Event *event = events_.back().get();
    queue_->enqueue(Command::make(Ref<Event>(event), NoOperation{}), waitList);
    return event;
  }

  /// A finalized command buffer for `queue_` of commands that do nothing, of `types`.
  AppRef<CommandBuffer> recordedBuffer(const std::vector<cl_command_type> &types) {
    auto buffer = make<CommandBuffer>(*queue_, std::vector<cl_command_buffer_properties_khr>{},
                                      cl_command_buffer_flags_khr{0});
    for (cl_command_type type : types)
      EXPECT_NE(0u, buffer->record(type, NoOperation{}));
    EXPECT_TRUE(buffer->finalize());
    return buffer;
  }

  /// Enqueues a run of `buffer` on `queue_`, after `waitList`; returns its event.
  Event *enqueueRun(CommandBuffer &buffer, std::vector<Event *> waitList = {}) {
    events_.push_back(make<Event>(*queue_, CL_COMMAND_COMMAND_BUFFER_KHR));
    Event *event = events_.back().get();
    queue_->enqueue(Command::make(Ref<Event>(event), RunCommandBuffer{buffer.commands()}),
                    waitList);
    return event;
  }

  /// The command types of what the device has been handed, in order.
  std::vector<cl_command_type> submittedTypes() const {
    std::vector<cl_command_type> types;
    for (Event *event : stream_->submitted())
      types.push_back(event->commandType());
    return types;
  }

  StreamDevice *stream_ = nullptr;
  std::unique_ptr<Device> device_;
  AppRef<Context> context_;
  AppRef<Queue> queue_;
  std::vector<AppRef<Event>> events_;
};

TEST_F(SubmissionOrderTest, InOrderCommandsReachTheDeviceBeforeTheirPredecessorsFinish) {
  stream_->hold();
  Event *first = enqueue(), *second = enqueue(), *third = enqueue();
  // Nothing has run, yet all three are with the device, in order.
  EXPECT_EQ((std::vector<Event *>{first, second, third}), stream_->submitted());
  EXPECT_TRUE(stream_->executed().empty());
  EXPECT_EQ(CL_SUBMITTED, third->status());
  stream_->release();
  queue_->finish();
  EXPECT_EQ((std::vector<Event *>{first, second, third}), stream_->executed());
  for (Event *event : {first, second, third})
    EXPECT_EQ(CL_COMPLETE, event->status());
}

TEST_F(SubmissionOrderTest, ACommandWaitingForAUserEventHoldsBackTheCommandsAfterIt) {
  auto gate = make<Event>(*context_);
  Event *first = enqueue({gate.get()}), *second = enqueue(), *third = enqueue();
  EXPECT_TRUE(stream_->submitted().empty());
  EXPECT_EQ(CL_QUEUED, second->status());
  ASSERT_TRUE(gate->setUserStatus(CL_COMPLETE));
  queue_->finish();
  EXPECT_EQ((std::vector<Event *>{first, second, third}), stream_->submitted());
  EXPECT_EQ((std::vector<Event *>{first, second, third}), stream_->executed());
  EXPECT_EQ(CL_COMPLETE, third->status());
}

TEST_F(SubmissionOrderTest, AFailedWaitListFailsItsCommandAloneAndTheOthersStillRunInOrder) {
  auto gate = make<Event>(*context_);
  stream_->hold();
  Event *before = enqueue();
  Event *failing = enqueue({gate.get()});
  Event *after = enqueue(), *last = enqueue();
  EXPECT_EQ((std::vector<Event *>{before}), stream_->submitted());
  ASSERT_TRUE(gate->setUserStatus(-1));
  // The failed command never reaches the device; the ones after it follow the one before it.
  EXPECT_EQ((std::vector<Event *>{before, after, last}), stream_->submitted());
  EXPECT_GT(0, failing->status());
  stream_->release();
  queue_->finish();
  EXPECT_EQ((std::vector<Event *>{before, after, last}), stream_->executed());
  for (Event *event : {before, after, last})
    EXPECT_EQ(CL_COMPLETE, event->status());
}

TEST_F(SubmissionOrderTest, FinishWaitsForEveryCommandWhenTheNewestFinishedFirst) {
  // With a failed wait list the newest command can finish before older ones still on the
  // device: clFinish must wait for those too.
  auto gate = make<Event>(*context_);
  stream_->hold();
  Event *running = enqueue(), *failing = enqueue({gate.get()});
  ASSERT_TRUE(gate->setUserStatus(-1));
  EXPECT_GT(0, failing->status());
  EXPECT_EQ(CL_SUBMITTED, running->status());
  std::thread releaser([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    stream_->release();
  });
  queue_->finish();
  EXPECT_EQ(CL_COMPLETE, running->status());
  releaser.join();
}

TEST_F(SubmissionOrderTest, ManyCommandsBehindAUserEventAreSubmittedWithoutDeepRecursion) {
  auto gate = make<Event>(*context_);
  Event *first = enqueue({gate.get()});
  for (int i = 0; i < 20000; ++i)
    enqueue();
  ASSERT_TRUE(gate->setUserStatus(CL_COMPLETE));
  queue_->finish();
  EXPECT_EQ(CL_COMPLETE, first->status());
  EXPECT_EQ(20001u, stream_->executed().size());
  EXPECT_EQ(CL_COMPLETE, events_.back()->status());
}

// A command buffer's run (scheduling/command_buffer_replay.hpp) on such a device: its commands
// go to the device back to back, the run finishes after them, and what follows the run in the
// queue waits for it to finish.
TEST_F(SubmissionOrderTest, ACommandBufferRunHandsItsCommandsToTheDeviceBackToBack) {
  auto buffer =
      recordedBuffer({CL_COMMAND_COPY_BUFFER, CL_COMMAND_NDRANGE_KERNEL, CL_COMMAND_FILL_BUFFER});
  stream_->hold();
  Event *run = enqueueRun(*buffer);
  Event *after = enqueue();
  EXPECT_EQ((std::vector<cl_command_type>{CL_COMMAND_COPY_BUFFER, CL_COMMAND_NDRANGE_KERNEL,
                                          CL_COMMAND_FILL_BUFFER}),
            submittedTypes());
  EXPECT_EQ(CL_RUNNING, run->status());
  EXPECT_EQ(CL_QUEUED, after->status());
  stream_->release();
  queue_->finish();
  EXPECT_EQ(CL_COMPLETE, run->status());
  EXPECT_EQ(CL_COMPLETE, after->status());
  // The three, then the run itself (which completes through the device), then the command after.
  std::vector<Event *> executed = stream_->executed();
  ASSERT_EQ(5u, executed.size());
  EXPECT_EQ(run, executed[3]);
  EXPECT_EQ(after, executed[4]);
}

TEST_F(SubmissionOrderTest, RunsOfOneCommandBufferFollowTheirWaitListsAndEachOther) {
  auto buffer = recordedBuffer({CL_COMMAND_COPY_BUFFER, CL_COMMAND_FILL_BUFFER});
  auto gate = make<Event>(*context_);
  Event *first = enqueueRun(*buffer, {gate.get()});
  Event *second = enqueueRun(*buffer);
  EXPECT_TRUE(stream_->submitted().empty());
  ASSERT_TRUE(gate->setUserStatus(CL_COMPLETE));
  queue_->finish();
  EXPECT_EQ(CL_COMPLETE, first->status());
  EXPECT_EQ(CL_COMPLETE, second->status());
  // Each run: its two commands, then itself.
  std::vector<Event *> executed = stream_->executed();
  ASSERT_EQ(6u, executed.size());
  EXPECT_EQ(first, executed[2]);
  EXPECT_EQ(second, executed[5]);
}

TEST_F(SubmissionOrderTest, AnEmptyCommandBufferRunCompletes) {
  auto buffer = recordedBuffer({});
  Event *run = enqueueRun(*buffer);
  queue_->finish();
  EXPECT_EQ(CL_COMPLETE, run->status());
}

} // namespace
} // namespace kiln
