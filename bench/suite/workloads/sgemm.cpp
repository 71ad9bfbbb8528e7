// Single-precision matrix multiply C = A * B of square matrices: naively, one work-item per
// element of C, and tiled in local memory as in the OpenCL Programming Guide's chapter 21.
#include "../workload.hpp"

#include <algorithm>
#include <random>

namespace bench {
namespace {

const char *kSource = R"(
  kernel void sgemm_naive(global const float *a, global const float *b, global float *c, int n) {
    int row = get_global_id(1), column = get_global_id(0);
    float sum = 0.0f;
    for (int k = 0; k < n; ++k)
      sum += a[row * n + k] * b[k * n + column];
    c[row * n + column] = sum;
  }

  #define TILE 16
  kernel void sgemm_tiled(global const float *a, global const float *b, global float *c, int n) {
    local float tileA[TILE][TILE], tileB[TILE][TILE];
    int localRow = get_local_id(1), localColumn = get_local_id(0);
    int row = get_global_id(1), column = get_global_id(0);
    float sum = 0.0f;
    for (int tile = 0; tile < n / TILE; ++tile) {
      tileA[localRow][localColumn] = a[row * n + tile * TILE + localColumn];
      tileB[localRow][localColumn] = b[(tile * TILE + localRow) * n + column];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int k = 0; k < TILE; ++k)
        sum += tileA[localRow][k] * tileB[k][localColumn];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + column] = sum;
  })";

constexpr size_t kTile = 16;

class Sgemm final : public Workload {
public:
  explicit Sgemm(bool tiled) : tiled_(tiled) {}

  std::string name() const override { return tiled_ ? "sgemm tiled" : "sgemm naive"; }
  std::string unit() const override { return "GFLOP/s"; }
  double work() const override { return 2.0 * n_ * n_ * n_ / 1e9; }

  void prepare(Scale scale) override {
    n_ = scale == Scale::Tiny ? 64 : 1024;
    std::mt19937 random(2);
    std::uniform_real_distribution<float> value(0, 1);
    a_.resize(n_ * n_);
    b_.resize(n_ * n_);
    for (float &x : a_)
      x = value(random);
    for (float &x : b_)
      x = value(random);
    c_.assign(n_ * n_, 0);
  }

  /// Rows split between the cores; within a row the i-k-j order streams B and C in SIMD.
  void runNative() override {
    const long n = static_cast<long>(n_);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) {
      float *row = &c_[i * n];
      std::fill(row, row + n, 0.0f);
      for (long k = 0; k < n; ++k) {
        const float aik = a_[i * n + k];
        const float *bk = &b_[k * n];
#pragma omp simd
        for (long j = 0; j < n; ++j)
          row[j] += aik * bk[j];
      }
    }
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<Sgemm> {
    Run(ClSession &session, const Sgemm &workload)
        : RunOf(session, workload),
          kernel_(session.kernel(kSource, workload.tiled_ ? "sgemm_tiled" : "sgemm_naive")),
          a_(session.buffer(workload.a_)), b_(session.buffer(workload.b_)),
          c_(session.buffer(workload.c_.size() * sizeof(float))) {
      setArgs(kernel_.get(), a_, b_, c_, static_cast<cl_int>(workload.n_));
    }
    void enqueue() override {
      size_t global[2] = {workload_.n_, workload_.n_};
      size_t local[2] = {kTile, kTile};
      session_.launch(kernel_.get(), 2, global, workload_.tiled_ ? local : nullptr);
    }
    std::string mismatch() override {
      return compareFloats(session_.read<float>(c_.get(), workload_.c_.size()), workload_.c_,
                           1e-4f);
    }
    ClKernel kernel_;
    ClBuffer a_, b_, c_;
  };

  bool tiled_;
  size_t n_ = 0;
  std::vector<float> a_, b_, c_;
};

} // namespace

std::unique_ptr<Workload> makeSgemmNaive() {
  return std::make_unique<Sgemm>(false);
}
std::unique_ptr<Workload> makeSgemmTiled() {
  return std::make_unique<Sgemm>(true);
}

} // namespace bench
