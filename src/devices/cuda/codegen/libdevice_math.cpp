//===- libdevice_math.cpp - Math functions from CUDA's libdevice ---------===//
#include "devices/cuda/codegen/libdevice_math.hpp"

#include "compiler/llvm/codegen_error.hpp"

#include "llvm/ADT/StringMap.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>

extern "C" const uint8_t kiln_libdevice_bitcode[];
extern "C" const uint64_t kiln_libdevice_size;

using namespace llvm;

namespace kiln::cuda {
namespace {

/// libdevice's name for the double-precision function (the float one adds "f").
std::optional<StringRef> libdeviceNameOf(Intrinsic::ID intrinsic) {
  switch (intrinsic) {
  case Intrinsic::sin:
    return "sin";
  case Intrinsic::cos:
    return "cos";
  case Intrinsic::tan:
    return "tan";
  case Intrinsic::asin:
    return "asin";
  case Intrinsic::acos:
    return "acos";
  case Intrinsic::atan:
    return "atan";
  case Intrinsic::atan2:
    return "atan2";
  case Intrinsic::sinh:
    return "sinh";
  case Intrinsic::cosh:
    return "cosh";
  case Intrinsic::tanh:
    return "tanh";
  case Intrinsic::exp:
    return "exp";
  case Intrinsic::exp2:
    return "exp2";
  case Intrinsic::exp10:
    return "exp10";
  case Intrinsic::log:
    return "log";
  case Intrinsic::log2:
    return "log2";
  case Intrinsic::log10:
    return "log10";
  case Intrinsic::pow:
    return "pow";
  case Intrinsic::ldexp:
    return "ldexp";
  default:
    return std::nullopt;
  }
}

std::string libdeviceFunction(StringRef base, Type *element) {
  return ("__nv_" + base + (element->isFloatTy() ? "f" : "")).str();
}

/// Calls `name` for each element of the operands (a scalar call for scalars).
Value *callElementwise(IRBuilder<> &builder, Module &module, StringRef name, Type *resultType,
                       ArrayRef<Value *> operands) {
  auto scalarType = [](Type *type) { return type->getScalarType(); };
  SmallVector<Type *, 3> parameterTypes;
  for (Value *operand : operands)
    parameterTypes.push_back(scalarType(operand->getType()));
  FunctionCallee callee = module.getOrInsertFunction(
      name, FunctionType::get(scalarType(resultType), parameterTypes, false));
  auto *vector = dyn_cast<FixedVectorType>(resultType);
  if (vector == nullptr)
    return builder.CreateCall(callee, operands);
  Value *result = PoisonValue::get(resultType);
  for (unsigned lane = 0; lane < vector->getNumElements(); ++lane) {
    SmallVector<Value *, 3> scalars;
    for (Value *operand : operands)
      scalars.push_back(
          operand->getType()->isVectorTy() ? builder.CreateExtractElement(operand, lane) : operand);
    result = builder.CreateInsertElement(result, builder.CreateCall(callee, scalars), lane);
  }
  return result;
}

void replaceMathIntrinsics(Module &module) {
  for (Function &function : module)
    for (Instruction &instruction : make_early_inc_range(instructions(function))) {
      auto *call = dyn_cast<IntrinsicInst>(&instruction);
      if (call == nullptr)
        continue;
      std::optional<StringRef> base = libdeviceNameOf(call->getIntrinsicID());
      Type *element = call->getType()->getScalarType();
      if (!base || !(element->isFloatTy() || element->isDoubleTy()))
        continue;
      IRBuilder<> builder(call);
      SmallVector<Value *, 3> operands(call->args());
      Value *value = callElementwise(builder, module, libdeviceFunction(*base, element),
                                     call->getType(), operands);
      call->replaceAllUsesWith(value);
      call->eraseFromParent();
    }
}

/// lgamma_r(x, &sign): libdevice has lgamma only. The sign of Γ(x) is negative exactly for
/// x < 0 between an odd negative integer and the next even one (floor(x) odd).
void replaceLgammaWithSign(Module &module, StringRef name, StringRef libdeviceName) {
  Function *function = module.getFunction(name);
  if (function == nullptr)
    return;
  for (User *user : make_early_inc_range(function->users())) {
    auto *call = dyn_cast<CallInst>(user);
    if (call == nullptr || call->arg_size() != 2)
      continue;
    IRBuilder<> builder(call);
    Value *x = call->getArgOperand(0);
    Value *result = callElementwise(builder, module, libdeviceName, x->getType(), {x});
    Value *floor = builder.CreateUnaryIntrinsic(Intrinsic::floor, x);
    Value *halfFloor = builder.CreateFMul(floor, ConstantFP::get(x->getType(), 0.5));
    Value *odd =
        builder.CreateFCmpUNE(builder.CreateUnaryIntrinsic(Intrinsic::floor, halfFloor), halfFloor);
    Value *negative =
        builder.CreateAnd(builder.CreateFCmpOLT(x, ConstantFP::get(x->getType(), 0.0)),
                          builder.CreateAnd(odd, builder.CreateFCmpUNE(floor, x)));
    builder.CreateStore(builder.CreateSelect(negative, builder.getInt32(-1), builder.getInt32(1)),
                        call->getArgOperand(1));
    call->replaceAllUsesWith(result);
    call->eraseFromParent();
  }
}

/// The C library functions the builtin library calls by name become libdevice's.
void renameCLibraryCalls(Module &module) {
  replaceLgammaWithSign(module, "lgammaf_r", "__nv_lgammaf");
  replaceLgammaWithSign(module, "lgamma_r", "__nv_lgamma");
  static constexpr StringRef kNames[] = {
      "acoshf", "acosh", "asinhf",     "asinh",     "atanhf",  "atanh",  "cbrtf",  "cbrt",
      "erff",   "erf",   "erfcf",      "erfc",      "expm1f",  "expm1",  "hypotf", "hypot",
      "log1pf", "log1p", "remainderf", "remainder", "tgammaf", "tgamma", "fmodf",  "fmod"};
  for (StringRef name : kNames) {
    Function *function = module.getFunction(name);
    if (function == nullptr || !function->isDeclaration())
      continue;
    FunctionCallee replacement =
        module.getOrInsertFunction(("__nv_" + name).str(), function->getFunctionType());
    function->replaceAllUsesWith(replacement.getCallee());
    function->eraseFromParent();
  }
}

/// `frem` is fmod, which PTX has no instruction for. libdevice has no half fmod: a half one
/// runs in float, which is exact (fmod's result is representable in its operands' type, and
/// every half is a float).
void replaceRemainders(Module &module) {
  for (Function &function : module)
    for (Instruction &instruction : make_early_inc_range(instructions(function))) {
      if (instruction.getOpcode() != Instruction::FRem)
        continue;
      Type *type = instruction.getType();
      IRBuilder<> builder(&instruction);
      Value *x = instruction.getOperand(0);
      Value *y = instruction.getOperand(1);
      Type *computeType = type;
      if (type->getScalarType()->isHalfTy()) {
        computeType = type->getWithNewType(builder.getFloatTy());
        x = builder.CreateFPExt(x, computeType);
        y = builder.CreateFPExt(y, computeType);
      }
      Value *value =
          callElementwise(builder, module, libdeviceFunction("fmod", computeType->getScalarType()),
                          computeType, {x, y});
      if (computeType != type)
        value = builder.CreateFPTrunc(value, type);
      instruction.replaceAllUsesWith(value);
      instruction.eraseFromParent();
    }
}

bool callsLibdevice(const Module &module) {
  for (const Function &function : module)
    if (function.isDeclaration() && function.getName().starts_with("__nv_"))
      return true;
  return false;
}

} // namespace

Error linkLibdeviceMath(Module &module) {
  replaceMathIntrinsics(module);
  replaceRemainders(module);
  renameCLibraryCalls(module);
  if (!callsLibdevice(module))
    return Error::success();

  if (kiln_libdevice_size == 0)
    return compiler::codegenError(
        "the program calls math functions, but this Kiln was built without "
        "CUDA's libdevice");
  StringRef bytes(reinterpret_cast<const char *>(kiln_libdevice_bitcode), kiln_libdevice_size);
  Expected<std::unique_ptr<Module>> libdevice =
      parseBitcodeFile(MemoryBufferRef(bytes, "libdevice.10.bc"), module.getContext());
  if (!libdevice)
    return libdevice.takeError();
  (*libdevice)->setTargetTriple(module.getTargetTriple());
  (*libdevice)->setDataLayout(module.getDataLayout());
  if (Linker::linkModules(module, std::move(*libdevice), Linker::LinkOnlyNeeded))
    return compiler::codegenError("linking libdevice failed");
  for (Function &function : module)
    if (!function.isDeclaration() && function.getName().starts_with("__nv_"))
      function.setLinkage(GlobalValue::InternalLinkage);
  // libdevice asks __nvvm_reflect whether to flush denormals: OpenCL keeps them.
  module.addModuleFlag(Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  return Error::success();
}

} // namespace kiln::cuda
