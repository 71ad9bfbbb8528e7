// The Mandelbrot set: a loop whose trip count differs from pixel to pixel (divergent control
// flow), counting iterations until |z| > 2.
#include "../workload.hpp"

namespace bench {
namespace {

const char *kSource = R"(
  kernel void mandelbrot(global int *counts, int width, int height, int limit) {
    int x = get_global_id(0), y = get_global_id(1);
    float cr = -2.0f + 3.0f * x / width, ci = -1.5f + 3.0f * y / height;
    float zr = 0.0f, zi = 0.0f;
    int count = 0;
    while (count < limit && zr * zr + zi * zi <= 4.0f) {
      float next = zr * zr - zi * zi + cr;
      zi = 2.0f * zr * zi + ci;
      zr = next;
      ++count;
    }
    counts[y * width + x] = count;
  })";

constexpr int kLimit = 256;

class Mandelbrot final : public Workload {
public:
  std::string name() const override { return "mandelbrot"; }
  std::string unit() const override { return "Mpixel/s"; }
  double work() const override { return double(width_) * height_ / 1e6; }

  void prepare(Scale scale) override {
    width_ = height_ = scale == Scale::Tiny ? 64 : 2048;
    counts_.assign(size_t(width_) * height_, 0);
  }

  /// Sixteen pixels of a row in SIMD lanes, iterating until all sixteen have escaped; a lane
  /// that escaped keeps its values and count.
  void runNative() override {
    constexpr int kLanes = 16;
    const int width = width_, height = height_;
#pragma omp parallel for schedule(dynamic, 8)
    for (int y = 0; y < height; ++y)
      for (int x0 = 0; x0 < width; x0 += kLanes) {
        float cr[kLanes], zr[kLanes] = {}, zi[kLanes] = {};
        int count[kLanes] = {};
        const float ci = -1.5f + 3.0f * y / height;
        for (int lane = 0; lane < kLanes; ++lane)
          cr[lane] = -2.0f + 3.0f * (x0 + lane) / width;
        for (int step = 0; step < kLimit; ++step) {
          int active = 0;
#pragma omp simd reduction(+ : active)
          for (int lane = 0; lane < kLanes; ++lane) {
            bool inside = zr[lane] * zr[lane] + zi[lane] * zi[lane] <= 4.0f;
            float next = zr[lane] * zr[lane] - zi[lane] * zi[lane] + cr[lane];
            float nextImaginary = 2.0f * zr[lane] * zi[lane] + ci;
            zr[lane] = inside ? next : zr[lane];
            zi[lane] = inside ? nextImaginary : zi[lane];
            count[lane] += inside;
            active += inside;
          }
          if (active == 0)
            break;
        }
        for (int lane = 0; lane < kLanes; ++lane)
          counts_[size_t(y) * width + x0 + lane] = count[lane];
      }
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<Mandelbrot> {
    Run(ClSession &session, const Mandelbrot &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSource, "mandelbrot")),
          counts_(session.buffer(workload.counts_.size() * sizeof(int))) {
      setArgs(kernel_.get(), counts_, workload.width_, workload.height_, kLimit);
    }
    void enqueue() override {
      size_t global[2] = {size_t(workload_.width_), size_t(workload_.height_)};
      session_.launch(kernel_.get(), 2, global);
    }
    /// Contracted or reordered float operations may change the count of a few pixels on the
    /// set's boundary (the orbit is chaotic there): allow one pixel in a hundred to differ.
    std::string mismatch() override {
      std::vector<int> counts = session_.read<int>(counts_.get(), workload_.counts_.size());
      size_t differing = 0;
      for (size_t i = 0; i < counts.size(); ++i)
        differing += counts[i] != workload_.counts_[i];
      if (differing * 100 > counts.size())
        return std::to_string(differing) + " of " + std::to_string(counts.size()) +
               " pixels differ";
      return "";
    }
    ClKernel kernel_;
    ClBuffer counts_;
  };

  int width_ = 0, height_ = 0;
  std::vector<int> counts_;
};

} // namespace

std::unique_ptr<Workload> makeMandelbrot() {
  return std::make_unique<Mandelbrot>();
}

} // namespace bench
