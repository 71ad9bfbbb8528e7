// clpeak's single-precision compute kernels: each work-item runs long chains of dependent
// multiply-adds on a float, float4 or float16. Only neighbouring work-items in SIMD lanes (or
// wide vector types) keep the FMA units busy, so this measures how well work-items vectorize.
#include "../workload.hpp"

#include <cmath>

namespace bench {
namespace {

/// clpeak's shape: two values feeding each other, 16 multiply-adds per loop trip. With m = 1 (an
/// argument, so the compiler cannot fold it) the pair (x, y) turns by 60 degrees each step: the
/// values stay small integers and the result is exact on every implementation.
const char *kSource = R"(
  #if WIDTH == 1
  typedef float TYPE;
  #define SUM(v) (v)
  #elif WIDTH == 4
  typedef float4 TYPE;
  #define SUM(v) dot(v, (float4)(1.0f))
  #else
  typedef float16 TYPE;
  #define SUM(v) dot(v.s0123 + v.s4567 + v.s89ab + v.scdef, (float4)(1.0f))
  #endif
  #define MAD_4(x, y) x = mad(x, m, y); y = mad(y, m, -x); x = mad(x, m, y); y = mad(y, m, -x);
  #define MAD_16(x, y) MAD_4(x, y); MAD_4(x, y); MAD_4(x, y); MAD_4(x, y);
  kernel void compute(global float *out, float m, int trips) {
    TYPE x = (TYPE)(1.0f), y = (TYPE)(get_local_id(0));
    for (int trip = 0; trip < trips; ++trip) {
      MAD_16(x, y);
    }
    out[get_global_id(0)] = SUM(y);
  })";

constexpr int kTrips = 256;

class ComputePeak final : public Workload {
public:
  explicit ComputePeak(int width) : width_(width) {}

  std::string name() const override { return "compute float" + suffix(); }
  std::string unit() const override { return "GFLOP/s"; }
  double work() const override { return 2.0 * 16 * kTrips * width_ * double(items_) / 1e9; }

  void prepare(Scale scale) override {
    items_ = scale == Scale::Tiny ? 1024 : size_t{1} << 20 >> (width_ == 16 ? 3 : 0);
    out_.assign(items_, 0);
  }

  /// Blocks of work-items: every lane's chains (width of them per item) side by side, so each
  /// step is a few independent SIMD multiply-adds the compiler keeps in registers.
  void runNative() override {
    if (width_ == 1)
      runNativeBlocks<1>();
    else if (width_ == 4)
      runNativeBlocks<4>();
    else
      runNativeBlocks<16>();
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  /// 1, kept in a member so that neither compiler can fold the multiplications away.
  volatile float multiplier_ = 1.0f;
  static constexpr size_t kGroupSize = 64;

  std::string suffix() const { return width_ == 1 ? "" : std::to_string(width_); }

  template <int Width> void runNativeBlocks() {
    constexpr int kLanes = static_cast<int>(kGroupSize) * Width;
    const long blocks = static_cast<long>(items_ / kGroupSize);
    const float m = multiplier_;
#pragma omp parallel for schedule(static)
    for (long block = 0; block < blocks; ++block) {
      alignas(64) float x[kLanes], y[kLanes];
      for (int lane = 0; lane < kLanes; ++lane) {
        x[lane] = 1.0f;
        y[lane] = static_cast<float>(lane / Width);
      }
      for (int step = 0; step < kTrips * 8; ++step) {
#pragma omp simd
        for (int lane = 0; lane < kLanes; ++lane) {
          x[lane] = std::fma(x[lane], m, y[lane]);
          y[lane] = std::fma(y[lane], m, -x[lane]);
        }
      }
      for (size_t item = 0; item < kGroupSize; ++item) {
        float sum = 0;
        for (int copy = 0; copy < Width; ++copy)
          sum += y[item * Width + copy];
        out_[block * kGroupSize + item] = sum;
      }
    }
  }

  std::string options() const {
    return "-DWIDTH=" + std::to_string(width_);
  }

  struct Run final : RunOf<ComputePeak> {
    Run(ClSession &session, const ComputePeak &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSource, "compute", workload.options())),
          out_(session.buffer(workload.items_ * sizeof(float))) {
      setArgs(kernel_.get(), out_, static_cast<float>(workload.multiplier_), kTrips);
    }
    void enqueue() override {
      size_t global = workload_.items_, local = kGroupSize;
      session_.launch(kernel_.get(), 1, &global, &local);
    }
    std::string mismatch() override {
      return compareFloats(session_.read<float>(out_.get(), workload_.items_), workload_.out_, 0);
    }
    ClKernel kernel_;
    ClBuffer out_;
  };

  int width_;
  size_t items_ = 0;
  std::vector<float> out_;
};

} // namespace

std::unique_ptr<Workload> makeComputeFloat() {
  return std::make_unique<ComputePeak>(1);
}
std::unique_ptr<Workload> makeComputeFloat4() {
  return std::make_unique<ComputePeak>(4);
}
std::unique_ptr<Workload> makeComputeFloat16() {
  return std::make_unique<ComputePeak>(16);
}

} // namespace bench
