// The CPU device reads the index of an indexed load (`x[columns[k]]`) ahead of the loop and
// prefetches what it selects. That read may pass the end of the index buffer: into the read
// slack Kiln's own buffers have past their end, or, when a buffer of the launch is the
// application's memory (CL_MEM_USE_HOST_PTR), no further than the page the loop itself reads.
// An index array that ends right before an inaccessible page still works, and the results are
// the host's whatever the buffers.
#include "cl_test.hpp"
#include "guarded_pages.hpp"
#include "sparse_rows.hpp"

#include <cmath>
#include <cstring>

using namespace cltest;

namespace {

class IndirectPrefetchTest : public ClTest {
protected:
  /// Runs the reporting multiplyAdd over `global` rows in groups of `local` with `buffers` as
  /// its arguments; returns what Kiln reported.
  std::string runReported(const std::vector<cl_mem> &buffers, size_t global, size_t local) {
    // OpenCL C 3.0, for a last work-group narrower than the others.
    Kernel kernel = buildReportingKernel(kMultiplyAddRowsSource, "multiplyAdd", "-cl-std=CL3.0");
    if (!kernel)
      return {};
    for (cl_uint index = 0; index < buffers.size(); ++index)
      EXPECT_CL_SUCCESS(clSetKernelArg(kernel, index, sizeof(cl_mem), &buffers[index]));
    return runCapturingStderr(kernel, global, local);
  }

  void expectPrefetchedWhereKilnCpu(const std::string &report) {
    if (isKilnCpuDevice())
      EXPECT_NE(report.find("indexed loads prefetched ahead"), std::string::npos) << report;
  }

  /// Runs multiplyAdd over the rows of `matrix`, its column indices in `columns`, and checks
  /// the results against the host's.
  void expectRowsMatchTheHost(const SparseRows &matrix, cl_mem columns) {
    Mem rowStart = bufferWith(matrix.rowStart), values = bufferWith(matrix.values),
        x = bufferWith(matrix.x);
    Mem y = createBuffer(CL_MEM_WRITE_ONLY, matrix.x.size() * sizeof(cl_float));
    std::string report = runReported({rowStart.get(), columns, values.get(), x.get(), y.get()},
                                     matrix.x.size(), std::min<size_t>(matrix.x.size(), 64));
    expectPrefetchedWhereKilnCpu(report);
    std::vector<float> expected(matrix.rows());
    for (size_t row = 0; row < matrix.rows(); ++row)
      expected[row] = matrix.fold(row, 0, [](float sum, float value, float element) {
        return std::fma(value, element, sum);
      });
    EXPECT_TRUE(nearArrays(expected, read<cl_float>(y, matrix.rows()), 1e-4, 1e-5));
  }
};

// Sizes from a few rows to thousands put the end of the column array at many distances from a
// page's start, and make work-groups narrower than the rest.
constexpr size_t kRowCounts[] = {3, 17, 1000, 3001};

TEST_F(IndirectPrefetchTest, RowsWhoseColumnsEndAtAnInaccessiblePageMatchTheHost) {
  // The column array ends where the guard page starts: the last rows' read-ahead would fault
  // if it left the page.
  for (size_t rows : kRowCounts) {
    SCOPED_TRACE("rows: " + std::to_string(rows));
    SparseRows matrix(rows, rows + 5);
    ASSERT_FALSE(matrix.columns.empty());
    size_t columnBytes = matrix.columns.size() * sizeof(cl_int);
    GuardedPages guarded(columnBytes / 4096 + 2);
    ASSERT_TRUE(guarded.valid());
    void *columnMemory = guarded.endingAtGuard(columnBytes);
    std::memcpy(columnMemory, matrix.columns.data(), columnBytes);
    Mem columns = createBuffer(CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, columnBytes, columnMemory);
    expectRowsMatchTheHost(matrix, columns);
  }
}

TEST_F(IndirectPrefetchTest, RowsWhoseColumnsAreKilnsOwnBufferMatchTheHost) {
  // Every buffer is Kiln's: the read-ahead passes the column array's end into its slack.
  for (size_t rows : kRowCounts) {
    SCOPED_TRACE("rows: " + std::to_string(rows));
    SparseRows matrix(rows, rows + 5);
    Mem columns = bufferWith(matrix.columns, CL_MEM_READ_ONLY);
    expectRowsMatchTheHost(matrix, columns);
  }
}

TEST_F(IndirectPrefetchTest, RowsWhoseColumnsEndTheirParentBufferMatchTheHost) {
  // A sub-buffer at the end of its parent: the read-ahead passes both ends, into the parent's
  // slack.
  for (size_t rows : kRowCounts) {
    SCOPED_TRACE("rows: " + std::to_string(rows));
    SparseRows matrix(rows, rows + 5);
    constexpr size_t kOrigin = 1024; // a multiple of every device's base address alignment
    std::vector<cl_int> parentData(kOrigin / sizeof(cl_int), -1);
    parentData.insert(parentData.end(), matrix.columns.begin(), matrix.columns.end());
    Mem parent = bufferWith(parentData, CL_MEM_READ_ONLY);
    cl_buffer_region region{kOrigin, matrix.columns.size() * sizeof(cl_int)};
    cl_int error = CL_SUCCESS;
    Mem columns(
        clCreateSubBuffer(parent, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &region, &error));
    ASSERT_CL_SUCCESS(error);
    expectRowsMatchTheHost(matrix, columns);
  }
}

} // namespace
