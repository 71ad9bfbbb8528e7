// An ordinary buffer (no allocation flags) that the host fills and reads back through maps, with
// a kernel updating it in between: how applications that skip the staging pattern move their data.
// Each run writes the data in through a write-invalidating map, runs one pass over it on the
// device and reads the result out through a read map. Where the buffer lives decides this
// workload's speed: its data crosses the bus twice a run, however the device arranges it. The
// native reference is the same two copies and the pass on the host.
#include "../workload.hpp"

#include <cstring>

namespace bench {
namespace {

const char *kSource = R"(
  kernel void update(global uint *data) {
    size_t i = get_global_id(0);
    data[i] = data[i] * 3u + (uint)i;
  })";

class MappedUpdate final : public Workload {
public:
  std::string name() const override { return "mapped update"; }
  std::string unit() const override { return "GB/s"; }
  double work() const override { return 2.0 * bytes() / 1e9; }

  void prepare(Scale scale) override {
    size_t n = scale == Scale::Tiny ? 4096 : size_t{1} << 24; // 64 MiB
    source_.resize(n);
    for (size_t i = 0; i < n; ++i)
      source_[i] = static_cast<uint32_t>(i * 2654435761u);
    staged_.assign(n, 0);
    returned_.assign(n, 0);
  }

  void runNative() override {
    std::memcpy(staged_.data(), source_.data(), bytes());
    const size_t n = staged_.size();
    uint32_t *data = staged_.data();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i)
      data[i] = data[i] * 3u + static_cast<uint32_t>(i);
    std::memcpy(returned_.data(), staged_.data(), bytes());
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  size_t bytes() const {
    return source_.size() * sizeof(uint32_t);
  }

  struct Run final : RunOf<MappedUpdate> {
    Run(ClSession &session, const MappedUpdate &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSource, "update")),
          data_(session.buffer(workload.bytes())) {
      setArgs(kernel_.get(), data_);
    }
    void enqueue() override {
      std::memcpy(map(CL_MAP_WRITE_INVALIDATE_REGION), workload_.source_.data(), workload_.bytes());
      unmap();
      size_t global = workload_.source_.size();
      session_.launch(kernel_.get(), 1, &global);
      std::memcpy(received_.data(), map(CL_MAP_READ), workload_.bytes());
      unmap();
    }
    std::string mismatch() override { return compareExactly(received_, workload_.returned_); }

    void *map(cl_map_flags flags) {
      cl_int error = CL_SUCCESS;
      mapped_ = clEnqueueMapBuffer(session_.queue(), data_.get(), CL_TRUE, flags, 0,
                                   workload_.bytes(), 0, nullptr, nullptr, &error);
      if (error != CL_SUCCESS)
        throw ClFailure("clEnqueueMapBuffer failed");
      return mapped_;
    }
    void unmap() {
      if (clEnqueueUnmapMemObject(session_.queue(), data_.get(), mapped_, 0, nullptr, nullptr) !=
          CL_SUCCESS)
        throw ClFailure("clEnqueueUnmapMemObject failed");
    }

    ClKernel kernel_;
    ClBuffer data_;
    void *mapped_ = nullptr;
    std::vector<uint32_t> received_ = std::vector<uint32_t>(workload_.source_.size());
  };

  std::vector<uint32_t> source_, staged_, returned_;
};

} // namespace

std::unique_ptr<Workload> makeMappedUpdate() {
  return std::make_unique<MappedUpdate>();
}

} // namespace bench
