// A kernel's work-group functions, one per shape of work-group it has run (work_group_shape.hpp),
// compiled on first use. Looking up a shape used recently takes no lock and allocates nothing:
// the launch path of a kernel already run stays free of both.
#pragma once

#include "devices/cpu/kernel_jit.hpp"

#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace kiln::cpu {

class WorkGroupCodeCache {
public:
  /// Compiles the code for a shape; false (with the reason) when it cannot.
  using Compiler = std::function<bool(const WorkGroupShape &, WorkGroupCode &, std::string &error)>;

  /// The code for `shape` when it is among the shapes used last; no lock, no allocation.
  const WorkGroupCode *findRecent(const WorkGroupShape &shape) const;

  /// The code for `shape`, compiled with `compile` when no launch has needed it yet. Null, with
  /// `error` set, when compiling fails (the failure is not remembered: a later launch retries).
  const WorkGroupCode *findOrCompile(const WorkGroupShape &shape, const Compiler &compile,
                                     std::string &error);

private:
  struct Entry {
    WorkGroupShape shape;
    WorkGroupCode code;
    std::atomic<uint32_t> recentGroupNanoseconds{0}; // code.recentGroupNanoseconds points here
  };

  /// The shapes used last, for lookups without the lock. Entries live as long as the cache.
  static constexpr size_t kRecentCount = 4;
  std::array<std::atomic<const Entry *>, kRecentCount> recent_{};
  std::atomic<size_t> nextRecent_{0};

  std::mutex mutex_; // held while compiling: a shape is compiled once
  std::map<WorkGroupShape, std::unique_ptr<Entry>> entries_;
};

} // namespace kiln::cpu
