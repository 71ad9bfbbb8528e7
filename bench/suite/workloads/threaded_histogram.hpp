// The native references' histogram: rows spread over OpenMP's threads, each thread counting into
// bins of its own, merged once at the end (no atomics, no false sharing).
#pragma once

#include <cstddef>
#include <vector>

namespace bench {

/// `bins` counters, filled by `countRow(row, counters)` for every row in [0, rows).
template <typename CountRow>
std::vector<unsigned> threadedHistogram(size_t bins, long rows, CountRow countRow) {
  std::vector<unsigned> total(bins, 0);
#pragma omp parallel
  {
    std::vector<unsigned> mine(bins, 0);
#pragma omp for schedule(static) nowait
    for (long row = 0; row < rows; ++row)
      countRow(row, mine);
#pragma omp critical
    for (size_t bin = 0; bin < bins; ++bin)
      total[bin] += mine[bin];
  }
  return total;
}

} // namespace bench
