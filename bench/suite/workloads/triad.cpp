// STREAM's triad, a[i] = b[i] + s * c[i]: memory bandwidth as a kernel sees it.
#include "../workload.hpp"

#include <random>

namespace bench {
namespace {

const char *kSource = R"(
  kernel void triad(global float *a, global const float *b, global const float *c, float s) {
    size_t i = get_global_id(0);
    a[i] = b[i] + s * c[i];
  })";

constexpr float kScalar = 3.0f;

class Triad final : public Workload {
public:
  std::string name() const override { return "vector triad"; }
  std::string unit() const override { return "GB/s"; }
  double work() const override { return 3.0 * sizeof(float) * b_.size() / 1e9; }

  void prepare(Scale scale) override {
    size_t n = scale == Scale::Tiny ? 4096 : size_t{1} << 25;
    std::mt19937 random(1);
    std::uniform_real_distribution<float> value(-1, 1);
    b_.resize(n);
    c_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      b_[i] = value(random);
      c_[i] = value(random);
    }
    a_.assign(n, 0);
  }

  void runNative() override {
    const long n = static_cast<long>(a_.size());
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; ++i)
      a_[i] = b_[i] + kScalar * c_[i];
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<Triad> {
    Run(ClSession &session, const Triad &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSource, "triad")),
          a_(session.buffer(workload.a_.size() * sizeof(float))), b_(session.buffer(workload.b_)),
          c_(session.buffer(workload.c_)) {
      setArgs(kernel_.get(), a_, b_, c_, kScalar);
    }
    void enqueue() override {
      size_t global = workload_.a_.size();
      session_.launch(kernel_.get(), 1, &global);
    }
    std::string mismatch() override {
      return compareFloats(session_.read<float>(a_.get(), workload_.a_.size()), workload_.a_,
                           1e-6f);
    }
    ClKernel kernel_;
    ClBuffer a_, b_, c_;
  };

  std::vector<float> a_, b_, c_;
};

} // namespace

std::unique_ptr<Workload> makeTriad() {
  return std::make_unique<Triad>();
}

} // namespace bench
