//===- argument_block_reads.cpp - A kernel's arguments read from the block -===//
#include "compiler/llvm/argument_block_reads.hpp"

#include "compiler/llvm/codegen_error.hpp"

using namespace llvm;

namespace kiln::compiler {

Expected<SmallVector<Value *, 8>> readKernelArguments(IRBuilder<> &builder, Function &kernel,
                                                      const KernelInfo &info, Value *block,
                                                      ArgumentSlotRead read) {
  if (kernel.arg_size() != info.args.size())
    return codegenError("kernel '" + info.name + "' has " + Twine(kernel.arg_size()) +
                        " parameters but its metadata describes " + Twine(info.args.size()));
  SmallVector<Value *, 8> values;
  for (Argument &parameter : kernel.args()) {
    const KernelArgInfo &arg = info.args[parameter.getArgNo()];
    Value *slot =
        builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), block, arg.blockOffset, arg.name);
    Expected<Value *> value = read(arg, parameter, slot);
    if (!value)
      return value.takeError();
    values.push_back(*value);
  }
  return values;
}

} // namespace kiln::compiler
