// kiln-bench: runs each workload of the suite on the first device of every installed OpenCL
// platform and as native C++ on every core, checks each device's results against the native
// ones, and prints a table of rates with Kiln's ratio to the other platforms. Kiln and PoCL in
// one run (the loader adds Kiln to the installed vendors):
//
//   OCL_ICD_FILENAMES=$PWD/build/src/libkiln.so build/bench/kiln-bench --csv results.csv
//
// Options: --tiny (small inputs, one run each: a correctness check), --min-time S (seconds of
// runs per measurement, default 1, taken in turns with the other implementations), --only NAME
// (workloads whose name contains NAME),
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

/// One implementation measured on the current workload: its result so far, a way to run it
/// once that returns the seconds to count, and the seconds counted.
struct Contender {
  Result result;
  std::function<double()> runOnce;
  std::vector<double> seconds;
  // What a device's runs need alive (null for the native reference).
  std::unique_ptr<ClSession> session;
  std::unique_ptr<DeviceRun> run;
};

Contender nativeContender(Workload &workload) {
  Contender native{{workload.name(), workload.unit(), "native"}};
  native.runOnce = [&workload] { return wallSeconds([&] { workload.runNative(); }); };
  return native;
}

/// Loads the workload on `device` and checks one run's output; on failure the contender has
/// its error and no way to run.
Contender deviceContender(Workload &workload, const ClDevice &device, const Options &options) {
  Contender contender{{workload.name(), workload.unit(), device.platformName}};
  try {
    contender.session = std::make_unique<ClSession>(device, options.kernelTime);
    contender.run = workload.load(*contender.session);
    contender.run->enqueue();
    contender.session->finish();
    contender.result.error = contender.run->mismatch();
    if (!contender.result.error.empty())
      return contender;
    contender.session->takeKernelSeconds();
    contender.runOnce = [&session = *contender.session, &run = *contender.run, &options] {
      double wall = wallSeconds([&] {
        run.enqueue();
        session.finish();
      });
      return options.kernelTime ? session.takeKernelSeconds() : wall;
    };
  } catch (const ClFailure &failure) {
    contender.result.error = failure.what();
  }
  return contender;
}

/// Times every contender in turns: kRounds rounds, in each of which every contender runs for
/// about minSeconds / kRounds (at least once), the first contender of a round moving one place
/// each round. On a shared machine the speed varies over seconds; measured one after the other,
/// one implementation can meet a slow spell that the next one does not, and their ratio is the
/// machine's. In turns they meet the same spells. Each result is the median of its runs.
void timeInTurns(std::vector<Contender> &contenders, double minSeconds) {
  constexpr int kRounds = 5;
  constexpr size_t kMaxRunsPerRound = 200;
  int rounds = minSeconds > 0 ? kRounds : 1;
  for (int round = 0; round < rounds; ++round)
    for (size_t turn = 0; turn < contenders.size(); ++turn) {
      Contender &contender = contenders[(round + turn) % contenders.size()];
      if (!contender.runOnce)
        continue;
      double spent = 0;
      size_t runs = 0;
      try {
        do {
          contender.seconds.push_back(contender.runOnce());
          spent += contender.seconds.back();
          ++runs;
        } while (spent < minSeconds / rounds && runs < kMaxRunsPerRound);
      } catch (const ClFailure &failure) {
        contender.result.error = failure.what();
        contender.runOnce = nullptr;
      }
    }
  for (Contender &contender : contenders) {
    if (!contender.result.error.empty() || contender.seconds.empty())
      continue;
    std::vector<double> &seconds = contender.seconds;
    std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
    contender.result.seconds = seconds[seconds.size() / 2];
  }
}

/// Every implementation's result on `workload`: the native reference, then each device.
std::vector<Result> measure(Workload &workload, const std::vector<ClDevice> &devices,
                            const Options &options) {
  std::vector<Contender> contenders;
  contenders.push_back(nativeContender(workload));
  // The native output is the reference the devices are checked against.
  contenders.front().runOnce();
  for (const ClDevice &device : devices)
    contenders.push_back(deviceContender(workload, device, options));
  timeInTurns(contenders, options.minSeconds);
  std::vector<Result> results;
  for (Contender &contender : contenders) {
    if (contender.result.error.empty())
      contender.result.rate = workload.work() / contender.result.seconds;
    results.push_back(contender.result);
  }
  return results;
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
    std::vector<Result> measured = measure(*workload, devices, options);
    results.insert(results.end(), measured.begin(), measured.end());
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
