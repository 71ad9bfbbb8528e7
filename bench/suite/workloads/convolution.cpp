// A 2-D convolution with a 5x5 filter passed as a constant buffer; the output is the input's
// inner part (no borders), as image-processing kernels usually do it. In float, and in half
// with the same kernel on half values.
#include "../workload.hpp"

#include <random>

namespace bench {
namespace {

const char *kSource = R"(
  #define RADIUS 2
  #define SIDE (2 * RADIUS + 1)
  kernel void convolve(global const REAL *in, constant REAL *filter, global REAL *out,
                       int inWidth) {
    int x = get_global_id(0), y = get_global_id(1), outWidth = get_global_size(0);
    REAL sum = 0;
    for (int fy = 0; fy < SIDE; ++fy)
      for (int fx = 0; fx < SIDE; ++fx)
        sum += filter[fy * SIDE + fx] * in[(y + fy) * inWidth + x + fx];
    out[y * outWidth + x] = sum;
  })";

constexpr int kRadius = 2, kSide = 2 * kRadius + 1;

class Convolution final : public Workload {
public:
  explicit Convolution(Precision precision) : precision_(precision) {}

  std::string name() const override {
    return precision_ == Precision::Half ? "convolution 5x5 half" : "convolution 5x5";
  }
  std::string unit() const override { return "Mpixel/s"; }
  double work() const override { return double(outWidth_) * outHeight_ / 1e6; }

  void prepare(Scale scale) override {
    outWidth_ = outHeight_ = scale == Scale::Tiny ? 64 : 4096;
    inWidth_ = outWidth_ + 2 * kRadius;
    std::mt19937 random(10);
    std::uniform_real_distribution<float> value(0, 1);
    in_.resize(size_t(inWidth_) * (outHeight_ + 2 * kRadius));
    for (float &x : in_)
      x = value(random);
    filter_.resize(kSide * kSide);
    for (float &x : filter_)
      x = value(random) / (kSide * kSide);
    roundTo(precision_, in_);
    roundTo(precision_, filter_);
    out_.assign(size_t(outWidth_) * outHeight_, 0);
  }

  void runNative() override {
    const int outWidth = outWidth_, outHeight = outHeight_, inWidth = inWidth_;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < outHeight; ++y) {
      float *row = &out_[size_t(y) * outWidth];
#pragma omp simd
      for (int x = 0; x < outWidth; ++x) {
        float sum = 0;
        for (int fy = 0; fy < kSide; ++fy)
          for (int fx = 0; fx < kSide; ++fx)
            sum += filter_[fy * kSide + fx] * in_[size_t(y + fy) * inWidth + x + fx];
        row[x] = sum;
      }
    }
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<Convolution> {
    Run(ClSession &session, const Convolution &workload)
        : RunOf(session, workload), kernel_(kernelFor(session, workload.precision_)),
          in_(bufferIn(session, workload.precision_, workload.in_)),
          filter_(bufferIn(session, workload.precision_, workload.filter_)),
          out_(session.buffer(workload.out_.size() * sizeIn(workload.precision_))) {
      setArgs(kernel_.get(), in_, filter_, out_, workload.inWidth_);
    }
    void enqueue() override {
      size_t global[2] = {size_t(workload_.outWidth_), size_t(workload_.outHeight_)};
      session_.launch(kernel_.get(), 2, global);
    }
    static ClKernel kernelFor(ClSession &session, Precision precision) {
      requirePrecision(session, precision);
      return session.kernel(precisionPrelude(precision) + kSource, "convolve");
    }
    std::string mismatch() override {
      float tolerance = workload_.precision_ == Precision::Half ? 1e-2f : 1e-5f;
      return compareFloats(
          readIn(session_, workload_.precision_, out_.get(), workload_.out_.size()), workload_.out_,
          tolerance);
    }
    ClKernel kernel_;
    ClBuffer in_, filter_, out_;
  };

  Precision precision_;
  int outWidth_ = 0, outHeight_ = 0, inWidth_ = 0;
  std::vector<float> in_, filter_, out_;
};

} // namespace

std::unique_ptr<Workload> makeConvolution() {
  return std::make_unique<Convolution>(Precision::Float);
}
std::unique_ptr<Workload> makeHalfConvolution() {
  return std::make_unique<Convolution>(Precision::Half);
}

} // namespace bench
