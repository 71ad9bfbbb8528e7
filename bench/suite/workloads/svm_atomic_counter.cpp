// One counter in fine-grained SVM that a kernel and a host thread add to at the same time, the
// kernel's atomics at memory_scope_all_svm_devices: the cost of atomics that are atomic for the
// host too. The native reference is every core adding to one std::atomic.
#include "../workload.hpp"

#include <atomic>
#include <thread>

namespace bench {
namespace {

const char *kSource = R"(
  kernel void count(global atomic_int *counter, int perItem) {
    for (int k = 0; k < perItem; ++k)
      atomic_fetch_add_explicit(counter, 1, memory_order_relaxed, memory_scope_all_svm_devices);
  })";

constexpr int kPerItem = 16;

class SvmAtomicCounter final : public Workload {
public:
  std::string name() const override { return "svm atomic counter"; }
  std::string unit() const override { return "Gatomic/s"; }
  double work() const override { return total() / 1e9; }

  void prepare(Scale scale) override {
    items_ = scale == Scale::Tiny ? 1024 : 1 << 16;
    hostAdds_ = scale == Scale::Tiny ? 1000 : 100000;
  }

  void runNative() override {
    std::atomic<int> counter{0};
    const long long count = total();
#pragma omp parallel for schedule(static)
    for (long long k = 0; k < count; ++k)
      counter.fetch_add(1, std::memory_order_relaxed);
    counted_ = counter.load();
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  long long total() const {
    return static_cast<long long>(items_) * kPerItem + hostAdds_;
  }

  struct Run final : RunOf<SvmAtomicCounter> {
    Run(ClSession &session, const SvmAtomicCounter &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSource, "count", "-cl-std=CL3.0")),
          counter_(session.svm(sizeof(int), CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER |
                                                CL_MEM_SVM_ATOMICS)) {
      if (clSetKernelArgSVMPointer(kernel_.get(), 0, counter_.get()) != CL_SUCCESS)
        throw ClFailure("clSetKernelArgSVMPointer failed");
      setArg(kernel_.get(), 1, kPerItem);
    }
    /// The kernel starts; the host adds its share meanwhile (the harness waits for the kernel).
    void enqueue() override {
      std::atomic_ref<int> counter(*static_cast<int *>(counter_.get()));
      counter.store(0);
      size_t global = workload_.items_;
      session_.launch(kernel_.get(), 1, &global);
      clFlush(session_.queue());
      for (int k = 0; k < workload_.hostAdds_; ++k)
        counter.fetch_add(1, std::memory_order_relaxed);
    }
    std::string mismatch() override {
      int counted = std::atomic_ref<int>(*static_cast<int *>(counter_.get())).load();
      return counted == workload_.counted_ ? "" : "counted " + std::to_string(counted);
    }
    ClKernel kernel_;
    ClSession::SvmPointer counter_;
  };

  int items_ = 0, hostAdds_ = 0;
  int counted_ = 0;
};

} // namespace

std::unique_ptr<Workload> makeSvmAtomicCounter() {
  return std::make_unique<SvmAtomicCounter>();
}

} // namespace bench
