// Bitonic sort of 32-bit keys: log2(n) * (log2(n) + 1) / 2 launches of a compare-and-swap
// kernel, each work-item ordering one pair. Many short launches over data in cache.
#include "../workload.hpp"

#include <algorithm>
#include <omp.h>
#include <random>

namespace bench {
namespace {

const char *kSource = R"(
  kernel void bitonic_step(global uint *keys, uint stage, uint distance) {
    uint id = get_global_id(0);
    uint low = (id / distance) * 2 * distance + id % distance, high = low + distance;
    bool ascending = (low & (2u << stage)) == 0;
    uint a = keys[low], b = keys[high];
    if ((a > b) == ascending) {
      keys[low] = b;
      keys[high] = a;
    }
  }
  kernel void copy(global const uint *from, global uint *to) {
    to[get_global_id(0)] = from[get_global_id(0)];
  })";

class BitonicSort final : public Workload {
public:
  std::string name() const override { return "bitonic sort"; }
  std::string unit() const override { return "Mkey/s"; }
  double work() const override { return keys_.size() / 1e6; }

  void prepare(Scale scale) override {
    keys_.resize(scale == Scale::Tiny ? 1 << 12 : 1 << 22);
    std::mt19937 random(11);
    for (unsigned &key : keys_)
      key = static_cast<unsigned>(random());
  }

  /// The practical limit for sorting: the standard library's sort of each core's share, then a
  /// merge (parallel merge sort in two levels).
  void runNative() override {
    sorted_ = keys_;
    const long n = static_cast<long>(sorted_.size());
    int threads = 1;
#pragma omp parallel
    {
#pragma omp single
      threads = omp_get_num_threads();
      int thread = omp_get_thread_num();
      std::sort(sorted_.begin() + n * thread / threads,
                sorted_.begin() + n * (thread + 1) / threads);
    }
    for (int width = 1; width < threads; width *= 2)
      for (int first = 0; first + width < threads; first += 2 * width) {
        long begin = n * first / threads, middle = n * (first + width) / threads,
             end = n * std::min(first + 2 * width, threads) / threads;
        std::inplace_merge(sorted_.begin() + begin, sorted_.begin() + middle,
                           sorted_.begin() + end);
      }
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<BitonicSort> {
    Run(ClSession &session, const BitonicSort &workload)
        : RunOf(session, workload), step_(session.kernel(kSource, "bitonic_step")),
          copy_(session.kernel(kSource, "copy")), input_(session.buffer(workload.keys_)),
          keys_(session.buffer(workload.keys_.size() * sizeof(cl_uint))) {
      setArgs(copy_.get(), input_, keys_);
      setArg(step_.get(), 0, keys_);
    }
    /// The copy restores the unsorted keys (the sort works in place); it is part of the run.
    void enqueue() override {
      size_t n = workload_.keys_.size(), pairs = n / 2;
      session_.launch(copy_.get(), 1, &n);
      for (cl_uint stage = 0; (size_t{2} << stage) <= n; ++stage)
        for (cl_uint distance = 1u << stage; distance > 0; distance /= 2) {
          setArg(step_.get(), 1, stage);
          setArg(step_.get(), 2, distance);
          session_.launch(step_.get(), 1, &pairs);
        }
    }
    std::string mismatch() override {
      return compareExactly(session_.read<cl_uint>(keys_.get(), workload_.keys_.size()),
                            workload_.sorted_);
    }
    ClKernel step_, copy_;
    ClBuffer input_, keys_;
  };

  std::vector<unsigned> keys_, sorted_;
};

} // namespace

std::unique_ptr<Workload> makeBitonicSort() {
  return std::make_unique<BitonicSort>();
}

} // namespace bench
