// A queue's unfinished events (runtime/objects/event_fifo.hpp): they leave oldest first in the
// usual case, from anywhere in the others, and what is left is always the rest in order.
#include "devices/stream/stream_driver.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/event.hpp"
#include "runtime/objects/event_fifo.hpp"
#include "runtime/objects/platform.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace kiln {
namespace {

class EventFifoTest : public ::testing::Test {
protected:
  EventFifoTest() {
    device_ = std::make_unique<Device>(Platform::get(), std::make_unique<stream::StreamDriver>());
    context_ =
        Ref<Context>(createObject<Context>(std::vector<Device *>{device_.get()},
                                           std::vector<cl_context_properties>{}, nullptr, nullptr));
    context_->releaseExternal(); // the Ref holds it now
  }

  /// `count` user events, and a fifo holding them in that order.
  std::vector<Ref<Event>> fill(EventFifo &fifo, size_t count) {
    std::vector<Ref<Event>> events;
    for (size_t i = 0; i < count; ++i) {
      events.emplace_back(createObject<Event>(*context_));
      events.back()->releaseExternal();
      fifo.push(events.back());
    }
    return events;
  }

  static std::vector<Event *> contents(const EventFifo &fifo) {
    std::vector<Event *> held;
    fifo.forEach([&](const Ref<Event> &event) { held.push_back(event.get()); });
    return held;
  }

  std::unique_ptr<Device> device_;
  Ref<Context> context_;
};

TEST_F(EventFifoTest, OldestFirstLeavesTheRestInOrder) {
  EventFifo fifo;
  std::vector<Ref<Event>> events = fill(fifo, 300);
  for (size_t i = 0; i < events.size(); ++i) {
    ASSERT_EQ(events[i].get(), fifo.remove(*events[i]).get());
    std::vector<Event *> rest = contents(fifo);
    ASSERT_EQ(events.size() - i - 1, rest.size());
    if (!rest.empty()) {
      EXPECT_EQ(events[i + 1].get(), rest.front());
      EXPECT_EQ(events.back().get(), fifo.newest().get());
    }
  }
  EXPECT_TRUE(fifo.empty());
}

TEST_F(EventFifoTest, RemovalsFromTheMiddleAndUnknownEvents) {
  EventFifo fifo;
  std::vector<Ref<Event>> events = fill(fifo, 200);
  std::vector<Event *> expected;
  for (size_t i = 0; i < events.size(); ++i)
    if (i % 3 != 1)
      expected.push_back(events[i].get());
  for (size_t i = 1; i < events.size(); i += 3)
    ASSERT_EQ(events[i].get(), fifo.remove(*events[i]).get());
  EXPECT_EQ(expected, contents(fifo));
  EXPECT_EQ(nullptr, fifo.remove(*events[1]).get()) << "already taken out";
  // The oldest ones, past the point where the storage is compacted, then new ones.
  for (size_t i = 0; i < 100; ++i) {
    ASSERT_EQ(expected.front(), fifo.remove(*expected.front()).get());
    expected.erase(expected.begin());
  }
  std::vector<Ref<Event>> more = fill(fifo, 5);
  for (const Ref<Event> &event : more)
    expected.push_back(event.get());
  EXPECT_EQ(expected, contents(fifo));
  EXPECT_EQ(more.back().get(), fifo.newest().get());
}

TEST_F(EventFifoTest, RemovalsInAnyOrderLeaveTheRestInOrder) {
  // As a device queue's children finish: in any order, the oldest (the parents) last.
  EventFifo fifo;
  std::vector<Ref<Event>> events = fill(fifo, 1000);
  std::vector<size_t> order(events.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = (i * 379 + 11) % order.size(); // every index once, scattered
  std::vector<bool> left(events.size(), false);
  for (size_t step = 0; step < order.size(); ++step) {
    size_t index = order[step];
    ASSERT_EQ(events[index].get(), fifo.remove(*events[index]).get());
    left[index] = true;
    if (step % 97 != 0 && step + 1 != order.size())
      continue;
    std::vector<Event *> expected;
    for (size_t i = 0; i < events.size(); ++i)
      if (!left[i])
        expected.push_back(events[i].get());
    ASSERT_EQ(expected, contents(fifo));
    if (!expected.empty())
      EXPECT_EQ(expected.back(), fifo.newest().get());
  }
  EXPECT_TRUE(fifo.empty());
  std::vector<Ref<Event>> more = fill(fifo, 3);
  EXPECT_EQ(more.back().get(), fifo.newest().get());
  EXPECT_EQ(more[1].get(), fifo.remove(*more[1]).get());
  EXPECT_EQ((std::vector<Event *>{more[0].get(), more[2].get()}), contents(fifo));
}

} // namespace
} // namespace kiln
