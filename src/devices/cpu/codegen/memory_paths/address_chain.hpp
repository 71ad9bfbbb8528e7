//===- address_chain.hpp - An address as a function of one loop-varying value ===//
//
// The prefetch steps compute, ahead of a loop, the address a load will read some iterations
// later. They find how the load's address follows from one value that changes with the loop
// (an index read from memory, the loop's counter) and copy that computation onto the value
// expected later.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/IRBuilder.h"

#include <cstdint>
#include <optional>

namespace kiln::cpu {

/// At most this many instructions between the loop-varying value and the address.
inline constexpr unsigned kMaxAddressChainLength = 8;

/// An address computed by `chain` (operands before users) from `source` and loop-invariant
/// values.
struct AddressChain {
  llvm::Instruction *source = nullptr;
  llvm::SmallVector<llvm::Instruction *, kMaxAddressChainLength> chain;
};

/// How `address` follows, within `loop`, from the one instruction `isSource` accepts, through
/// address computations, casts and arithmetic other than division; none when it follows from
/// none, or from more than one, or from anything else that varies with the loop.
std::optional<AddressChain> addressChainOf(llvm::Value *address, const llvm::Loop &loop,
                                           llvm::function_ref<bool(llvm::Instruction &)> isSource);

/// How many bytes `address` (computed by `computed`) moves when the chain's source grows by one,
/// where the chain is linear in its source (casts, additions, multiplications and shifts by
/// constants, address computations); none otherwise. Wrapping is ignored: the answer is the
/// stride of the addresses the loop reads, not a proof about them.
std::optional<int64_t> bytesPerSourceStep(const AddressChain &computed, llvm::Value *address,
                                          const llvm::DataLayout &layout);

/// Emits at `builder` the computation of `address` from `replacement` in place of the
/// chain's source, without wrap flags (the address may leave the object the original stays
/// within); returns the copy of `address`.
llvm::Value *copyAddressChain(const AddressChain &computed, llvm::Value *address,
                              llvm::Value *replacement, llvm::IRBuilder<> &builder);

/// Emits at `builder` a prefetch of the data at `address` for reading, with `locality` as
/// llvm.prefetch takes it (3: keep in the first-level cache, 0: do not keep).
void prefetchForReading(llvm::Value *address, int locality, llvm::IRBuilder<> &builder);

} // namespace kiln::cpu
