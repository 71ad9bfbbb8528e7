// Sparse matrix times vector in CSR form, one row per work-item (the OpenCL Programming Guide's
// chapter 22 in its simplest form): irregular, gather-bound memory access.
#include "../workload.hpp"

#include <random>

namespace bench {
namespace {

const char *kSource = R"(
  kernel void spmv(global const int *rowStart, global const int *columns,
                   global const float *values, global const float *x, global float *y) {
    int row = get_global_id(0);
    float sum = 0.0f;
    for (int k = rowStart[row]; k < rowStart[row + 1]; ++k)
      sum += values[k] * x[columns[k]];
    y[row] = sum;
  })";

class Spmv final : public Workload {
public:
  std::string name() const override { return "spmv csr"; }
  std::string unit() const override { return "GFLOP/s"; }
  double work() const override { return 2.0 * values_.size() / 1e9; }

  /// A banded matrix with random extra entries: 8 to 40 non-zeros a row.
  void prepare(Scale scale) override {
    rows_ = scale == Scale::Tiny ? 1000 : 1 << 20;
    std::mt19937 random(8);
    std::uniform_int_distribution<int> perRow(8, 40), column(0, rows_ - 1);
    std::uniform_real_distribution<float> value(-1, 1);
    rowStart_.assign(1, 0);
    columns_.clear();
    values_.clear();
    for (int row = 0; row < rows_; ++row) {
      int count = perRow(random);
      for (int k = 0; k < count; ++k) {
        columns_.push_back(k < count / 2 ? (row + k) % rows_ : column(random));
        values_.push_back(value(random));
      }
      rowStart_.push_back(static_cast<int>(columns_.size()));
    }
    x_.resize(rows_);
    for (float &v : x_)
      v = value(random);
    y_.assign(rows_, 0);
  }

  void runNative() override {
    const int rows = rows_;
#pragma omp parallel for schedule(static)
    for (int row = 0; row < rows; ++row) {
      float sum = 0;
      for (int k = rowStart_[row]; k < rowStart_[row + 1]; ++k)
        sum += values_[k] * x_[columns_[k]];
      y_[row] = sum;
    }
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<Spmv> {
    Run(ClSession &session, const Spmv &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSource, "spmv")),
          rowStart_(session.buffer(workload.rowStart_)),
          columns_(session.buffer(workload.columns_)), values_(session.buffer(workload.values_)),
          x_(session.buffer(workload.x_)), y_(session.buffer(workload.y_.size() * sizeof(float))) {
      setArgs(kernel_.get(), rowStart_, columns_, values_, x_, y_);
    }
    void enqueue() override {
      size_t global = workload_.rows_;
      session_.launch(kernel_.get(), 1, &global);
    }
    std::string mismatch() override {
      return compareFloats(session_.read<float>(y_.get(), workload_.y_.size()), workload_.y_,
                           1e-5f);
    }
    ClKernel kernel_;
    ClBuffer rowStart_, columns_, values_, x_, y_;
  };

  int rows_ = 0;
  std::vector<int> rowStart_, columns_;
  std::vector<float> values_, x_, y_;
};

} // namespace

std::unique_ptr<Workload> makeSpmv() {
  return std::make_unique<Spmv>();
}

} // namespace bench
