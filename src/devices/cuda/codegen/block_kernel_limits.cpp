//===- block_kernel_limits.cpp - The block kernels' limits in device memory -===//
#include "devices/cuda/codegen/block_kernel_limits.hpp"

#include "compiler/device_enqueue_format.hpp"
#include "devices/cuda/codegen/address_space_mapping.hpp"
#include "devices/cuda/launch_abi.hpp"

#include "llvm/IR/IRBuilder.h"

using namespace llvm;

namespace kiln::cuda {

void addBlockKernelLimitsTable(Module &module, const compiler::ProgramInfo &info) {
  Function *primitive = module.getFunction(compiler::kLaunchBlockKernelLimitsPrimitive);
  if (primitive == nullptr || primitive->use_empty() || !primitive->isDeclaration() ||
      info.kernels.empty())
    return;
  LLVMContext &context = module.getContext();
  constexpr uint64_t kWords = sizeof(compiler::BlockKernelLimits) / sizeof(uint64_t);
  static_assert(sizeof(compiler::BlockKernelLimits) == kWords * sizeof(uint64_t));
  auto *entryType = ArrayType::get(Type::getInt64Ty(context), kWords);
  auto *tableType = ArrayType::get(entryType, info.kernels.size());
  // Visible, so that the driver finds it (cuModuleGetGlobal); zeros until it has.
  auto *table =
      new GlobalVariable(module, tableType, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                         Constant::getNullValue(tableType), kBlockKernelLimitsSymbol, nullptr,
                         GlobalValue::NotThreadLocal, kNvptxGlobalAddressSpace);
  table->setAlignment(Align(8));

  primitive->setLinkage(GlobalValue::InternalLinkage);
  primitive->addFnAttr(Attribute::AlwaysInline);
  IRBuilder<> builder(BasicBlock::Create(context, "limits", primitive));
  // Kernel numbers start at 1; 0 wraps to beyond the table.
  Value *index = builder.CreateSub(primitive->getArg(0), builder.getInt32(1));
  Value *known = builder.CreateICmpULT(index, builder.getInt32(info.kernels.size()));
  Value *entry = builder.CreateInBoundsGEP(
      tableType, table, {builder.getInt32(0), builder.CreateZExt(index, builder.getInt64Ty())});
  auto *result = cast<PointerType>(primitive->getReturnType());
  builder.CreateRet(builder.CreateSelect(known, builder.CreateAddrSpaceCast(entry, result),
                                         ConstantPointerNull::get(result)));
}

} // namespace kiln::cuda
