// Profiling times of a command that a device timed itself (Event::setDeviceExecutionTimes, as the
// GPU device does with CUDA events): the device's duration is exact, its place on the host's clock
// only as exact as the clocks' mapping. START and END keep the device's duration and stay between
// SUBMIT and COMPLETE wherever the mapping puts them. Driven directly, with the test-only stream
// device (CI has no GPU).
#include "devices/stream/stream_driver.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/event.hpp"
#include "runtime/objects/platform.hpp"
#include "runtime/objects/queue.hpp"
#include "support/monotonic_clock.hpp"

#include "app_ref.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace kiln {
namespace {

constexpr cl_ulong kMicrosecond = 1'000;

struct Times {
  cl_ulong submit, start, end, complete;
};

class DeviceTimesTest : public ::testing::Test {
protected:
  DeviceTimesTest() {
    device_ = std::make_unique<Device>(Platform::get(), std::make_unique<stream::StreamDriver>());
    context_ = make<Context>(std::vector<Device *>{device_.get()},
                             std::vector<cl_context_properties>{}, nullptr, nullptr);
    queue_ =
        make<Queue>(*context_, *device_, cl_command_queue_properties{CL_QUEUE_PROFILING_ENABLE},
                    std::vector<cl_queue_properties>{});
  }

  /// A command's times when the device reports it ran from `start` to `end` (host clock, as
  /// mapped), the host having seen it submitted and then complete 2 ms later.
  Times timesFor(cl_ulong start, cl_ulong end) {
    AppRef<Event> event = make<Event>(*queue_, CL_COMMAND_NDRANGE_KERNEL);
    event->setStatus(CL_SUBMITTED);
    event->setStatus(CL_RUNNING);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    event->setDeviceExecutionTimes(start, end);
    event->setStatus(CL_COMPLETE);
    return {event->profilingTime(CL_PROFILING_COMMAND_SUBMIT),
            event->profilingTime(CL_PROFILING_COMMAND_START),
            event->profilingTime(CL_PROFILING_COMMAND_END),
            event->profilingTime(CL_PROFILING_COMMAND_COMPLETE)};
  }

  static void expectOrdered(const Times &times) {
    EXPECT_LE(times.submit, times.start);
    EXPECT_LE(times.start, times.end);
    EXPECT_LE(times.end, times.complete);
  }

  std::unique_ptr<Device> device_;
  AppRef<Context> context_;
  AppRef<Queue> queue_;
};

TEST_F(DeviceTimesTest, TimesMappedWithinTheHostsPointsAreKept) {
  // The device ran 5 us starting 1 ms after now: inside the 2 ms the host waits.
  cl_ulong start = monotonicNanoseconds() + 1'000 * kMicrosecond;
  Times times = timesFor(start, start + 5 * kMicrosecond);
  EXPECT_EQ(start, times.start);
  EXPECT_EQ(5 * kMicrosecond, times.end - times.start);
  expectOrdered(times);
}

TEST_F(DeviceTimesTest, AMappingThatErrsLateKeepsTheDevicesDuration) {
  // Mapped a second late: after COMPLETE. A short kernel kept its 3 us, ending at COMPLETE.
  cl_ulong start = monotonicNanoseconds() + 1'000'000 * kMicrosecond;
  Times times = timesFor(start, start + 3 * kMicrosecond);
  EXPECT_EQ(3 * kMicrosecond, times.end - times.start);
  EXPECT_EQ(times.complete, times.end);
  expectOrdered(times);
}

TEST_F(DeviceTimesTest, AMappingThatErrsEarlyKeepsTheDevicesDuration) {
  // Mapped a second early: before SUBMIT. The kernel keeps its 4 us, starting at SUBMIT.
  cl_ulong start = monotonicNanoseconds() - 1'000'000 * kMicrosecond;
  Times times = timesFor(start, start + 4 * kMicrosecond);
  EXPECT_EQ(4 * kMicrosecond, times.end - times.start);
  EXPECT_EQ(times.submit, times.start);
  expectOrdered(times);
}

TEST_F(DeviceTimesTest, ADurationLongerThanTheHostSawIsCutToIt) {
  // The device claims 10 s: no more than SUBMIT to COMPLETE can be true.
  cl_ulong start = monotonicNanoseconds();
  Times times = timesFor(start, start + 10'000'000 * kMicrosecond);
  EXPECT_EQ(times.submit, times.start);
  EXPECT_EQ(times.complete, times.end);
}

} // namespace
} // namespace kiln
