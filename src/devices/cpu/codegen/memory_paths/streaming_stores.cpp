//===- streaming_stores.cpp - Whole-vector stores that bypass the caches ===//
#include "devices/cpu/codegen/memory_paths/streaming_stores.hpp"

#include "compiler/llvm/spir_address_spaces.hpp"
#include "devices/cpu/codegen/ir_utilities/fast_path_branch.hpp"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"

#include <algorithm>

using namespace llvm;

namespace kiln::cpu {
namespace {

/// Stores that fill whole cache lines: 32 bytes (in aligned pairs) or any number of 64-byte
/// lines (the code generator splits wider vectors into 64-byte stores).
bool isStreamableSize(uint64_t bytes) {
  return bytes == 32 || (bytes != 0 && bytes % 64 == 0);
}

/// The alignment the streaming form needs: x86's non-temporal stores of a register are
/// aligned to the register's size.
Align streamingAlignment(uint64_t bytes) {
  return Align(std::min<uint64_t>(bytes, 64));
}

bool isStreamable(const StoreInst &store) {
  if (!store.isSimple() || store.getPointerAddressSpace() != compiler::spir::kGlobalAddressSpace ||
      !store.getValueOperand()->getType()->isVectorTy() ||
      store.hasMetadata(LLVMContext::MD_nontemporal))
    return false;
  const DataLayout &layout = store.getDataLayout();
  TypeSize bytes = layout.getTypeStoreSize(store.getValueOperand()->getType());
  return !bytes.isScalable() && isStreamableSize(bytes.getFixedValue());
}

/// if (address is aligned) non-temporal store; else the store.
void streamWhenAligned(StoreInst &store) {
  const DataLayout &layout = store.getDataLayout();
  Align alignment = streamingAlignment(
      layout.getTypeStoreSize(store.getValueOperand()->getType()).getFixedValue());
  LLVMContext &context = store.getContext();
  MDNode *nonTemporal =
      MDNode::get(context, ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(context), 1)));
  if (store.getAlign() >= alignment) { // known aligned: no test needed
    store.setMetadata(LLVMContext::MD_nontemporal, nonTemporal);
    return;
  }
  IRBuilder<> builder(&store);
  Value *address = builder.CreatePtrToInt(store.getPointerOperand(), builder.getInt64Ty());
  Value *aligned = builder.CreateICmpEQ(builder.CreateAnd(address, alignment.value() - 1),
                                        builder.getInt64(0), "store.aligned");
  branchToFastPath(aligned, store, [&](IRBuilder<> &fast) -> Value * {
    StoreInst *streaming =
        fast.CreateAlignedStore(store.getValueOperand(), store.getPointerOperand(), alignment);
    streaming->copyMetadata(store);
    streaming->setMetadata(LLVMContext::MD_nontemporal, nonTemporal);
    return streaming;
  });
}

} // namespace

bool mayStreamStores(const Function &function) {
  for (const Instruction &instruction : instructions(function)) {
    if (instruction.isAtomic() || isa<FenceInst>(instruction))
      return false;
    if (const auto *call = dyn_cast<CallBase>(&instruction))
      if (!isa<IntrinsicInst>(call) && call->mayWriteToMemory())
        return false;
  }
  return true;
}

unsigned addStreamingStores(Function &function) {
  SmallVector<StoreInst *, 16> stores;
  for (Instruction &instruction : instructions(function))
    if (auto *store = dyn_cast<StoreInst>(&instruction); store && isStreamable(*store))
      stores.push_back(store);
  if (stores.empty())
    return 0;
  for (StoreInst *store : stores)
    streamWhenAligned(*store);
  return static_cast<unsigned>(stores.size());
}

} // namespace kiln::cpu
