//===- address_space_mapping.cpp - SPIR address spaces as NVPTX's --------===//
#include "devices/cuda/codegen/address_space_mapping.hpp"

#include "compiler/llvm/codegen_error.hpp"
#include "compiler/llvm/module_type_rewriter.hpp"
#include "compiler/llvm/spir_address_spaces.hpp"

#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/ReplaceConstant.h"

using namespace llvm;
namespace spir = kiln::compiler::spir;

namespace kiln::cuda {
namespace {

unsigned nvptxAddressSpace(unsigned spirSpace) {
  switch (spirSpace) {
  case spir::kPrivateAddressSpace:
  case spir::kGenericAddressSpace:
    return kNvptxGenericAddressSpace;
  case spir::kGlobalAddressSpace:
  case spir::kConstantAddressSpace:
    return kNvptxGlobalAddressSpace;
  case spir::kLocalAddressSpace:
    return kNvptxSharedAddressSpace;
  default:
    return spirSpace;
  }
}

class NvptxAddressSpaceRemapper final : public compiler::StructuralTypeRemapper {
public:
  explicit NvptxAddressSpaceRemapper(LLVMContext &context)
      : StructuralTypeRemapper(context, ".nvptx") {}

protected:
  Type *remapLeaf(Type *type) override {
    auto *pointer = dyn_cast<PointerType>(type);
    if (!pointer)
      return type;
    return PointerType::get(context(), nvptxAddressSpace(pointer->getAddressSpace()));
  }
};

bool containsAddressSpaceCast(const ConstantExpr *expression) {
  if (expression->getOpcode() == Instruction::AddrSpaceCast)
    return true;
  return any_of(expression->operands(), [](const Use &operand) {
    auto *inner = dyn_cast<ConstantExpr>(operand.get());
    return inner && containsAddressSpaceCast(inner);
  });
}

/// Casts that become casts from a space to itself must go before their types change: constant
/// expressions cannot even be built that way. Instructions are fixed afterwards.
void expandAddressSpaceCastConstants(Module &module) {
  SmallVector<Constant *, 8> casts;
  for (Function &function : module)
    for (Instruction &instruction : instructions(function))
      for (Value *operand : instruction.operands())
        if (auto *expression = dyn_cast<ConstantExpr>(operand))
          if (containsAddressSpaceCast(expression))
            casts.push_back(expression);
  if (!casts.empty())
    convertUsersOfConstantsToInstructions(casts, /*RestrictToFunc=*/nullptr,
                                          /*RemoveDeadConstants=*/true, /*IncludeSelf=*/true);
}

void removeCastsWithinOneSpace(Module &module) {
  for (Function &function : module)
    for (Instruction &instruction : make_early_inc_range(instructions(function)))
      if (auto *cast = dyn_cast<AddrSpaceCastInst>(&instruction))
        if (cast->getSrcAddressSpace() == cast->getDestAddressSpace()) {
          cast->replaceAllUsesWith(cast->getPointerOperand());
          cast->eraseFromParent();
        }
}

/// `constant` with every cast of a null pointer replaced by the null pointer of the cast's type.
Constant *withNullCastsFolded(Constant *constant) {
  if (auto *expression = dyn_cast<ConstantExpr>(constant))
    if (expression->getOpcode() == Instruction::AddrSpaceCast &&
        expression->getOperand(0)->isNullValue())
      return ConstantPointerNull::get(cast<PointerType>(expression->getType()));
  if (!isa<ConstantAggregate>(constant))
    return constant;
  SmallVector<Constant *, 8> elements;
  bool changed = false;
  for (Use &operand : constant->operands()) {
    elements.push_back(withNullCastsFolded(cast<Constant>(operand.get())));
    changed |= elements.back() != operand.get();
  }
  if (!changed)
    return constant;
  if (auto *structure = dyn_cast<StructType>(constant->getType()))
    return ConstantStruct::get(structure, elements);
  if (auto *array = dyn_cast<ArrayType>(constant->getType()))
    return ConstantArray::get(array, elements);
  return ConstantVector::get(elements);
}

/// Clang spells a null pointer of some address spaces as a cast of the generic null pointer.
/// Every NVPTX address space's null pointer is 0, but NVPTX cannot write a cast into a
/// variable's initial value: the casts of null in initializers become plain nulls.
void foldNullCastsInInitializers(Module &module) {
  for (GlobalVariable &variable : module.globals())
    if (variable.hasInitializer())
      variable.setInitializer(withNullCastsFolded(variable.getInitializer()));
}

/// Overloaded intrinsics are named after their pointer types (llvm.memcpy.p0.p4.i64): give
/// them the names of their new types, merging those that now coincide.
void renameIntrinsics(Module &module) {
  SmallVector<Function *, 8> intrinsics;
  for (Function &function : module)
    if (function.isIntrinsic())
      intrinsics.push_back(&function);
  for (Function *intrinsic : intrinsics) {
    std::optional<Function *> renamed = Intrinsic::remangleIntrinsicFunction(intrinsic);
    if (!renamed)
      continue;
    intrinsic->replaceAllUsesWith(*renamed);
    intrinsic->eraseFromParent();
  }
}

/// Clang's SPIR target names OpenCL's memory scopes "workgroup", "subgroup" and "device";
/// NVPTX knows "block" (a sub-group, a warp, is inside its block) and "device".
void renameSynchronizationScopes(Module &module) {
  LLVMContext &context = module.getContext();
  SyncScope::ID block = context.getOrInsertSyncScopeID("block");
  SyncScope::ID device = context.getOrInsertSyncScopeID("device");
  DenseMap<SyncScope::ID, SyncScope::ID> renamed = {
      {context.getOrInsertSyncScopeID("workgroup"), block},
      {context.getOrInsertSyncScopeID("subgroup"), block},
      {context.getOrInsertSyncScopeID("agent"), device},
  };
  auto rename = [&](SyncScope::ID scope) {
    auto found = renamed.find(scope);
    return found == renamed.end() ? scope : found->second;
  };
  for (Function &function : module)
    for (Instruction &instruction : instructions(function)) {
      if (auto *fence = dyn_cast<FenceInst>(&instruction))
        fence->setSyncScopeID(rename(fence->getSyncScopeID()));
      else if (auto *rmw = dyn_cast<AtomicRMWInst>(&instruction))
        rmw->setSyncScopeID(rename(rmw->getSyncScopeID()));
      else if (auto *exchange = dyn_cast<AtomicCmpXchgInst>(&instruction))
        exchange->setSyncScopeID(rename(exchange->getSyncScopeID()));
      else if (auto *load = dyn_cast<LoadInst>(&instruction); load && load->isAtomic())
        load->setSyncScopeID(rename(load->getSyncScopeID()));
      else if (auto *store = dyn_cast<StoreInst>(&instruction); store && store->isAtomic())
        store->setSyncScopeID(rename(store->getSyncScopeID()));
    }
}

} // namespace

Error mapAddressSpacesToNvptx(Module &module) {
  expandAddressSpaceCastConstants(module);
  NvptxAddressSpaceRemapper types(module.getContext());
  ValueToValueMapTy values;
  compiler::rewriteModuleTypes(module, types, nvptxAddressSpace, values);
  removeCastsWithinOneSpace(module);
  foldNullCastsInInitializers(module);
  renameIntrinsics(module);
  renameSynchronizationScopes(module);
  if (compiler::moduleHasTypesToRewrite(module, types))
    return compiler::codegenError("a pointer kept an address space the GPU does not have");
  return Error::success();
}

} // namespace kiln::cuda
