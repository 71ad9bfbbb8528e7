// The round trip of a kernel launch: an empty one-work-item kernel enqueued and waited for
// (clFinish), a thousand times a run, so the run's time in ms is the time of one launch in us.
// And the rate of launches in flight: twenty thousand small kernels (1024 work-items adding one
// to an int each) enqueued back to back on one in-order queue, then one clFinish, as an
// application that streams kernels does: the device runs behind the enqueues, so the queue
// holds thousands of unfinished commands. The native reference is a fork and join of
// every core (an empty OpenMP parallel region) per launch.
#include "../workload.hpp"

namespace bench {
namespace {

const char *kSource = R"(kernel void empty(global int *unused) {}
                          kernel void touch(global int *a) { a[get_global_id(0)] += 1; })";

constexpr size_t kTouchedItems = 1024;

class LaunchLatency final : public Workload {
public:
  explicit LaunchLatency(bool inFlight) : inFlight_(inFlight) {}
  std::string name() const override {
    return inFlight_ ? "kernel launches in flight" : "kernel launch";
  }
  std::string unit() const override { return "k launches/s"; }
  double work() const override { return launches_ / 1e3; }

  void prepare(Scale scale) override {
    launches_ = scale == Scale::Tiny ? 10 : inFlight_ ? 20000 : 1000;
  }

  void runNative() override {
    for (int launch = 0; launch < launches_; ++launch) {
#pragma omp parallel
      { asm volatile("" ::: "memory"); }
    }
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<LaunchLatency> {
    Run(ClSession &session, const LaunchLatency &workload)
        : RunOf(session, workload),
          kernel_(session.kernel(kSource, workload.inFlight_ ? "touch" : "empty")),
          data_(session.buffer(kTouchedItems * sizeof(cl_int))) {
      setArgs(kernel_.get(), data_);
    }
    void enqueue() override {
      size_t global = workload_.inFlight_ ? kTouchedItems : 1;
      for (int launch = 0; launch < workload_.launches_; ++launch) {
        session_.launch(kernel_.get(), 1, &global);
        if (!workload_.inFlight_)
          session_.finish();
      }
      session_.finish();
    }
    std::string mismatch() override { return ""; }
    ClKernel kernel_;
    ClBuffer data_;
  };

  bool inFlight_;
  int launches_ = 0;
};

} // namespace

std::unique_ptr<Workload> makeLaunchLatency() {
  return std::make_unique<LaunchLatency>(/*inFlight=*/false);
}

std::unique_ptr<Workload> makeLaunchesInFlight() {
  return std::make_unique<LaunchLatency>(/*inFlight=*/true);
}

} // namespace bench
