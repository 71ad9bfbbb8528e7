//===- enqueued_blocks.cpp - Block kernels named by number ------------------===//
#include "compiler/llvm/enqueued_blocks.hpp"

#include "compiler/llvm/direct_calls.hpp"
#include "compiler/llvm/kernel_metadata.hpp"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Constants.h"

using namespace llvm;

namespace kiln::compiler {
namespace {

constexpr StringLiteral kEnqueuedBlockAttribute = "kiln-enqueued-block";

/// The functions Clang calls with a block kernel's address.
constexpr StringLiteral kBlockTakingFunctions[] = {
    "__enqueue_kernel_basic",
    "__enqueue_kernel_basic_events",
    "__enqueue_kernel_varargs",
    "__enqueue_kernel_events_varargs",
    "__get_kernel_work_group_size_impl",
    "__get_kernel_preferred_work_group_size_multiple_impl",
    "__get_kernel_max_sub_group_size_for_ndrange_impl",
    "__get_kernel_sub_group_count_for_ndrange_impl",
};

/// Clang stores each block's invoke function's address in the block literal, and calls the
/// function directly wherever a block is called (OpenCL C blocks are never called through a
/// pointer). The address would keep a function no device compiles alone, so it becomes null.
void forgetBlockInvokeAddresses(Module &module) {
  for (Function &function : module) {
    if (isKernel(function) || !function.getName().contains("_block_invoke"))
      continue;
    SmallVector<Use *, 4> stored;
    for (Use &use : function.uses())
      if (auto *call = dyn_cast<CallBase>(use.getUser()); call == nullptr || !call->isCallee(&use))
        stored.push_back(&use);
    for (Use *use : stored) {
      auto *constant = dyn_cast<Constant>(use->getUser());
      Constant *null =
          Constant::getNullValue(constant != nullptr ? constant->getType() : use->get()->getType());
      if (constant != nullptr && !isa<GlobalValue>(constant))
        constant->replaceAllUsesWith(null); // the address space cast of the address
      else
        use->set(Constant::getNullValue(use->get()->getType()));
    }
  }
}

} // namespace

void numberEnqueuedBlocks(Module &module) {
  DenseMap<const Function *, uint64_t> numbers;
  uint64_t index = 0;
  for (const Function &function : module)
    if (isKernel(function))
      numbers[&function] = ++index;
  for (StringLiteral name : kBlockTakingFunctions) {
    Function *taker = module.getFunction(name);
    if (taker == nullptr)
      continue;
    for (CallInst *call : directCallsOf(*taker))
      for (Use &operand : call->args()) {
        auto *kernel = dyn_cast<Function>(operand->stripPointerCasts());
        auto found = kernel != nullptr ? numbers.find(kernel) : numbers.end();
        if (found == numbers.end())
          continue;
        kernel->addFnAttr(kEnqueuedBlockAttribute);
        auto *type = cast<PointerType>(operand->getType());
        operand.set(ConstantExpr::getIntToPtr(
            ConstantInt::get(Type::getInt64Ty(module.getContext()), found->second), type));
      }
  }
  forgetBlockInvokeAddresses(module);
}

bool isEnqueuedBlock(const Function &kernel) {
  return kernel.hasFnAttribute(kEnqueuedBlockAttribute);
}

} // namespace kiln::compiler
