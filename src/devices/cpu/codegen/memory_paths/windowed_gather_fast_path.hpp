//===- windowed_gather_fast_path.hpp - Permutes for gathers and scatters within small windows ===//
//
// Lanes whose addresses are not consecutive often stay close together: the steps of a bitonic
// sort at distances below the SIMD width read and write `id / d * 2 * d + id % d` and that plus
// d, so every 16 lanes touch 32 neighbouring elements; accesses of a stride known only at run
// time do the same. With AVX-512, 16 such lanes of 32 bits are two vector loads (masked to the
// elements the lanes read) and one two-register permute (vpermi2d) instead of 16 loads; when
// their addresses increase from lane to lane, a store is a compress, two expands and two
// masked stores instead of 16 stores. On a Zen 4, a 16-lane gather took about 5.7 ns and a
// scatter 6.7 ns; the loads and the permute 1.1 ns.
//
// This step comes after the consecutive-lanes test of contiguous_gather_fast_path.hpp, on the
// gathers and scatters it left: a test that the lanes of every 16 lie within the 32 elements
// from the first one's address (and, for a scatter, increase), taken to that form.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/codegen/memory_paths/lane_access.hpp"

#include "llvm/IR/DataLayout.h"

namespace kiln::cpu {

/// Whether `access` can take the windowed form: 32-bit elements, lanes a multiple of 16. (The
/// caller knows that the target has AVX-512.)
bool hasWindowedForm(const LaneAccess &access, const llvm::DataLayout &layout);

/// Adds the window test before `access`, taken to the loads and permutes (gathers) or the
/// expands and masked stores (scatters); the access itself stays for the other case.
void branchOnLanesInWindows(const LaneAccess &access);

} // namespace kiln::cpu
