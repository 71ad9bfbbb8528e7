#include "report.hpp"

#include <algorithm>
#include <fstream>
#include <map>

namespace bench {
namespace {

constexpr const char *kKiln = "Kiln";

template <typename T> void addOnce(std::vector<T> &list, const T &value) {
  if (std::find(list.begin(), list.end(), value) == list.end())
    list.push_back(value);
}

/// Short column titles: the first word of a platform's name ("Portable Computing Language"
/// becomes "PoCL", as everyone calls it).
std::string shortName(const std::string &implementation) {
  if (implementation == "Portable Computing Language")
    return "PoCL";
  return implementation.substr(0, implementation.find(' '));
}

std::string escapeJson(const std::string &text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\')
      escaped += '\\';
    if (c == '\n') {
      escaped += "\\n";
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20)
      continue;
    escaped += c;
  }
  return escaped;
}

std::string quoteCsv(const std::string &text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"')
      quoted += '"';
    quoted += c == '\n' ? ' ' : c;
  }
  return quoted + "\"";
}

} // namespace

void printTable(const std::vector<Result> &results, std::FILE *out) {
  std::vector<std::string> workloads, implementations;
  std::map<std::pair<std::string, std::string>, const Result *> cell;
  std::map<std::string, std::string> units;
  for (const Result &result : results) {
    units[result.workload] = result.unit;
    addOnce(workloads, result.workload);
    addOnce(implementations, result.implementation);
    cell[{result.workload, result.implementation}] = &result;
  }
  bool hasKiln = std::count(implementations.begin(), implementations.end(), kKiln) > 0;
  std::fprintf(out, "%-16s %-14s", "workload", "unit");
  for (const std::string &implementation : implementations)
    std::fprintf(out, " %12s", shortName(implementation).c_str());
  if (hasKiln)
    for (const std::string &implementation : implementations)
      if (implementation != kKiln)
        std::fprintf(out, " %12s", ("Kiln/" + shortName(implementation)).c_str());
  std::fprintf(out, "\n");
  std::vector<std::string> errors;
  for (const std::string &workload : workloads) {
    std::fprintf(out, "%-16s %-14s", workload.c_str(), units[workload].c_str());
    for (const std::string &implementation : implementations) {
      const Result *result = cell[{workload, implementation}];
      if (result == nullptr)
        std::fprintf(out, " %12s", "-");
      else if (!result->error.empty()) {
        std::fprintf(out, " %12s", "FAILED");
        errors.push_back(workload + " on " + implementation + ": " + result->error);
      } else
        std::fprintf(out, " %12.3g", result->rate);
    }
    const Result *kiln = hasKiln ? cell[{workload, kKiln}] : nullptr;
    if (hasKiln)
      for (const std::string &implementation : implementations) {
        if (implementation == kKiln)
          continue;
        const Result *other = cell[{workload, implementation}];
        if (kiln != nullptr && other != nullptr && kiln->error.empty() && other->error.empty())
          std::fprintf(out, " %11.2fx", kiln->rate / other->rate);
        else
          std::fprintf(out, " %12s", "-");
      }
    std::fprintf(out, "\n");
  }
  for (const std::string &error : errors)
    std::fprintf(out, "FAILED: %s\n", error.c_str());
}

bool writeCsv(const std::vector<Result> &results, const std::string &path) {
  std::ofstream file(path);
  file << "workload,unit,implementation,seconds,rate,error\n";
  for (const Result &result : results)
    file << quoteCsv(result.workload) << ',' << quoteCsv(result.unit) << ','
         << quoteCsv(result.implementation) << ',' << result.seconds << ',' << result.rate << ','
         << quoteCsv(result.error) << '\n';
  return static_cast<bool>(file);
}

bool writeJson(const std::vector<Result> &results, const std::string &path) {
  std::ofstream file(path);
  file << "[\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const Result &result = results[i];
    file << "  {\"workload\": \"" << escapeJson(result.workload) << "\", \"unit\": \""
         << escapeJson(result.unit) << "\", \"implementation\": \""
         << escapeJson(result.implementation) << "\", \"seconds\": " << result.seconds
         << ", \"rate\": " << result.rate << ", \"error\": \"" << escapeJson(result.error) << "\"}"
         << (i + 1 < results.size() ? ",\n" : "\n");
  }
  file << "]\n";
  return static_cast<bool>(file);
}

} // namespace bench
