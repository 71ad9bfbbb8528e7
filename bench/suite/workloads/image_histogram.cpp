// A 256-bin histogram of an RGBA8 image's luminance, as photo tools draw it: read_imagef with
// nearest filtering (unnormalized coordinates, clamp to edge), the channels back to bytes, and
// each work-group counts its tile in local memory with atomics before adding its counts to the
// global bins. The OpenCL Programming Guide's histogram (chapter 14) works the same way.
#include "../workload.hpp"
#include "rgba_image.hpp"
#include "threaded_histogram.hpp"

#include <algorithm>

namespace bench {
namespace {

const char *kSource = R"(
  const sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                            CLK_FILTER_NEAREST;
  kernel void image_histogram(read_only image2d_t image, int rows, global uint *bins) {
    local uint counts[256];
    int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    int size = get_local_size(0) * get_local_size(1);
    for (int bin = lid; bin < 256; bin += size)
      counts[bin] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int x = get_global_id(0), first = get_global_id(1) * rows;
    int last = min(first + rows, get_image_height(image));
    if (x < get_image_width(image))
      for (int y = first; y < last; ++y) {
        uint4 texel = convert_uint4_rte(read_imagef(image, nearest, (int2)(x, y)) * 255.0f);
        atomic_inc(&counts[(texel.x * 77 + texel.y * 150 + texel.z * 29) >> 8]);
      }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int bin = lid; bin < 256; bin += size)
      if (counts[bin] != 0)
        atomic_add(&bins[bin], counts[bin]);
  }
  kernel void clear(global uint *bins) { bins[get_global_id(0)] = 0; })";

constexpr size_t kBins = 256;
constexpr size_t kGroupWidth = 64, kGroupHeight = 4;
constexpr int kRowsPerWorkItem = 16;

unsigned luminanceBin(const Rgba8Image &image, int x, int y) {
  return (image.at(x, y, 0) * 77u + image.at(x, y, 1) * 150u + image.at(x, y, 2) * 29u) >> 8;
}

size_t roundUp(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

class ImageHistogram final : public Workload {
public:
  std::string name() const override { return "image histogram"; }
  std::string unit() const override { return "Mpixel/s"; }
  double work() const override { return double(image_.width) * image_.height / 1e6; }

  void prepare(Scale scale) override {
    image_ = scale == Scale::Tiny ? photoLikeImage(70, 45, 11) : photoLikeImage(3840, 2160, 11);
    bins_.assign(kBins, 0);
  }

  void runNative() override {
    const int width = image_.width;
    bins_ = threadedHistogram(kBins, image_.height, [&](long y, std::vector<unsigned> &counters) {
      for (int x = 0; x < width; ++x)
        ++counters[luminanceBin(image_, x, static_cast<int>(y))];
    });
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<ImageHistogram> {
    Run(ClSession &session, const ImageHistogram &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSource, "image_histogram")),
          clear_(session.kernel(kSource, "clear")),
          image_(session.image2d({CL_RGBA, CL_UNORM_INT8}, workload.image_.width,
                                 workload.image_.height, workload.image_.texels.data())),
          bins_(session.buffer(kBins * sizeof(cl_uint))) {
      setArgs(kernel_.get(), image_, kRowsPerWorkItem, bins_);
      setArgs(clear_.get(), bins_);
    }
    void enqueue() override {
      size_t bins = kBins;
      session_.launch(clear_.get(), 1, &bins);
      size_t rowGroups = (workload_.image_.height + kRowsPerWorkItem - 1) / kRowsPerWorkItem;
      size_t global[2] = {roundUp(workload_.image_.width, kGroupWidth),
                          roundUp(rowGroups, kGroupHeight)};
      size_t local[2] = {kGroupWidth, kGroupHeight};
      session_.launch(kernel_.get(), 2, global, local);
    }
    std::string mismatch() override {
      return compareExactly(session_.read<cl_uint>(bins_.get(), kBins), workload_.bins_);
    }
    ClKernel kernel_, clear_;
    ClBuffer image_, bins_;
  };

  Rgba8Image image_;
  std::vector<unsigned> bins_;
};

} // namespace

std::unique_ptr<Workload> makeImageHistogram() {
  return std::make_unique<ImageHistogram>();
}

} // namespace bench
