// Sums accumulated in loops whose length each work-item reads from a buffer (CSR rows): the
// CPU device keeps such loops rolled and may compute `sum += a * b` either as a fused
// multiply-add or as a multiply and an addition (OpenCL C allows both: contraction is a
// permission). Each row must round exactly as one of the two, `fma()` always as the fused
// form, and rows of every length, empty ones included, must be summed in order.
#include "cl_test.hpp"

#include <cmath>

using namespace cltest;

namespace {

const char *kRowSumsSource = R"(
  kernel void multiplyAdd(global const int *rowStart, global const int *columns,
                          global const float *values, global const float *x, global float *y) {
    int row = get_global_id(0);
    float sum = 0.0f;
    for (int k = rowStart[row]; k < rowStart[row + 1]; ++k)
      sum += values[k] * x[columns[k]];
    y[row] = sum;
  }
  kernel void explicitFma(global const int *rowStart, global const int *columns,
                          global const float *values, global const float *x, global float *y) {
    int row = get_global_id(0);
    float sum = 0.0f;
    for (int k = rowStart[row]; k < rowStart[row + 1]; ++k)
      sum = fma(values[k], x[columns[k]], sum);
    y[row] = sum;
  }
  kernel void accumulatorTimesConstant(global const int *rowStart, global const int *columns,
                                       global const float *values, global const float *x,
                                       global float *y) {
    int row = get_global_id(0);
    float sum = 1.0f;
    for (int k = rowStart[row]; k < rowStart[row + 1]; ++k)
      sum = sum * values[k] + x[columns[k]];
    y[row] = sum;
  })";

/// A sparse matrix of rows of 0 to 40 entries in CSR form, and a vector.
struct SparseRows {
  std::vector<cl_int> rowStart{0}, columns;
  std::vector<float> values, x;

  explicit SparseRows(size_t rows) {
    Random random(77);
    for (size_t row = 0; row < rows; ++row) {
      size_t length = random.next() % 41;
      for (size_t k = 0; k < length; ++k) {
        columns.push_back(static_cast<cl_int>(random.next() % rows));
        values.push_back(random.uniform(-1, 1));
      }
      rowStart.push_back(static_cast<cl_int>(columns.size()));
    }
    x.resize(rows);
    for (float &value : x)
      value = random.uniform(-2, 2);
  }
  size_t rows() const { return rowStart.size() - 1; }

  /// Row `row` folded on the host from `start`: sum = step(sum, value, x[column]) per entry.
  template <typename Step> float fold(size_t row, float start, Step step) const {
    float sum = start;
    for (cl_int k = rowStart[row]; k < rowStart[row + 1]; ++k)
      sum = step(sum, values[k], x[columns[k]]);
    return sum;
  }
};

/// The product of `a` and `b` rounded to float on its own (the volatile keeps the host's
/// compiler from contracting it into the addition that follows).
float roundedProduct(float a, float b) {
  volatile float product = a * b;
  return product;
}

class AccumulationTest : public ClTest {
protected:
  std::vector<float> rowSums(const char *kernelName, const SparseRows &matrix) {
    Kernel kernel = buildKernel(kRowSumsSource, kernelName);
    if (!kernel)
      return {};
    Mem rowStart = bufferWith(matrix.rowStart), columns = bufferWith(matrix.columns);
    Mem values = bufferWith(matrix.values), x = bufferWith(matrix.x);
    Mem y = createBuffer(CL_MEM_WRITE_ONLY, matrix.rows() * sizeof(float));
    EXPECT_TRUE(setArgs(kernel, rowStart, columns, values, x, y));
    EXPECT_TRUE(run1D(kernel, matrix.rows()));
    return read<float>(y, matrix.rows());
  }
};

TEST_F(AccumulationTest, MultiplyAddChainsRoundAsFusedOrAsSeparateOperations) {
  SparseRows matrix(3000);
  std::vector<float> sums = rowSums("multiplyAdd", matrix);
  ASSERT_EQ(sums.size(), matrix.rows());
  for (size_t row = 0; row < matrix.rows(); ++row) {
    float fused = matrix.fold(row, 0, [](float sum, float value, float element) {
      return std::fma(value, element, sum);
    });
    float separate = matrix.fold(row, 0, [](float sum, float value, float element) {
      return sum + roundedProduct(value, element);
    });
    ASSERT_TRUE(sums[row] == fused || sums[row] == separate)
        << "row " << row << ": " << sums[row] << ", fused " << fused << ", separate " << separate;
  }
}

TEST_F(AccumulationTest, FmaIsAlwaysFused) {
  SparseRows matrix(3000);
  std::vector<float> sums = rowSums("explicitFma", matrix);
  ASSERT_EQ(sums.size(), matrix.rows());
  for (size_t row = 0; row < matrix.rows(); ++row) {
    float fused = matrix.fold(row, 0, [](float sum, float value, float element) {
      return std::fma(value, element, sum);
    });
    ASSERT_EQ(sums[row], fused) << "row " << row;
  }
}

TEST_F(AccumulationTest, ChainsThroughTheMultiplicationRoundAsFusedOrSeparate) {
  SparseRows matrix(3000);
  std::vector<float> sums = rowSums("accumulatorTimesConstant", matrix);
  ASSERT_EQ(sums.size(), matrix.rows());
  for (size_t row = 0; row < matrix.rows(); ++row) {
    float fused = matrix.fold(row, 1, [](float sum, float value, float element) {
      return std::fma(sum, value, element);
    });
    float separate = matrix.fold(row, 1, [](float sum, float value, float element) {
      return roundedProduct(sum, value) + element;
    });
    ASSERT_TRUE(sums[row] == fused || sums[row] == separate)
        << "row " << row << ": " << sums[row] << ", fused " << fused << ", separate " << separate;
  }
}

} // namespace
