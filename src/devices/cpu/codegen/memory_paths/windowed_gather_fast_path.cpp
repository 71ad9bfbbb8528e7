//===- windowed_gather_fast_path.cpp - Permutes for gathers and scatters within small windows ===//
#include "devices/cpu/codegen/memory_paths/windowed_gather_fast_path.hpp"

#include "devices/cpu/codegen/ir_utilities/fast_path_branch.hpp"

#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsX86.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

/// The 32-bit lanes of a 512-bit register: the lanes one permute serves.
constexpr unsigned kPieceLanes = 16;
/// vpermi2d picks from two registers.
constexpr unsigned kWindowElements = 2 * kPieceLanes;
constexpr uint64_t kElementBytes = 4;
constexpr uint64_t kWindowBytes = kWindowElements * kElementBytes;

unsigned laneCount(const Value *vector) {
  return cast<FixedVectorType>(vector->getType())->getNumElements();
}

/// Lanes [piece * 16, piece * 16 + 16) of `vector`.
Value *pieceOf(IRBuilder<> &builder, Value *vector, unsigned piece) {
  SmallVector<int, kPieceLanes> lanes;
  for (unsigned lane = 0; lane < kPieceLanes; ++lane)
    lanes.push_back(static_cast<int>(piece * kPieceLanes + lane));
  return builder.CreateShuffleVector(vector, lanes);
}

/// Each lane's address minus that of the first lane of its 16, in bytes (<N x i64>), of
/// `pointers` frozen (see branchOnLanesInWindows).
Value *distanceFromPieceStart(IRBuilder<> &builder, Value *pointers) {
  unsigned lanes = laneCount(pointers);
  SmallVector<int, 64> firstOfPiece;
  for (unsigned lane = 0; lane < lanes; ++lane)
    firstOfPiece.push_back(static_cast<int>(lane / kPieceLanes * kPieceLanes));
  Value *addresses =
      builder.CreatePtrToInt(pointers, FixedVectorType::get(builder.getInt64Ty(), lanes));
  Value *starts = builder.CreateShuffleVector(addresses, firstOfPiece);
  return builder.CreateSub(addresses, starts, "window.distance");
}

/// Whether every lane lies within the window of its 16, on an element boundary, and, when
/// `increasing`, after the lane before it in its 16 (so that no two lanes share an element and
/// their order is the elements' order).
Value *lanesInWindows(IRBuilder<> &builder, Value *distance, bool increasing) {
  Type *type = distance->getType();
  // Unsigned: a lane before its window's start wraps to a distance far past the end.
  Value *inWindow = builder.CreateICmpULT(distance, ConstantInt::get(type, kWindowBytes));
  Value *onElement =
      builder.CreateICmpEQ(builder.CreateAnd(distance, ConstantInt::get(type, kElementBytes - 1)),
                           Constant::getNullValue(type));
  Value *holds = builder.CreateAnd(inWindow, onElement);
  if (increasing) {
    unsigned lanes = laneCount(distance);
    SmallVector<int, 64> next;
    SmallVector<Constant *, 64> lastOfPiece;
    for (unsigned lane = 0; lane < lanes; ++lane) {
      bool last = lane % kPieceLanes == kPieceLanes - 1;
      next.push_back(static_cast<int>(last ? lane : lane + 1));
      lastOfPiece.push_back(builder.getInt1(last));
    }
    Value *rises = builder.CreateICmpUGT(builder.CreateShuffleVector(distance, next), distance);
    holds = builder.CreateAnd(holds, builder.CreateOr(rises, ConstantVector::get(lastOfPiece)));
  }
  return allLanesSet(builder, holds, "lanes.in.windows");
}

/// What the fast forms share: each lane's element offset in its window, and each window's
/// elements that active lanes touch.
struct Windows {
  Value *offsets;  // <N x i32>, 0 to 31
  Value *touched;  // <N x i32>: 1 << offset in an active lane, 0 in another
  Value *pointers; // <N x ptr>
  Align alignment;

  Windows(IRBuilder<> &builder, const LaneAccess &access, Value *frozenPointers, Value *distance)
      : pointers(frozenPointers), alignment(access.alignment) {
    auto *type = FixedVectorType::get(builder.getInt32Ty(), laneCount(distance));
    offsets = builder.CreateTrunc(builder.CreateLShr(distance, 2), type, "window.offset");
    Value *bits = builder.CreateShl(ConstantInt::get(type, 1), offsets);
    touched = isConstantFullMask(access.mask)
                  ? bits
                  : builder.CreateSelect(access.mask, bits, Constant::getNullValue(type));
  }

  /// Piece `piece`'s window: its start, and the masks of the elements touched in its two halves.
  struct Piece {
    Value *start, *startOfHigh, *low, *high, *lowCount;
  };
  Piece piece(IRBuilder<> &builder, unsigned index) const {
    Value *start = builder.CreateExtractElement(pointers, uint64_t(index) * kPieceLanes);
    Value *used = builder.CreateOrReduce(pieceOf(builder, touched, index));
    Type *halfBits = builder.getInt16Ty();
    auto *halfMask = FixedVectorType::get(builder.getInt1Ty(), kPieceLanes);
    Value *lowBits = builder.CreateTrunc(used, halfBits);
    Value *highBits = builder.CreateTrunc(builder.CreateLShr(used, kPieceLanes), halfBits);
    return {start,
            builder.CreateConstGEP1_64(builder.getInt8Ty(), start, kPieceLanes * kElementBytes),
            builder.CreateBitCast(lowBits, halfMask), builder.CreateBitCast(highBits, halfMask),
            builder.CreateZExt(builder.CreateUnaryIntrinsic(Intrinsic::ctpop, lowBits),
                               builder.getInt32Ty())};
  }
};

FixedVectorType *pieceType(IRBuilder<> &builder) {
  return FixedVectorType::get(builder.getInt32Ty(), kPieceLanes);
}

/// The gather as the two halves of each window, loaded where lanes read them, and a permute.
Value *windowedGather(IRBuilder<> &builder, const LaneAccess &access, Value *pointers,
                      Value *distance) {
  Windows windows(builder, access, pointers, distance);
  FixedVectorType *type = pieceType(builder);
  Value *none = PoisonValue::get(type);
  SmallVector<Value *, 4> pieces;
  for (unsigned index = 0; index < laneCount(distance) / kPieceLanes; ++index) {
    Windows::Piece piece = windows.piece(builder, index);
    Value *low = builder.CreateMaskedLoad(type, piece.start, windows.alignment, piece.low, none);
    Value *high =
        builder.CreateMaskedLoad(type, piece.startOfHigh, windows.alignment, piece.high, none);
    pieces.push_back(
        builder.CreateIntrinsic(Intrinsic::x86_avx512_vpermi2var_d_512, {},
                                {low, pieceOf(builder, windows.offsets, index), high}));
  }
  IntrinsicInst &call = *access.call;
  Value *loaded = builder.CreateBitCast(concatenateVectors(builder, pieces), call.getType());
  if (isConstantFullMask(access.mask))
    return loaded;
  return builder.CreateSelect(access.mask, loaded, call.getArgOperand(2));
}

/// The scatter as each window's two halves stored under the masks of the elements lanes write:
/// the active lanes' values, packed in lane order (compress), are spread over those elements in
/// the same order (expand), which is theirs since the addresses increase with the lane.
void windowedScatter(IRBuilder<> &builder, const LaneAccess &access, Value *pointers,
                     Value *distance) {
  Windows windows(builder, access, pointers, distance);
  FixedVectorType *type = pieceType(builder);
  Value *zero = Constant::getNullValue(type);
  unsigned lanes = laneCount(distance);
  Value *values = builder.CreateBitCast(access.call->getArgOperand(0),
                                        FixedVectorType::get(builder.getInt32Ty(), lanes));
  SmallVector<Constant *, kPieceLanes> laneNumbers;
  for (unsigned lane = 0; lane < kPieceLanes; ++lane)
    laneNumbers.push_back(builder.getInt32(lane));
  for (unsigned index = 0; index < lanes / kPieceLanes; ++index) {
    Windows::Piece piece = windows.piece(builder, index);
    Value *packed = builder.CreateIntrinsic(
        Intrinsic::x86_avx512_mask_compress, {type},
        {pieceOf(builder, values, index), zero, pieceOf(builder, access.mask, index)});
    Value *low = builder.CreateIntrinsic(Intrinsic::x86_avx512_mask_expand, {type},
                                         {packed, zero, piece.low});
    // The values after those of the low half come first for the high half.
    Value *skip = builder.CreateAdd(ConstantVector::get(laneNumbers),
                                    builder.CreateVectorSplat(kPieceLanes, piece.lowCount));
    Value *rest = builder.CreateIntrinsic(Intrinsic::x86_avx512_permvar_si_512, {}, {packed, skip});
    Value *high = builder.CreateIntrinsic(Intrinsic::x86_avx512_mask_expand, {type},
                                          {rest, zero, piece.high});
    builder.CreateMaskedStore(low, piece.start, windows.alignment, piece.low);
    builder.CreateMaskedStore(high, piece.startOfHigh, windows.alignment, piece.high);
  }
}

} // namespace

bool hasWindowedForm(const LaneAccess &access, const DataLayout &layout) {
  return layout.getTypeStoreSize(access.elementType) == kElementBytes &&
         layout.getTypeAllocSize(access.elementType) == kElementBytes &&
         laneCount(access.pointers) % kPieceLanes == 0 &&
         layout.getPointerTypeSizeInBits(access.pointers->getType()) == 64;
}

void branchOnLanesInWindows(const LaneAccess &access) {
  IntrinsicInst &call = *access.call;
  IRBuilder<> builder(&call);
  // Frozen: a lane that is off may hold any address, even poison, and the test branches on
  // them; the windows start at these same addresses.
  Value *pointers = builder.CreateFreeze(access.pointers);
  Value *distance = distanceFromPieceStart(builder, pointers);
  Value *inWindows = lanesInWindows(builder, distance, /*increasing=*/!access.isGather);
  branchToFastPath(inWindows, call, [&](IRBuilder<> &fast) -> Value * {
    if (access.isGather)
      return windowedGather(fast, access, pointers, distance);
    windowedScatter(fast, access, pointers, distance);
    return nullptr;
  });
}

} // namespace kiln::cpu
