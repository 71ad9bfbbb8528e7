#include "devices/cuda/codegen/asm_register_classes.hpp"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kiln::cuda {
namespace {

/// PTX's register class for an operand of `bits` bits, or nothing where `r` stays.
std::optional<char> classOfWidth(uint64_t bits) {
  switch (bits) {
  case 8:
    return 'c';
  case 16:
    return 'h';
  case 64:
    return 'l';
  default:
    return std::nullopt;
  }
}

/// The type of each operand piece of an inline assembly's constraints (null for clobbers and
/// labels): direct outputs are the call's result (a struct of them when there are several);
/// indirect outputs and inputs are its arguments, in order.
SmallVector<Type *> operandTypes(const CallBase &call, ArrayRef<StringRef> pieces) {
  auto isDirectOutput = [](StringRef piece) {
    return piece.starts_with("=") && !piece.starts_with("=*");
  };
  unsigned directOutputs = count_if(pieces, isDirectOutput);
  auto *results = dyn_cast<StructType>(call.getType());
  SmallVector<Type *> types;
  unsigned output = 0;
  unsigned argument = 0;
  for (StringRef piece : pieces) {
    if (piece.starts_with("~") || piece.starts_with("!")) {
      types.push_back(nullptr);
    } else if (isDirectOutput(piece)) {
      types.push_back(directOutputs > 1 && results ? results->getElementType(output)
                                                   : call.getType());
      ++output;
    } else {
      types.push_back(argument < call.arg_size() ? call.getArgOperand(argument)->getType()
                                                 : nullptr);
      ++argument;
    }
  }
  return types;
}

/// The constraints of one inline assembly call with each `r` of a register operand given the
/// class of the operand's width; empty when nothing changes.
std::string widenedConstraints(const CallBase &call, const InlineAsm &assembly,
                               const DataLayout &layout) {
  SmallVector<StringRef> pieces;
  SplitString(assembly.getConstraintString(), pieces, ",");
  SmallVector<Type *> types = operandTypes(call, pieces);
  bool changed = false;
  SmallVector<std::string> widened;
  for (auto [piece, type] : zip(pieces, types)) {
    std::string text = piece.str();
    StringRef code = piece.ltrim("=&%");
    if (code == "r" && type && type->isSized())
      if (std::optional<char> letter = classOfWidth(layout.getTypeSizeInBits(type))) {
        text.back() = *letter;
        changed = true;
      }
    widened.push_back(std::move(text));
  }
  return changed ? join(widened, ",") : std::string();
}

} // namespace

bool choosePtxRegisterClasses(Module &module) {
  const DataLayout &layout = module.getDataLayout();
  bool changed = false;
  for (Function &function : module)
    for (BasicBlock &block : function)
      for (Instruction &instruction : block) {
        auto *call = dyn_cast<CallBase>(&instruction);
        if (!call || !call->isInlineAsm())
          continue;
        auto *assembly = cast<InlineAsm>(call->getCalledOperand());
        std::string constraints = widenedConstraints(*call, *assembly, layout);
        if (constraints.empty())
          continue;
        call->setCalledOperand(InlineAsm::get(assembly->getFunctionType(), assembly->getAsmString(),
                                              constraints, assembly->hasSideEffects(),
                                              assembly->isAlignStack(), assembly->getDialect(),
                                              assembly->canThrow()));
        changed = true;
      }
  return changed;
}

} // namespace kiln::cuda
