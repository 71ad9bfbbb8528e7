//===- small_integer_range.hpp - The integers a conversion to float converts ----===//
//
// Two steps check a float computation for every value its input can take: the correction of a
// division by a constant (reciprocal_division.hpp) and the integer results of float round trips
// (float_round_trips.hpp). Their input is an integer of a few bits converted to float: a
// normalized image channel, a byte normalized by hand.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/InstrTypes.h"

#include <cstdint>
#include <optional>

namespace kiln::cpu {

/// The integers a conversion can convert: [low, high].
struct SmallIntegerRange {
  int64_t low = 0, high = 0;
};

/// The range of the integer operand of `conversion` (uitofp or sitofp), when that operand has at
/// most `maxBits` bits of significance.
std::optional<SmallIntegerRange> smallIntegerRange(const llvm::CastInst &conversion,
                                                   unsigned maxBits);

} // namespace kiln::cpu
