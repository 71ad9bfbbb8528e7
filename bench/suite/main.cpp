// kiln-bench: runs each workload of the suite on the first device of every installed OpenCL
// platform and as native C++ on every core, checks each device's results against the native
// ones, and prints a table of rates with Kiln's ratio to the other platforms. Kiln and PoCL in
// one run (the loader adds Kiln to the installed vendors):
//
//   OCL_ICD_FILENAMES=$PWD/build/src/libkiln.so build/bench/kiln-bench --csv results.csv
//
// Options: --tiny (small inputs, one run each: a correctness check), --min-time S (seconds of
// runs per measurement, default 1), --only NAME (workloads whose name contains NAME),
// --device-type cpu|gpu (each platform's first device of that type; default: its first device),
// --kernel-time (rates from the kernels' profiled execution times instead of the wall time of
// enqueue and clFinish: the devices' code alone), --csv FILE, --json FILE. Exits 1 when a device
// fails a workload or gets a wrong result.
#include "cl_session.hpp"
#include "report.hpp"
#include "workload.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

namespace bench {
namespace {

struct Options {
  Scale scale = Scale::Full;
  double minSeconds = 1.0;
  std::string only, csvPath, jsonPath;
  cl_device_type deviceType = CL_DEVICE_TYPE_ALL;
  bool kernelTime = false;
};

/// The wall time of `run`, in seconds.
double wallSeconds(const std::function<void()> &run) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  run();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Median of the seconds `run` reports over repetitions lasting about `minSeconds` (at least 3,
/// at most 1000); one run when minSeconds is 0.
double timeRuns(const std::function<double()> &run, double minSeconds) {
  std::vector<double> times;
  double total = 0;
  do {
    double seconds = run();
    times.push_back(seconds);
    total += seconds;
  } while (minSeconds > 0 && (times.size() < 3 || total < minSeconds) && times.size() < 1000);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

Result measureDevice(Workload &workload, const ClDevice &device, const Options &options) {
  Result result{workload.name(), workload.unit(), device.platformName};
  try {
    ClSession session(device, options.kernelTime);
    std::unique_ptr<DeviceRun> run = workload.load(session);
    run->enqueue();
    session.finish();
    result.error = run->mismatch();
    if (!result.error.empty())
      return result;
    session.takeKernelSeconds();
    result.seconds = timeRuns(
        [&] {
          double wall = wallSeconds([&] {
            run->enqueue();
            session.finish();
          });
          return options.kernelTime ? session.takeKernelSeconds() : wall;
        },
        options.minSeconds);
    result.rate = workload.work() / result.seconds;
  } catch (const ClFailure &failure) {
    result.error = failure.what();
  }
  return result;
}

Result measureNative(Workload &workload, const Options &options) {
  Result result{workload.name(), workload.unit(), "native"};
  result.seconds =
      timeRuns([&] { return wallSeconds([&] { workload.runNative(); }); }, options.minSeconds);
  result.rate = workload.work() / result.seconds;
  return result;
}

bool parse(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool hasValue = i + 1 < argc;
    if (arg == "--tiny") {
      options.scale = Scale::Tiny;
      options.minSeconds = 0;
    } else if (arg == "--min-time" && hasValue) {
      options.minSeconds = std::atof(argv[++i]);
    } else if (arg == "--only" && hasValue) {
      options.only = argv[++i];
    } else if (arg == "--device-type" && hasValue) {
      std::string type = argv[++i];
      if (type != "cpu" && type != "gpu") {
        std::fprintf(stderr, "kiln-bench: --device-type takes cpu or gpu\n");
        return false;
      }
      options.deviceType = type == "gpu" ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
    } else if (arg == "--kernel-time") {
      options.kernelTime = true;
    } else if (arg == "--csv" && hasValue) {
      options.csvPath = argv[++i];
    } else if (arg == "--json" && hasValue) {
      options.jsonPath = argv[++i];
    } else {
      std::fprintf(stderr, "kiln-bench: unknown option %s\n", arg.c_str());
      return false;
    }
  }
  return true;
}

} // namespace
} // namespace bench

int main(int argc, char **argv) {
  using namespace bench;
  Options options;
  if (!parse(argc, argv, options))
    return 2;
  std::vector<ClDevice> devices = installedDevices(options.deviceType);
  if (devices.empty()) {
    std::fprintf(stderr, "kiln-bench: no OpenCL platform is installed\n");
    return 1;
  }
  std::vector<Result> results;
  for (std::unique_ptr<Workload> &workload : allWorkloads()) {
    if (workload->name().find(options.only) == std::string::npos)
      continue;
    workload->prepare(options.scale);
    // The native run comes first: its output is the reference the devices are checked against.
    results.push_back(measureNative(*workload, options));
    for (const ClDevice &device : devices)
      results.push_back(measureDevice(*workload, device, options));
  }
  printTable(results, stdout);
  if (!options.csvPath.empty() && !writeCsv(results, options.csvPath))
    std::fprintf(stderr, "kiln-bench: cannot write %s\n", options.csvPath.c_str());
  if (!options.jsonPath.empty() && !writeJson(results, options.jsonPath))
    std::fprintf(stderr, "kiln-bench: cannot write %s\n", options.jsonPath.c_str());
  bool allCorrect = std::all_of(results.begin(), results.end(),
                                [](const Result &result) { return result.error.empty(); });
  return allCorrect ? 0 : 1;
}
