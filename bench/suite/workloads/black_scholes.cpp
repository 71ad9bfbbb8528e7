// Black-Scholes option pricing: exp, log, sqrt and the normal distribution (through erfc) per
// option; how fast the math builtins are, and whether they vectorize.
#include "../workload.hpp"

#include <cmath>
#include <random>

namespace bench {
namespace {

const char *kSource = R"(
  float normal_cdf(float x) { return 0.5f * erfc(-x * M_SQRT1_2_F); }
  kernel void black_scholes(global const float *spot, global const float *strike,
                            global const float *years, global float *call, global float *put,
                            float rate, float volatility) {
    size_t i = get_global_id(0);
    float s = spot[i], k = strike[i], t = years[i];
    float root = volatility * sqrt(t);
    float d1 = (log(s / k) + (rate + 0.5f * volatility * volatility) * t) / root;
    float d2 = d1 - root;
    float discounted = k * exp(-rate * t);
    call[i] = s * normal_cdf(d1) - discounted * normal_cdf(d2);
    put[i] = discounted * normal_cdf(-d2) - s * normal_cdf(-d1);
  })";

constexpr float kRate = 0.02f, kVolatility = 0.30f;

float normalCdf(float x) {
  return 0.5f * std::erfc(-x * 0.70710678f);
}

class BlackScholes final : public Workload {
public:
  std::string name() const override { return "black-scholes"; }
  std::string unit() const override { return "Goption/s"; }
  double work() const override { return spot_.size() / 1e9; }

  void prepare(Scale scale) override {
    size_t n = scale == Scale::Tiny ? 4096 : size_t{1} << 24;
    std::mt19937 random(5);
    std::uniform_real_distribution<float> spot(5, 30), strike(1, 100), years(0.25f, 10);
    spot_.resize(n);
    strike_.resize(n);
    years_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      spot_[i] = spot(random);
      strike_[i] = strike(random);
      years_[i] = years(random);
    }
    call_.assign(n, 0);
    put_.assign(n, 0);
  }

  void runNative() override {
    const long n = static_cast<long>(spot_.size());
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; ++i) {
      float s = spot_[i], k = strike_[i], t = years_[i];
      float root = kVolatility * std::sqrt(t);
      float d1 = (std::log(s / k) + (kRate + 0.5f * kVolatility * kVolatility) * t) / root;
      float d2 = d1 - root;
      float discounted = k * std::exp(-kRate * t);
      call_[i] = s * normalCdf(d1) - discounted * normalCdf(d2);
      put_[i] = discounted * normalCdf(-d2) - s * normalCdf(-d1);
    }
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<BlackScholes> {
    Run(ClSession &session, const BlackScholes &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSource, "black_scholes")),
          spot_(session.buffer(workload.spot_)), strike_(session.buffer(workload.strike_)),
          years_(session.buffer(workload.years_)),
          call_(session.buffer(workload.call_.size() * sizeof(float))),
          put_(session.buffer(workload.put_.size() * sizeof(float))) {
      setArgs(kernel_.get(), spot_, strike_, years_, call_, put_, kRate, kVolatility);
    }
    void enqueue() override {
      size_t global = workload_.spot_.size();
      session_.launch(kernel_.get(), 1, &global);
    }
    /// Prices are differences of nearly equal terms: compare within a cent's fraction.
    std::string mismatch() override {
      size_t n = workload_.spot_.size();
      std::string calls =
          compareFloats(session_.read<float>(call_.get(), n), workload_.call_, 1e-3f);
      return calls.empty()
                 ? compareFloats(session_.read<float>(put_.get(), n), workload_.put_, 1e-3f)
                 : "call " + calls;
    }
    ClKernel kernel_;
    ClBuffer spot_, strike_, years_, call_, put_;
  };

  std::vector<float> spot_, strike_, years_, call_, put_;
};

} // namespace

std::unique_ptr<Workload> makeBlackScholes() {
  return std::make_unique<BlackScholes>();
}

} // namespace bench
