// A CSR sparse matrix and a vector for tests of kernels that walk rows of different lengths.
#pragma once

#include "cl_test.hpp"

#include <vector>

namespace cltest {

/// y = A x for a CSR matrix A: `sum += a * b` along each row, in order.
inline constexpr const char *kMultiplyAddRowsSource = R"(
  kernel void multiplyAdd(global const int *rowStart, global const int *columns,
                          global const float *values, global const float *x, global float *y) {
    int row = get_global_id(0);
    float sum = 0.0f;
    for (int k = rowStart[row]; k < rowStart[row + 1]; ++k)
      sum += values[k] * x[columns[k]];
    y[row] = sum;
  })";

/// A sparse matrix of rows of 0 to 40 entries in CSR form, and a vector.
struct SparseRows {
  std::vector<cl_int> rowStart{0}, columns;
  std::vector<float> values, x;

  explicit SparseRows(size_t rows, uint64_t seed = 77) {
    Random random(seed);
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

} // namespace cltest
