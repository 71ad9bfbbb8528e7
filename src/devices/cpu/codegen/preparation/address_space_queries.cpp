//===- address_space_queries.cpp - Where a generic pointer points --------===//
#include "devices/cpu/codegen/preparation/address_space_queries.hpp"

#include "compiler/llvm/spir_address_spaces.hpp"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace kiln::cpu {
namespace {

using compiler::spir::kGenericAddressSpace;
using compiler::spir::kLocalAddressSpace;
using compiler::spir::kPrivateAddressSpace;

constexpr const char *kIsLocal = "__kiln_is_local_pointer";
constexpr const char *kIsPrivate = "__kiln_is_private_pointer";

/// The calls of primitive `name` in `function`.
SmallVector<CallInst *, 8> queriesIn(Function &function, const char *name) {
  SmallVector<CallInst *, 8> calls;
  if (Function *primitive = function.getParent()->getFunction(name))
    for (User *user : primitive->users())
      if (auto *call = dyn_cast<CallInst>(user); call && call->getFunction() == &function)
        calls.push_back(call);
  return calls;
}

/// (address - base) < size, unsigned: whether address lies in [base, base + size).
Value *isInRegion(IRBuilder<> &builder, Value *address, Value *base, Value *size) {
  Value *offset = builder.CreateSub(address, builder.CreatePtrToInt(base, builder.getInt64Ty()));
  return builder.CreateICmpULT(offset, size);
}

} // namespace

std::optional<unsigned> namedAddressSpaceOf(Value *pointer) {
  for (;;) {
    unsigned space = pointer->getType()->getPointerAddressSpace();
    if (space != kGenericAddressSpace)
      return space;
    if (auto *offset = dyn_cast<GEPOperator>(pointer))
      pointer = offset->getPointerOperand();
    else if (auto *cast = dyn_cast<AddrSpaceCastOperator>(pointer))
      pointer = cast->getPointerOperand();
    else if (auto *cast = dyn_cast<BitCastOperator>(pointer))
      pointer = cast->getOperand(0);
    else
      return std::nullopt;
  }
}

void foldAddressSpaceQueries(Function &function) {
  for (auto [name, space] :
       {std::pair{kIsLocal, kLocalAddressSpace}, std::pair{kIsPrivate, kPrivateAddressSpace}}) {
    for (CallInst *call : queriesIn(function, name)) {
      std::optional<unsigned> known = namedAddressSpaceOf(call->getArgOperand(0));
      if (!known)
        continue;
      call->replaceAllUsesWith(ConstantInt::get(call->getType(), *known == space));
      call->eraseFromParent();
    }
  }
}

void lowerAddressSpaceQueries(Function &function, function_ref<AddressSpaceRegions()> readRegions) {
  SmallVector<CallInst *, 8> local = queriesIn(function, kIsLocal);
  SmallVector<CallInst *, 8> priv = queriesIn(function, kIsPrivate);
  if (local.empty() && priv.empty())
    return;
  AddressSpaceRegions regions = readRegions();
  auto lower = [](CallInst *call, auto &&check) {
    IRBuilder<> builder(call);
    Value *address = builder.CreatePtrToInt(call->getArgOperand(0), builder.getInt64Ty());
    Value *answer = builder.CreateZExtOrTrunc(check(builder, address), call->getType());
    call->replaceAllUsesWith(answer);
    call->eraseFromParent();
  };
  for (CallInst *call : local)
    lower(call, [&](IRBuilder<> &builder, Value *address) {
      return isInRegion(builder, address, regions.localMemory, regions.localMemorySize);
    });
  for (CallInst *call : priv)
    lower(call, [&](IRBuilder<> &builder, Value *address) {
      return builder.CreateOr(
          isInRegion(builder, address, regions.privateMemory, regions.privateMemorySize),
          isInRegion(builder, address, regions.stackBase, regions.stackSize));
    });
}

} // namespace kiln::cpu
