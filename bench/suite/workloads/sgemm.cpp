// Matrix multiply C = A * B of square matrices in single precision (and, tiled, in half, with
// the same kernel on half values): naively, one work-item per element of C, and tiled in local
// memory as in the OpenCL Programming Guide's chapter 21.
#include "../workload.hpp"

#include <algorithm>
#include <random>

namespace bench {
namespace {

const char *kSource = R"(
  kernel void sgemm_naive(global const REAL *a, global const REAL *b, global REAL *c, int n) {
    int row = get_global_id(1), column = get_global_id(0);
    REAL sum = 0;
    for (int k = 0; k < n; ++k)
      sum += a[row * n + k] * b[k * n + column];
    c[row * n + column] = sum;
  }

  #define TILE 16
  kernel void sgemm_tiled(global const REAL *a, global const REAL *b, global REAL *c, int n) {
    local REAL tileA[TILE][TILE], tileB[TILE][TILE];
    int localRow = get_local_id(1), localColumn = get_local_id(0);
    int row = get_global_id(1), column = get_global_id(0);
    REAL sum = 0;
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
  Sgemm(bool tiled, Precision precision) : tiled_(tiled), precision_(precision) {}

  std::string name() const override {
    if (precision_ == Precision::Half)
      return "hgemm tiled";
    return tiled_ ? "sgemm tiled" : "sgemm naive";
  }
  std::string unit() const override { return "GFLOP/s"; }
  double work() const override { return 2.0 * n_ * n_ * n_ / 1e9; }

  void prepare(Scale scale) override {
    n_ = scale == Scale::Tiny ? 64 : 1024;
    std::mt19937 random(2);
    // Small values keep half's sums of 1024 products well inside its precision.
    std::uniform_real_distribution<float> value(0, precision_ == Precision::Half ? 0.125f : 1);
    a_.resize(n_ * n_);
    b_.resize(n_ * n_);
    for (float &x : a_)
      x = value(random);
    for (float &x : b_)
      x = value(random);
    roundTo(precision_, a_);
    roundTo(precision_, b_);
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
        : RunOf(session, workload), kernel_(kernelFor(session, workload)),
          a_(bufferIn(session, workload.precision_, workload.a_)),
          b_(bufferIn(session, workload.precision_, workload.b_)),
          c_(session.buffer(workload.c_.size() * sizeIn(workload.precision_))) {
      setArgs(kernel_.get(), a_, b_, c_, static_cast<cl_int>(workload.n_));
    }
    void enqueue() override {
      size_t global[2] = {workload_.n_, workload_.n_};
      size_t local[2] = {kTile, kTile};
      session_.launch(kernel_.get(), 2, global, workload_.tiled_ ? local : nullptr);
    }
    static ClKernel kernelFor(ClSession &session, const Sgemm &workload) {
      requirePrecision(session, workload.precision_);
      return session.kernel(precisionPrelude(workload.precision_) + kSource,
                            workload.tiled_ ? "sgemm_tiled" : "sgemm_naive");
    }
    std::string mismatch() override {
      // Half rounds every partial sum to 11 bits.
      float tolerance = workload_.precision_ == Precision::Half ? 3e-2f : 1e-4f;
      return compareFloats(readIn(session_, workload_.precision_, c_.get(), workload_.c_.size()),
                           workload_.c_, tolerance);
    }
    ClKernel kernel_;
    ClBuffer a_, b_, c_;
  };

  bool tiled_;
  Precision precision_;
  size_t n_ = 0;
  std::vector<float> a_, b_, c_;
};

} // namespace

std::unique_ptr<Workload> makeSgemmNaive() {
  return std::make_unique<Sgemm>(false, Precision::Float);
}
std::unique_ptr<Workload> makeSgemmTiled() {
  return std::make_unique<Sgemm>(true, Precision::Float);
}
std::unique_ptr<Workload> makeHgemmTiled() {
  return std::make_unique<Sgemm>(true, Precision::Half);
}

} // namespace bench
