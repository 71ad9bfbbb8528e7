// The round trip of a kernel launch: an empty one-work-item kernel enqueued and waited for
// (clFinish), a thousand times a run, so the run's time in ms is the time of one launch in us.
// The native reference is a fork and join of every core (an empty OpenMP parallel region).
#include "../workload.hpp"

namespace bench {
namespace {

const char *kSource = R"(kernel void empty(global int *unused) {})";

class LaunchLatency final : public Workload {
public:
  std::string name() const override { return "kernel launch"; }
  std::string unit() const override { return "k launches/s"; }
  double work() const override { return launches_ / 1e3; }

  void prepare(Scale scale) override { launches_ = scale == Scale::Tiny ? 10 : 1000; }

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
        : RunOf(session, workload), kernel_(session.kernel(kSource, "empty")),
          unused_(session.buffer(sizeof(cl_int))) {
      setArgs(kernel_.get(), unused_);
    }
    void enqueue() override {
      size_t global = 1;
      for (int launch = 0; launch < workload_.launches_; ++launch) {
        session_.launch(kernel_.get(), 1, &global);
        session_.finish();
      }
    }
    std::string mismatch() override { return ""; }
    ClKernel kernel_;
    ClBuffer unused_;
  };

  int launches_ = 0;
};

} // namespace

std::unique_ptr<Workload> makeLaunchLatency() {
  return std::make_unique<LaunchLatency>();
}

} // namespace bench
