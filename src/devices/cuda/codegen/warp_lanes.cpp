//===- warp_lanes.cpp - Sub-groups as warps and parts of warps -------------===//
#include "devices/cuda/codegen/warp_lanes.hpp"

#include "compiler/llvm/codegen_error.hpp"

#include "llvm/IR/IntrinsicsNVPTX.h"

#include <iterator>

using namespace llvm;

namespace kiln::cuda {

namespace {

using compiler::SubGroupPrimitive;

Value *laneId(IRBuilder<> &builder) {
  return builder.CreateIntrinsic(builder.getInt32Ty(), Intrinsic::nvvm_read_ptx_sreg_laneid, {});
}

/// The lanes of the warp that run this call.
Value *activeLanes(IRBuilder<> &builder) {
  return builder.CreateIntrinsic(builder.getInt32Ty(), Intrinsic::nvvm_activemask, {});
}

/// The warp lane of this sub-group's lane 0.
Value *partStart(IRBuilder<> &builder, unsigned width) {
  return builder.CreateAnd(laneId(builder), builder.getInt32(~(width - 1)));
}

/// The thread's linear index in its block, which orders the warps.
Value *linearThreadIndex(IRBuilder<> &builder) {
  auto special = [&](Intrinsic::ID id) {
    return builder.CreateIntrinsic(builder.getInt32Ty(), id, {});
  };
  Value *x = special(Intrinsic::nvvm_read_ptx_sreg_tid_x);
  Value *y = special(Intrinsic::nvvm_read_ptx_sreg_tid_y);
  Value *z = special(Intrinsic::nvvm_read_ptx_sreg_tid_z);
  Value *width = special(Intrinsic::nvvm_read_ptx_sreg_ntid_x);
  Value *height = special(Intrinsic::nvvm_read_ptx_sreg_ntid_y);
  return builder.CreateAdd(
      x, builder.CreateMul(width, builder.CreateAdd(y, builder.CreateMul(height, z))));
}

/// The lanes of the warp that exist: all 32 but in a block's last warp when the block's size is
/// not a multiple of 32. Every one of them reaches a sub-group barrier (OpenCL requires it),
/// so naming them all makes the warp converge there even after divergent code, where the lanes
/// that happen to run the call together (activemask) may be fewer.
Value *existingLanes(IRBuilder<> &builder) {
  auto special = [&](Intrinsic::ID id) {
    return builder.CreateIntrinsic(builder.getInt32Ty(), id, {});
  };
  Value *threads =
      builder.CreateMul(special(Intrinsic::nvvm_read_ptx_sreg_ntid_x),
                        builder.CreateMul(special(Intrinsic::nvvm_read_ptx_sreg_ntid_y),
                                          special(Intrinsic::nvvm_read_ptx_sreg_ntid_z)));
  Value *warpStart = builder.CreateAnd(linearThreadIndex(builder), builder.getInt32(~31u));
  Value *count = builder.CreateSub(threads, warpStart);
  Value *partial = builder.CreateSub(
      builder.CreateShl(builder.getInt32(1), builder.CreateAnd(count, builder.getInt32(31))),
      builder.getInt32(1));
  return builder.CreateSelect(builder.CreateICmpUGE(count, builder.getInt32(32)),
                              builder.getInt32(~0u), partial);
}

Value *shuffle32(IRBuilder<> &builder, Value *members, Value *value, Value *sourceLane) {
  return builder.CreateIntrinsic(builder.getInt32Ty(), Intrinsic::nvvm_shfl_sync_idx_i32,
                                 {members, value, sourceLane, builder.getInt32(0x1f)});
}

/// The warp's lanes that take part in a shuffle: those that run it, or those its sub-group's
/// ballot names (__kiln_sub_group_shuffle_among_*, whose lanes may reach it on different paths:
/// shfl.sync then waits for each of them).
Value *shuffleMembers(IRBuilder<> &builder, CallBase &call, unsigned width) {
  if (call.arg_size() < 3)
    return activeLanes(builder);
  Value *lanes = builder.CreateTrunc(call.getArgOperand(2), builder.getInt32Ty());
  return builder.CreateShl(lanes, partStart(builder, width));
}

Value *shuffled(IRBuilder<> &builder, CallBase &call, unsigned width) {
  Value *value = call.getArgOperand(0);
  Value *lane = builder.CreateAnd(call.getArgOperand(1), builder.getInt32(width - 1));
  Value *source = builder.CreateOr(partStart(builder, width), lane);
  Value *members = shuffleMembers(builder, call, width);
  if (value->getType()->isIntegerTy(32))
    return shuffle32(builder, members, value, source);
  // 64 bits as two halves.
  Value *low =
      shuffle32(builder, members, builder.CreateTrunc(value, builder.getInt32Ty()), source);
  Value *high =
      shuffle32(builder, members,
                builder.CreateTrunc(builder.CreateLShr(value, 32), builder.getInt32Ty()), source);
  return builder.CreateOr(builder.CreateZExt(low, builder.getInt64Ty()),
                          builder.CreateShl(builder.CreateZExt(high, builder.getInt64Ty()), 32));
}

Value *ballot(IRBuilder<> &builder, CallBase &call, unsigned width) {
  Value *predicate = builder.CreateIsNotNull(call.getArgOperand(0));
  Value *warp = builder.CreateIntrinsic(builder.getInt32Ty(), Intrinsic::nvvm_vote_ballot_sync,
                                        {activeLanes(builder), predicate});
  Value *part = builder.CreateLShr(warp, partStart(builder, width));
  if (width < kWarpSize)
    part = builder.CreateAnd(part, builder.getInt32((1u << width) - 1));
  return builder.CreateZExt(part, call.getType());
}

/// redux.sync's operation for each compiler::NativeReduction, in its order.
constexpr Intrinsic::ID kReduxIntrinsics[] = {
    Intrinsic::nvvm_redux_sync_add,  Intrinsic::nvvm_redux_sync_min,
    Intrinsic::nvvm_redux_sync_max,  Intrinsic::nvvm_redux_sync_umin,
    Intrinsic::nvvm_redux_sync_umax, Intrinsic::nvvm_redux_sync_and,
    Intrinsic::nvvm_redux_sync_or,   Intrinsic::nvvm_redux_sync_xor,
};
static_assert(std::size(kReduxIntrinsics) == unsigned(compiler::NativeReduction::Xor) + 1);

} // namespace

Expected<Value *> warpReduction(IRBuilder<> &builder, CallBase &call) {
  auto *operation = dyn_cast<ConstantInt>(call.getArgOperand(1));
  if (operation == nullptr || operation->getZExtValue() > unsigned(compiler::NativeReduction::Xor))
    return compiler::codegenError("a sub-group reduction with an unknown operation");
  // The cluster's lanes: `cluster` of them (a power of two, at most a warp) from the first lane
  // of the caller's cluster, of which those that run the call.
  Value *cluster = call.getArgOperand(2);
  Value *first = builder.CreateAnd(laneId(builder), builder.CreateNeg(cluster));
  Value *whole = builder.CreateICmpUGE(cluster, builder.getInt32(kWarpSize));
  Value *lanes =
      builder.CreateSub(builder.CreateShl(builder.getInt32(1), cluster), builder.getInt32(1));
  lanes = builder.CreateSelect(whole, builder.getInt32(~0u), builder.CreateShl(lanes, first));
  Value *members = builder.CreateAnd(activeLanes(builder), lanes);
  return builder.CreateIntrinsic(builder.getInt32Ty(), kReduxIntrinsics[operation->getZExtValue()],
                                 {call.getArgOperand(0), members});
}

Value *warpLaneValue(IRBuilder<> &builder, SubGroupPrimitive primitive, CallBase &call,
                     unsigned width) {
  Type *type = call.getType();
  switch (primitive) {
  case SubGroupPrimitive::Width:
    return ConstantInt::get(type, width);
  case SubGroupPrimitive::LocalId:
    return builder.CreateAnd(laneId(builder), builder.getInt32(width - 1));
  case SubGroupPrimitive::Id:
    return builder.CreateUDiv(linearThreadIndex(builder), builder.getInt32(width));
  case SubGroupPrimitive::Shuffle:
    return shuffled(builder, call, width);
  case SubGroupPrimitive::Ballot:
    return ballot(builder, call, width);
  case SubGroupPrimitive::Barrier:
    builder.CreateIntrinsic(builder.getVoidTy(), Intrinsic::nvvm_bar_warp_sync,
                            {existingLanes(builder)});
    return nullptr;
  case SubGroupPrimitive::None:
    break;
  }
  return nullptr;
}

} // namespace kiln::cuda
