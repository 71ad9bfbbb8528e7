// Reads of an sRGB image (CL_sRGBA, CL_UNORM_INT8), which convert every texel's colour channels
// to linear values on the way: each work-item sums one column's linear red, green and blue. Beside
// the image histogram, which reads an ordinary RGBA8 image, it shows what the conversion costs.
#include "../workload.hpp"
#include "rgba_image.hpp"

#include <cmath>

namespace bench {
namespace {

const char *kSource = R"(
  const sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                            CLK_FILTER_NEAREST;
  kernel void column_sums(read_only image2d_t image, global float *sums) {
    int x = get_global_id(0), height = get_image_height(image);
    if (x >= get_image_width(image))
      return;
    float sum = 0.0f;
    for (int y = 0; y < height; ++y) {
      float4 linear = read_imagef(image, nearest, (int2)(x, y));
      sum += linear.x + linear.y + linear.z;
    }
    sums[x] = sum;
  })";

float srgbToLinear(unsigned char value) {
  float c = value / 255.0f;
  return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
}

class ImageSrgbRead final : public Workload {
public:
  std::string name() const override { return "image read sRGB"; }
  std::string unit() const override { return "Mpixel/s"; }
  double work() const override { return double(image_.width) * image_.height / 1e6; }

  void prepare(Scale scale) override {
    image_ = scale == Scale::Tiny ? photoLikeImage(64, 40, 3) : photoLikeImage(3840, 2160, 3);
    sums_.assign(image_.width, 0.0f);
  }

  void runNative() override {
    float linear[256];
    for (int value = 0; value < 256; ++value)
      linear[value] = srgbToLinear(static_cast<unsigned char>(value));
    const int width = image_.width, height = image_.height;
#pragma omp parallel for schedule(static)
    for (int x = 0; x < width; ++x) {
      float sum = 0.0f;
      for (int y = 0; y < height; ++y)
        sum += linear[image_.at(x, y, 0)] + linear[image_.at(x, y, 1)] + linear[image_.at(x, y, 2)];
      sums_[x] = sum;
    }
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<ImageSrgbRead> {
    Run(ClSession &session, const ImageSrgbRead &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSource, "column_sums")),
          image_(session.image2d({CL_sRGBA, CL_UNORM_INT8}, workload.image_.width,
                                 workload.image_.height, workload.image_.texels.data())),
          sums_(session.buffer(workload.sums_.size() * sizeof(float))) {
      setArgs(kernel_.get(), image_, sums_);
    }
    void enqueue() override {
      size_t global = size_t(workload_.image_.width);
      session_.launch(kernel_.get(), 1, &global);
    }
    std::string mismatch() override {
      // The specification allows the conversion an error of a fraction of a unit of the byte.
      return compareFloats(session_.read<float>(sums_.get(), workload_.sums_.size()),
                           workload_.sums_, 1e-3f);
    }
    ClKernel kernel_;
    ClBuffer image_, sums_;
  };

  Rgba8Image image_;
  std::vector<float> sums_;
};

} // namespace

std::unique_ptr<Workload> makeImageSrgbRead() {
  return std::make_unique<ImageSrgbRead>();
}

} // namespace bench
