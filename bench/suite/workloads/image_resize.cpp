// A bilinear resize of an RGBA8 image to two thirds of its size: read_imagef with
// CLK_FILTER_LINEAR at normalized coordinates (clamp to edge), each output texel written back as
// bytes. The reference filters as the OpenCL C specification describes (section 8.2); texture
// hardware weighs texels with a few fractional bits, so values may differ by a little.
#include "../workload.hpp"
#include "rgba_image.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace bench {
namespace {

const char *kSource = R"(
  const sampler_t bilinear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE |
                             CLK_FILTER_LINEAR;
  kernel void resize(read_only image2d_t image, global uchar4 *out, int width, int height) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
      return;
    float2 at = (float2)((x + 0.5f) / width, (y + 0.5f) / height);
    out[y * width + x] = convert_uchar4_sat_rte(read_imagef(image, bilinear, at) * 255.0f);
  })";

/// How far a channel may be from the reference: rounding, and hardware filter weights.
constexpr int kTolerance = 2;

class ImageResize final : public Workload {
public:
  std::string name() const override { return "image resize bilinear"; }
  std::string unit() const override { return "Mpixel/s"; }
  double work() const override { return double(outWidth_) * outHeight_ / 1e6; }

  void prepare(Scale scale) override {
    image_ = scale == Scale::Tiny ? photoLikeImage(60, 33, 5) : photoLikeImage(3840, 2160, 5);
    outWidth_ = image_.width * 2 / 3;
    outHeight_ = image_.height * 2 / 3;
    resized_.assign(size_t(outWidth_) * outHeight_ * 4, 0);
  }

  void runNative() override {
    const int width = outWidth_, height = outHeight_;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < height; ++y) {
      auto [y0, y1, b] = taps((y + 0.5f) / height, image_.height);
      for (int x = 0; x < width; ++x) {
        auto [x0, x1, a] = taps((x + 0.5f) / width, image_.width);
        for (int channel = 0; channel < 4; ++channel) {
          float value = (1 - a) * (1 - b) * image_.at(x0, y0, channel) +
                        a * (1 - b) * image_.at(x1, y0, channel) +
                        (1 - a) * b * image_.at(x0, y1, channel) +
                        a * b * image_.at(x1, y1, channel);
          resized_[(size_t(y) * width + x) * 4 + channel] =
              static_cast<unsigned char>(std::clamp(std::nearbyint(value), 0.0f, 255.0f));
        }
      }
    }
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Taps {
    int first, second;
    float weight; // of the second
  };
  /// The two texels a normalized coordinate falls between, clamped to the edge, and the weight.
  static Taps taps(float s, int size) {
    float u = s * size - 0.5f;
    float floored = std::floor(u);
    int i = static_cast<int>(floored);
    return {std::clamp(i, 0, size - 1), std::clamp(i + 1, 0, size - 1), u - floored};
  }

  struct Run final : RunOf<ImageResize> {
    Run(ClSession &session, const ImageResize &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSource, "resize")),
          image_(session.image2d({CL_RGBA, CL_UNORM_INT8}, workload.image_.width,
                                 workload.image_.height, workload.image_.texels.data())),
          out_(session.buffer(workload.resized_.size())) {
      setArgs(kernel_.get(), image_, out_, workload.outWidth_, workload.outHeight_);
    }
    void enqueue() override {
      size_t global[2] = {size_t(workload_.outWidth_), size_t(workload_.outHeight_)};
      session_.launch(kernel_.get(), 2, global);
    }
    std::string mismatch() override {
      std::vector<unsigned char> out =
          session_.read<unsigned char>(out_.get(), workload_.resized_.size());
      for (size_t i = 0; i < out.size(); ++i)
        if (std::abs(int(out[i]) - int(workload_.resized_[i])) > kTolerance)
          return "channel " + std::to_string(i) + " is " + std::to_string(out[i]) + " instead of " +
                 std::to_string(workload_.resized_[i]);
      return "";
    }
    ClKernel kernel_;
    ClBuffer image_, out_;
  };

  Rgba8Image image_;
  int outWidth_ = 0, outHeight_ = 0;
  std::vector<unsigned char> resized_;
};

} // namespace

std::unique_ptr<Workload> makeImageResize() {
  return std::make_unique<ImageResize>();
}

} // namespace bench
