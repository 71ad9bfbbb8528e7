// A benchmark workload: one algorithm as an OpenCL program and as a native C++ reference that
// uses every core. The harness times both; the reference's output is what the device's output
// is checked against, and its speed is the machine's practical limit for the algorithm.
#pragma once

#include "cl_session.hpp"

#include <memory>
#include <string>
#include <vector>

namespace bench {

/// How big the inputs are: `tiny` only checks results (CI), `full` is for measuring.
enum class Scale { Tiny, Full };

/// A workload prepared on one device: its buffers and kernels made, its arguments set.
class DeviceRun {
public:
  virtual ~DeviceRun() = default;
  /// Enqueues one run of the algorithm (the harness waits for it).
  virtual void enqueue() = 0;
  /// Compares the device's output with the reference; returns an empty string when it matches,
  /// else what differs.
  virtual std::string mismatch() = 0;
};

/// A DeviceRun of the workload type W: the session it runs on and the workload it checks against.
template <typename W> class RunOf : public DeviceRun {
protected:
  RunOf(ClSession &session, const W &workload) : session_(session), workload_(workload) {}
  ClSession &session_;
  const W &workload_;
};

class Workload {
public:
  virtual ~Workload() = default;

  virtual std::string name() const = 0;
  /// What the rate counts, e.g. "GFLOP/s" or "GB/s".
  virtual std::string unit() const = 0;
  /// Work of one run in the unit's numerator (GFLOP, GB, ...): rate = work / seconds.
  virtual double work() const = 0;

  /// Makes the inputs for `scale`; called once before anything else.
  virtual void prepare(Scale scale) = 0;
  /// One run of the native reference; its result is kept for checking.
  virtual void runNative() = 0;
  /// Builds the program and buffers on `session`'s device. Throws ClFailure on errors.
  virtual std::unique_ptr<DeviceRun> load(ClSession &session) = 0;
};

/// Every workload of the suite, in the order they are reported.
std::vector<std::unique_ptr<Workload>> allWorkloads();

/// Relative difference check for floating-point outputs: "" when every |a-b| <= tolerance *
/// max(1, |b|), else the first index that differs and its values.
std::string compareFloats(const std::vector<float> &actual, const std::vector<float> &expected,
                          float tolerance);

/// The floating-point type a workload computes in: float, or half (cl_khr_fp16) beside it.
enum class Precision { Float, Half };

/// What the OpenCL source of a workload written with REAL needs for `precision`.
std::string precisionPrelude(Precision precision);
/// Throws ClFailure when `precision` is half and the session's device lacks cl_khr_fp16.
void requirePrecision(ClSession &session, Precision precision);
/// `values` rounded to the precision (the inputs both the device and the reference use).
void roundTo(Precision precision, std::vector<float> &values);
/// A device buffer of `values` in `precision` (half: their half bits).
ClBuffer bufferIn(ClSession &session, Precision precision, const std::vector<float> &values);
/// `count` values of `precision` read from `buffer`, as floats.
std::vector<float> readIn(ClSession &session, Precision precision, cl_mem buffer, size_t count);
/// The size of one value of `precision`.
size_t sizeIn(Precision precision);

/// Exact check for integer outputs: "" when equal, else the first index that differs.
template <typename T, typename U>
std::string compareExactly(const std::vector<T> &actual, const std::vector<U> &expected) {
  if (actual.size() != expected.size())
    return "wrong number of values";
  for (size_t i = 0; i < actual.size(); ++i)
    if (actual[i] != static_cast<T>(expected[i]))
      return "value " + std::to_string(i) + " is " + std::to_string(actual[i]) + " instead of " +
             std::to_string(expected[i]);
  return "";
}

} // namespace bench
