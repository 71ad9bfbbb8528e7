// One n-body step: every body's acceleration from every other body (softened gravity), the
// positions read through local-memory tiles. Dense float arithmetic with one rsqrt per pair.
#include "../workload.hpp"

#include <cmath>
#include <random>

namespace bench {
namespace {

const char *kSource = R"(
  #define TILE 64
  kernel void nbody(global const float4 *bodies, global float4 *accelerations, int count,
                    float softening) {
    local float4 tile[TILE];
    float4 me = bodies[get_global_id(0)];
    float3 acceleration = (float3)(0.0f);
    for (int start = 0; start < count; start += TILE) {
      tile[get_local_id(0)] = bodies[start + get_local_id(0)];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int j = 0; j < TILE; ++j) {
        float3 d = tile[j].xyz - me.xyz;
        float inverse = rsqrt(dot(d, d) + softening);
        acceleration += d * (tile[j].w * inverse * inverse * inverse);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    accelerations[get_global_id(0)] = (float4)(acceleration, 0.0f);
  })";

constexpr size_t kTile = 64;
constexpr float kSoftening = 0.01f;

class NBody final : public Workload {
public:
  std::string name() const override { return "n-body"; }
  std::string unit() const override { return "Ginteraction/s"; }
  double work() const override { return double(count_) * count_ / 1e9; }

  void prepare(Scale scale) override {
    count_ = scale == Scale::Tiny ? 256 : 16384;
    std::mt19937 random(6);
    std::uniform_real_distribution<float> position(-1, 1), mass(0.1f, 1);
    bodies_.resize(count_ * 4);
    for (size_t i = 0; i < count_; ++i) {
      bodies_[4 * i] = position(random);
      bodies_[4 * i + 1] = position(random);
      bodies_[4 * i + 2] = position(random);
      bodies_[4 * i + 3] = mass(random);
    }
    accelerations_.assign(count_ * 4, 0);
    x_.resize(count_);
    y_.resize(count_);
    z_.resize(count_);
    mass_.resize(count_);
    for (size_t i = 0; i < count_; ++i) {
      x_[i] = bodies_[4 * i];
      y_[i] = bodies_[4 * i + 1];
      z_[i] = bodies_[4 * i + 2];
      mass_[i] = bodies_[4 * i + 3];
    }
  }

  /// The same sums over structure-of-arrays copies (made in prepare), so the inner loop reads
  /// consecutive floats into SIMD lanes.
  void runNative() override {
    const long count = static_cast<long>(count_);
    const float *px = x_.data(), *py = y_.data(), *pz = z_.data(), *pm = mass_.data();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < count; ++i) {
      float ax = 0, ay = 0, az = 0;
#pragma omp simd reduction(+ : ax, ay, az)
      for (long j = 0; j < count; ++j) {
        float dx = px[j] - px[i], dy = py[j] - py[i], dz = pz[j] - pz[i];
        float inverse = 1.0f / std::sqrt(dx * dx + dy * dy + dz * dz + kSoftening);
        float scale = pm[j] * inverse * inverse * inverse;
        ax += dx * scale;
        ay += dy * scale;
        az += dz * scale;
      }
      accelerations_[4 * i] = ax;
      accelerations_[4 * i + 1] = ay;
      accelerations_[4 * i + 2] = az;
      accelerations_[4 * i + 3] = 0;
    }
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<NBody> {
    Run(ClSession &session, const NBody &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSource, "nbody")),
          bodies_(session.buffer(workload.bodies_)),
          accelerations_(session.buffer(workload.accelerations_.size() * sizeof(float))) {
      setArgs(kernel_.get(), bodies_, accelerations_, static_cast<cl_int>(workload.count_),
              kSoftening);
    }
    void enqueue() override {
      size_t global = workload_.count_, local = kTile;
      session_.launch(kernel_.get(), 1, &global, &local);
    }
    /// rsqrt is accurate to a few ulp only, and the sums run in another order: compare to
    /// a thousandth of the largest acceleration.
    std::string mismatch() override {
      std::vector<float> got =
          session_.read<float>(accelerations_.get(), workload_.accelerations_.size());
      float largest = 0;
      for (float value : workload_.accelerations_)
        largest = std::max(largest, std::fabs(value));
      for (size_t i = 0; i < got.size(); ++i)
        if (!(std::fabs(got[i] - workload_.accelerations_[i]) <= 1e-3f * largest))
          return "component " + std::to_string(i) + " is " + std::to_string(got[i]) +
                 " instead of " + std::to_string(workload_.accelerations_[i]);
      return "";
    }
    ClKernel kernel_;
    ClBuffer bodies_, accelerations_;
  };

  size_t count_ = 0;
  std::vector<float> bodies_, accelerations_;
  std::vector<float> x_, y_, z_, mass_; ///< the bodies as structure of arrays, for the native run
};

} // namespace

std::unique_ptr<Workload> makeNBody() {
  return std::make_unique<NBody>();
}

} // namespace bench
