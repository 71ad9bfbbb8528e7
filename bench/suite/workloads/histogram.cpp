// A 256-bin histogram of bytes, counted per work-group with local atomics and merged with
// global atomics, as in the OpenCL Programming Guide's chapter 14.
#include "../workload.hpp"
#include "threaded_histogram.hpp"

#include <algorithm>
#include <random>

namespace bench {
namespace {

const char *kSource = R"(
  kernel void histogram(global const uchar *data, uint length, global uint *bins) {
    local uint counts[256];
    for (uint bin = get_local_id(0); bin < 256; bin += get_local_size(0))
      counts[bin] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < length; i += get_global_size(0))
      atomic_inc(&counts[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint bin = get_local_id(0); bin < 256; bin += get_local_size(0))
      atomic_add(&bins[bin], counts[bin]);
  }
  kernel void clear(global uint *bins) { bins[get_global_id(0)] = 0; })";

constexpr size_t kBins = 256;
constexpr size_t kGroupSize = 256;

class Histogram final : public Workload {
public:
  std::string name() const override { return "histogram 256"; }
  std::string unit() const override { return "GB/s"; }
  double work() const override { return data_.size() / 1e9; }

  void prepare(Scale scale) override {
    data_.resize(scale == Scale::Tiny ? 100000 : size_t{1} << 27);
    // Bytes of a skewed distribution, so some bins are hot, as in images.
    std::mt19937 random(3);
    std::binomial_distribution<int> value(255, 0.3);
    for (unsigned char &byte : data_)
      byte = static_cast<unsigned char>(value(random));
    bins_.assign(kBins, 0);
  }

  void runNative() override {
    bins_ =
        threadedHistogram(kBins, static_cast<long>(data_.size()),
                          [&](long i, std::vector<unsigned> &counters) { ++counters[data_[i]]; });
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<Histogram> {
    Run(ClSession &session, const Histogram &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSource, "histogram")),
          clear_(session.kernel(kSource, "clear")), data_(session.buffer(workload.data_)),
          bins_(session.buffer(kBins * sizeof(cl_uint))) {
      setArgs(kernel_.get(), data_, static_cast<cl_uint>(workload.data_.size()), bins_);
      setArgs(clear_.get(), bins_);
    }
    void enqueue() override {
      size_t bins = kBins;
      session_.launch(clear_.get(), 1, &bins);
      // Enough work-groups for every core, each reading a long stretch of the data.
      size_t global =
          std::min<size_t>(workload_.data_.size() / 64 / kGroupSize + 1, 256) * kGroupSize;
      size_t local = kGroupSize;
      session_.launch(kernel_.get(), 1, &global, &local);
    }
    std::string mismatch() override {
      return compareExactly(session_.read<cl_uint>(bins_.get(), kBins), workload_.bins_);
    }
    ClKernel kernel_, clear_;
    ClBuffer data_, bins_;
  };

  std::vector<unsigned char> data_;
  std::vector<unsigned> bins_;
};

} // namespace

std::unique_ptr<Workload> makeHistogram() {
  return std::make_unique<Histogram>();
}

} // namespace bench
