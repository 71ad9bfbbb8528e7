// The suite's results: a table for people, CSV and JSON for tools (bench/plot.py draws the CSV).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace bench {

/// One workload on one implementation ("native" or an OpenCL platform's name).
struct Result {
  std::string workload, unit, implementation;
  double seconds = 0; ///< median time of one run
  double rate = 0;    ///< work per second, in `unit`
  std::string error;  ///< empty when the run built, ran and matched the reference
};

/// Rates side by side, one row per workload, with Kiln's ratio to every other OpenCL platform.
void printTable(const std::vector<Result> &results, std::FILE *out);
bool writeCsv(const std::vector<Result> &results, const std::string &path);
bool writeJson(const std::vector<Result> &results, const std::string &path);

} // namespace bench
