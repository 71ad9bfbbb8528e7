// An ordinary buffer updated by a kernel between the host's maps, as applications that keep
// their data in one buffer do: the host writes the input through a map that invalidates the
// buffer, the kernel updates it in place, and the host reads the result through a second map.
// On a GPU the data crosses the bus twice per run. The native reference is the host's update.
#include "../workload.hpp"
#include "transfer_data.hpp"

#include <cstring>

namespace bench {
namespace {

class MappedUpdate final : public Workload {
public:
  std::string name() const override { return "mapped update"; }
  std::string unit() const override { return "GB/s"; }
  /// What crosses between the host and the buffer: the input and the result.
  double work() const override { return 2.0 * bytes() / 1e9; }

  void prepare(Scale scale) override {
    source_ = transferInput(scale);
    updated_.assign(source_.size(), 0);
    received_.assign(source_.size(), 0);
  }

  void runNative() override {
    const long n = static_cast<long>(source_.size());
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; ++i)
      updated_[i] = updatedWord(source_[i], i);
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  size_t bytes() const {
    return source_.size() * sizeof(uint32_t);
  }

  struct Run final : RunOf<MappedUpdate> {
    Run(ClSession &session, MappedUpdate &workload)
        : RunOf(session, workload), kernel_(session.kernel(kInPlaceUpdateSource, "update")),
          data_(session.buffer(workload.bytes())), received_(workload.received_) {
      setArgs(kernel_.get(), data_);
    }
    void enqueue() override {
      void *input = session_.map(data_.get(), workload_.bytes(), CL_MAP_WRITE_INVALIDATE_REGION);
      std::memcpy(input, workload_.source_.data(), workload_.bytes());
      session_.unmap(data_.get(), input);
      size_t global = workload_.source_.size();
      session_.launch(kernel_.get(), 1, &global);
      void *output = session_.map(data_.get(), workload_.bytes(), CL_MAP_READ);
      std::memcpy(received_.data(), output, workload_.bytes());
      session_.unmap(data_.get(), output);
    }
    std::string mismatch() override { return compareExactly(received_, workload_.updated_); }

    ClKernel kernel_;
    ClBuffer data_;
    std::vector<uint32_t> &received_;
  };

  std::vector<uint32_t> source_, updated_;
  /// Where every implementation's run copies the result out of the map: the same host memory
  /// for all, since 64 MiB copies run a few percent faster or slower depending on the pages
  /// they get, which is the harness's luck and not the implementation's. (Each run's result is
  /// checked before the next implementation runs.)
  std::vector<uint32_t> received_;
};

} // namespace

std::unique_ptr<Workload> makeMappedUpdate() {
  return std::make_unique<MappedUpdate>();
}

} // namespace bench
