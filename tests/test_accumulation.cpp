// Sums accumulated in loops whose length each work-item reads from a buffer (CSR rows): the
// CPU device keeps such loops rolled and may compute `sum += a * b` either as a fused
// multiply-add or as a multiply and an addition (OpenCL C allows both: contraction is a
// permission). Each row must round exactly as one of the two, `fma()` always as the fused
// form, and rows of every length, empty ones included, must be summed in order.
#include "cl_test.hpp"
#include "sparse_rows.hpp"

#include <cmath>

using namespace cltest;

namespace {

/// Beside sparse_rows.hpp's multiplyAdd.
const char *kOtherRowSumsSource = R"(
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

/// The product of `a` and `b` rounded to float on its own (the volatile keeps the host's
/// compiler from contracting it into the addition that follows).
float roundedProduct(float a, float b) {
  volatile float product = a * b;
  return product;
}

class AccumulationTest : public ClTest {
protected:
  std::vector<float> rowSums(const char *kernelName, const SparseRows &matrix) {
    Kernel kernel =
        buildKernel(std::string(kMultiplyAddRowsSource) + kOtherRowSumsSource, kernelName);
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
