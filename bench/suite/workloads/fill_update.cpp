// A buffer reset with clEnqueueFillBuffer before each kernel that updates it, as iterative
// solvers and histograms clear their accumulators: the fill and the kernel both stay on the
// device. The pattern is a uint4, longer than the 1, 2 and 4 bytes a GPU's memset writes.
#include "../workload.hpp"
#include "transfer_data.hpp"

#include <array>

namespace bench {
namespace {

constexpr std::array<uint32_t, 4> kPattern = {0x01020304u, 0xa0b0c0d0u, 7u, 0xffff0000u};

class FillUpdate final : public Workload {
public:
  std::string name() const override { return "fill update"; }
  std::string unit() const override { return "GB/s"; }
  /// The fill's writes, then the kernel's reads and writes.
  double work() const override { return 3.0 * updated_.size() * sizeof(uint32_t) / 1e9; }

  void prepare(Scale scale) override { updated_.assign(transferWordCount(scale), 0); }

  void runNative() override {
    const long n = static_cast<long>(updated_.size());
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; ++i)
      updated_[i] = kPattern[i % kPattern.size()];
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; ++i)
      updated_[i] = updatedWord(updated_[i], i);
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<FillUpdate> {
    Run(ClSession &session, const FillUpdate &workload)
        : RunOf(session, workload), kernel_(session.kernel(kInPlaceUpdateSource, "update")),
          data_(session.buffer(workload.updated_.size() * sizeof(uint32_t))) {
      setArgs(kernel_.get(), data_);
    }
    void enqueue() override {
      size_t count = workload_.updated_.size();
      if (clEnqueueFillBuffer(session_.queue(), data_.get(), kPattern.data(), sizeof kPattern, 0,
                              count * sizeof(uint32_t), 0, nullptr, nullptr) != CL_SUCCESS)
        throw ClFailure("clEnqueueFillBuffer failed");
      session_.launch(kernel_.get(), 1, &count);
    }
    std::string mismatch() override {
      return compareExactly(session_.read<uint32_t>(data_.get(), workload_.updated_.size()),
                            workload_.updated_);
    }
    ClKernel kernel_;
    ClBuffer data_;
  };

  std::vector<uint32_t> updated_;
};

} // namespace

std::unique_ptr<Workload> makeFillUpdate() {
  return std::make_unique<FillUpdate>();
}

} // namespace bench
