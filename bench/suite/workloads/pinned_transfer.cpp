// Data streamed through a device buffer by way of mapped CL_MEM_ALLOC_HOST_PTR buffers, the
// staging pattern GPU vendors recommend: the host writes the data into one, the device copies it
// in and back out into the other, and the host reads it there. Each run moves the data through
// the host's staging memory twice and over the bus twice; the bus runs at full speed when that
// memory is pinned. The native reference is the host's two copies alone.
#include "../workload.hpp"
#include "transfer_data.hpp"

#include <cstring>

namespace bench {
namespace {

class PinnedTransfer final : public Workload {
public:
  std::string name() const override { return "pinned transfer"; }
  std::string unit() const override { return "GB/s"; }
  double work() const override { return 2.0 * source_.size() * sizeof(uint32_t) / 1e9; }

  void prepare(Scale scale) override {
    source_ = transferInput(scale);
    staged_.assign(source_.size(), 0);
    returned_.assign(source_.size(), 0);
    received_.assign(source_.size(), 0);
  }

  void runNative() override {
    std::memcpy(staged_.data(), source_.data(), bytes());
    std::memcpy(returned_.data(), staged_.data(), bytes());
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  size_t bytes() const { return source_.size() * sizeof(uint32_t); }

  struct Run final : RunOf<PinnedTransfer> {
    Run(ClSession &session, PinnedTransfer &workload)
        : RunOf(session, workload), upload_(session.hostBuffer(workload.bytes())),
          download_(session.hostBuffer(workload.bytes())),
          device_(session.buffer(workload.bytes())), received_(workload.received_) {}
    void enqueue() override {
      cl_command_queue queue = session_.queue();
      std::memcpy(upload_.mapped, workload_.source_.data(), workload_.bytes());
      if (clEnqueueWriteBuffer(queue, device_.get(), CL_FALSE, 0, workload_.bytes(), upload_.mapped,
                               0, nullptr, nullptr) != CL_SUCCESS ||
          clEnqueueReadBuffer(queue, device_.get(), CL_TRUE, 0, workload_.bytes(), download_.mapped,
                              0, nullptr, nullptr) != CL_SUCCESS)
        throw ClFailure("clEnqueueWriteBuffer/ReadBuffer failed");
      std::memcpy(received_.data(), download_.mapped, workload_.bytes());
    }
    std::string mismatch() override { return compareExactly(received_, workload_.returned_); }
    ClSession::HostBuffer upload_, download_;
    ClBuffer device_;
    std::vector<uint32_t> &received_;
  };

  std::vector<uint32_t> source_, staged_, returned_;
  /// Where every implementation's run copies the result to (see mapped_update.cpp).
  std::vector<uint32_t> received_;
};

} // namespace

std::unique_ptr<Workload> makePinnedTransfer() {
  return std::make_unique<PinnedTransfer>();
}

} // namespace bench
