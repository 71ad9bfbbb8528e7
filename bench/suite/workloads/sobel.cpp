// The Sobel 3x3 edge filter on a grey image (the OpenCL Programming Guide's chapter 15): the
// gradient magnitude of each inner pixel; border pixels are 0.
#include "../workload.hpp"

#include <cmath>
#include <random>

namespace bench {
namespace {

const char *kSource = R"(
  kernel void sobel(global const float *in, global float *out, int width, int height) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
      out[y * width + x] = 0.0f;
      return;
    }
    #define P(dx, dy) in[(y + (dy)) * width + x + (dx)]
    float gx = P(1, -1) + 2.0f * P(1, 0) + P(1, 1) - P(-1, -1) - 2.0f * P(-1, 0) - P(-1, 1);
    float gy = P(-1, 1) + 2.0f * P(0, 1) + P(1, 1) - P(-1, -1) - 2.0f * P(0, -1) - P(1, -1);
    out[y * width + x] = sqrt(gx * gx + gy * gy);
  })";

class Sobel final : public Workload {
public:
  std::string name() const override { return "sobel 3x3"; }
  std::string unit() const override { return "Mpixel/s"; }
  double work() const override { return double(width_) * height_ / 1e6; }

  void prepare(Scale scale) override {
    width_ = scale == Scale::Tiny ? 64 : 4096;
    height_ = scale == Scale::Tiny ? 48 : 4096;
    std::mt19937 random(7);
    std::uniform_real_distribution<float> grey(0, 1);
    image_.resize(size_t(width_) * height_);
    for (float &pixel : image_)
      pixel = grey(random);
    edges_.assign(image_.size(), 0);
  }

  void runNative() override {
    const int width = width_, height = height_;
    const float *in = image_.data();
#pragma omp parallel for schedule(static)
    for (int y = 0; y < height; ++y) {
      float *out = &edges_[size_t(y) * width];
      if (y == 0 || y == height - 1) {
        std::fill(out, out + width, 0.0f);
        continue;
      }
      const float *above = in + size_t(y - 1) * width, *row = in + size_t(y) * width,
                  *below = in + size_t(y + 1) * width;
      out[0] = out[width - 1] = 0;
#pragma omp simd
      for (int x = 1; x < width - 1; ++x) {
        float gx = above[x + 1] + 2.0f * row[x + 1] + below[x + 1] - above[x - 1] -
                   2.0f * row[x - 1] - below[x - 1];
        float gy = below[x - 1] + 2.0f * below[x] + below[x + 1] - above[x - 1] - 2.0f * above[x] -
                   above[x + 1];
        out[x] = std::sqrt(gx * gx + gy * gy);
      }
    }
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<Sobel> {
    Run(ClSession &session, const Sobel &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSource, "sobel")),
          image_(session.buffer(workload.image_)),
          edges_(session.buffer(workload.edges_.size() * sizeof(float))) {
      setArgs(kernel_.get(), image_, edges_, workload.width_, workload.height_);
    }
    void enqueue() override {
      size_t global[2] = {size_t(workload_.width_), size_t(workload_.height_)};
      session_.launch(kernel_.get(), 2, global);
    }
    std::string mismatch() override {
      return compareFloats(session_.read<float>(edges_.get(), workload_.edges_.size()),
                           workload_.edges_, 1e-5f);
    }
    ClKernel kernel_;
    ClBuffer image_, edges_;
  };

  int width_ = 0, height_ = 0;
  std::vector<float> image_, edges_;
};

} // namespace

std::unique_ptr<Workload> makeSobel() {
  return std::make_unique<Sobel>();
}

} // namespace bench
