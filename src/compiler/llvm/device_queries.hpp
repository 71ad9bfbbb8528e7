//===- device_queries.hpp - The builtin library's questions to a device -----===//
//
// Some builtin functions take one path on one device and another elsewhere: they ask, by calling
// a constant function of no arguments (src/builtins/kiln_primitives.h), and each code generator
// answers with a constant. The branches the answer decides are folded at once, so that the path
// a device does not take (sub-group functions the CPU's fallback could not run) is gone before
// anything looks at the kernel's calls.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"

namespace kiln::compiler {

/// `__kiln_pipes_reserve_per_sub_group()`: whether a sub-group's reads or writes of a pipe take
/// one reservation (src/builtins/pipes.cl).
inline constexpr const char *kPipesReservePerSubGroupQuery = "__kiln_pipes_reserve_per_sub_group";
/// `__kiln_pipes_reserve_by_lane_rank()`: whether each work-item of those reserves the position
/// its rank among them names (src/builtins/pipes.cl).
inline constexpr const char *kPipesReserveByLaneRankQuery = "__kiln_pipes_reserve_by_lane_rank";

/// `__kiln_launches_on_device()`: whether the device starts the kernels a kernel enqueues
/// itself, where it can (compiler/device_enqueue_format.hpp, DeviceLaunchRequest).
inline constexpr const char *kLaunchesOnDeviceQuery = "__kiln_launches_on_device";

/// `__kiln_enqueue_constants_in_launch()`: whether the device reads the launch tree's default
/// queue and the block kernels' limits from its launch (compiler/device_enqueue_format.hpp).
inline constexpr const char *kEnqueueConstantsInLaunchQuery = "__kiln_enqueue_constants_in_launch";

/// `__kiln_converts_saturating_natively()`: whether the device's float-to-integer conversion
/// saturates and converts NaN to 0 itself, so that the library's conversions are LLVM's
/// saturating ones (src/builtins/conversions.cl).
inline constexpr const char *kConvertsSaturatingNativelyQuery =
    "__kiln_converts_saturating_natively";

/// `__kiln_retries_without_waiting()`: marks a loop that never waits for another work-item
/// (src/builtins/kiln_primitives.h); a code generator that has no use for the mark deletes it.
inline constexpr const char *kRetriesWithoutWaitingMark = "__kiln_retries_without_waiting";

/// Deletes every call of the mark `name` (a function of no arguments and no result) in `module`.
void deleteMarks(llvm::Module &module, llvm::StringRef name);

/// Whether code in `module` calls the query `name`.
bool asksDeviceQuery(const llvm::Module &module, llvm::StringRef name);

/// Replaces every call of the query `name` in `module` by `answer`, and folds the branches that
/// then have a constant condition.
void answerDeviceQuery(llvm::Module &module, llvm::StringRef name, bool answer);

} // namespace kiln::compiler
