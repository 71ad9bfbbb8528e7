#include "compiler/llvm/translated_module_adaptation.hpp"

#include "compiler/llvm/bitcode_io.hpp"
#include "compiler/llvm/builtin_library.hpp"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

#include <map>

using namespace llvm;

namespace kiln::compiler {
namespace {

/// OpenCL's constant address space in SPIR.
constexpr unsigned kConstantAddressSpace = 2;

/// Clang's declaration of the sampler constructor the code generators lower.
constexpr StringRef kSamplerInitializer = "__translate_sampler_initializer";

/// The builtin library's pieces, each read (lazily) at most once.
class LibraryDeclarations {
public:
  explicit LibraryDeclarations(LLVMContext &context) : context_(context) {}

  /// The type the builtin library gives function `name`; null when it does not define it.
  FunctionType *typeOf(StringRef name, std::string &log) {
    if (name == kSamplerInitializer)
      return FunctionType::get(TargetExtType::get(context_, "spirv.Sampler"),
                               {Type::getInt32Ty(context_)}, false);
    const BuiltinLibrary &library = BuiltinLibrary::get();
    std::optional<size_t> index = library.pieceDefining(name);
    if (!index)
      return nullptr;
    Module *piece = pieceModule(*index, log);
    Function *function = piece != nullptr ? piece->getFunction(name) : nullptr;
    return function != nullptr ? function->getFunctionType() : nullptr;
  }

  /// The data layout every piece has (Clang's for SPIR64).
  std::optional<DataLayout> dataLayout(std::string &log) {
    Module *piece = pieceModule(0, log);
    return piece != nullptr ? std::optional(piece->getDataLayout()) : std::nullopt;
  }

private:
  Module *pieceModule(size_t index, std::string &log) {
    auto found = pieces_.find(index);
    if (found != pieces_.end())
      return found->second.get();
    auto piece = getLazyBitcodeModule(BuiltinLibrary::get().piece(index), context_,
                                      /*ShouldLazyLoadMetadata=*/true);
    if (!piece) {
      log += "internal error: the builtin library cannot be read: " + toString(piece.takeError()) +
             "\n";
      failed_ = true;
      return nullptr;
    }
    return (pieces_[index] = std::move(*piece)).get();
  }

  LLVMContext &context_;
  std::map<size_t, std::unique_ptr<Module>> pieces_;
  bool failed_ = false;

public:
  /// Whether reading some piece failed.
  bool failed() const { return failed_; }
};

/// Whether `actual` is `expected` with pointers where `expected` has OpenCL opaque types.
bool differsOnlyInOpaqueTypes(FunctionType *actual, FunctionType *expected) {
  if (actual == expected || actual->getNumParams() != expected->getNumParams() ||
      actual->isVarArg() != expected->isVarArg())
    return false;
  auto compatible = [](Type *have, Type *want) {
    return have == want || (isa<TargetExtType>(want) && have->isPointerTy());
  };
  if (!compatible(actual->getReturnType(), expected->getReturnType()))
    return false;
  for (unsigned index = 0; index < actual->getNumParams(); ++index)
    if (!compatible(actual->getParamType(index), expected->getParamType(index)))
      return false;
  return true;
}

/// `value` reinterpreted as type `to`, through a stack slot in the function's entry block:
/// LLVM has no cast between pointers and target extension types, but both are stored as a
/// pointer, and the code generator, which lowers those types to pointers, folds the slot away.
Value *reinterpret(IRBuilder<> &builder, Value *value, Type *to) {
  if (value->getType() == to)
    return value;
  Function *function = builder.GetInsertBlock()->getParent();
  IRBuilder<> entry(&*function->getEntryBlock().getFirstInsertionPt());
  AllocaInst *slot = entry.CreateAlloca(value->getType());
  builder.CreateStore(value, slot);
  return builder.CreateLoad(to, slot);
}

/// Calls of `declaration` (typed with pointers) become calls of `replacement` (typed as the
/// builtin library types it), their arguments and result reinterpreted.
void redirectCalls(Function &declaration, Function &replacement) {
  FunctionType *type = replacement.getFunctionType();
  SmallVector<CallInst *, 8> calls;
  for (User *user : declaration.users())
    if (auto *call = dyn_cast<CallInst>(user);
        call != nullptr && call->getCalledOperand() == &declaration)
      calls.push_back(call);
  for (CallInst *call : calls) {
    IRBuilder<> builder(call);
    SmallVector<Value *, 8> arguments;
    for (unsigned index = 0; index < call->arg_size(); ++index)
      arguments.push_back(
          index < type->getNumParams()
              ? reinterpret(builder, call->getArgOperand(index), type->getParamType(index))
              : call->getArgOperand(index));
    CallInst *replacementCall = builder.CreateCall(type, &replacement, arguments);
    replacementCall->setCallingConv(call->getCallingConv());
    replacementCall->setAttributes(call->getAttributes());
    if (!call->getType()->isVoidTy()) {
      builder.SetInsertPoint(call->getNextNode());
      call->replaceAllUsesWith(reinterpret(builder, replacementCall, call->getType()));
    }
    call->eraseFromParent();
  }
}

/// Declarations of builtin library functions whose opaque-typed parameters or result the
/// translator typed as pointers take the library's types.
bool adoptLibraryTypes(Module &module, LibraryDeclarations &library, std::string &log) {
  SmallVector<Function *, 16> declarations;
  for (Function &function : module)
    if (function.isDeclaration() && !function.isIntrinsic())
      declarations.push_back(&function);
  for (Function *declaration : declarations) {
    FunctionType *expected = library.typeOf(declaration->getName(), log);
    if (expected == nullptr || !differsOnlyInOpaqueTypes(declaration->getFunctionType(), expected))
      continue;
    std::string name = declaration->getName().str();
    declaration->setName(name + ".translated");
    Function *replacement = Function::Create(expected, GlobalValue::ExternalLinkage, name, module);
    replacement->setCallingConv(declaration->getCallingConv());
    redirectCalls(*declaration, *replacement);
    if (declaration->use_empty())
      declaration->eraseFromParent();
  }
  return !library.failed();
}

/// Removes the bitcasts of values to their own type that the typed-pointer upgrade leaves.
void removeIdentityBitcasts(Module &module) {
  for (Function &function : module)
    for (Instruction &instruction : make_early_inc_range(instructions(function)))
      if (auto *cast = dyn_cast<BitCastInst>(&instruction);
          cast != nullptr && cast->getSrcTy() == cast->getDestTy()) {
        cast->replaceAllUsesWith(cast->getOperand(0));
        cast->eraseFromParent();
      }
}

/// `ashr (shl X, W - N), W - N - S)` as `shl (sext (trunc X to iN)), S`: the sign extension
/// Clang's SPIR-V back end spells with two shifts (i32 indices widened to i64 and scaled by the
/// element size), which the work-item vectorizer must see as one to find consecutive accesses.
void rewriteShiftedSignExtensions(Module &module) {
  for (Function &function : module)
    for (Instruction &instruction : make_early_inc_range(instructions(function))) {
      auto *right = dyn_cast<BinaryOperator>(&instruction);
      if (right == nullptr || right->getOpcode() != Instruction::AShr)
        continue;
      auto *left = dyn_cast<BinaryOperator>(right->getOperand(0));
      auto *leftAmount = dyn_cast_or_null<ConstantInt>(left ? left->getOperand(1) : nullptr);
      auto *rightAmount = dyn_cast<ConstantInt>(right->getOperand(1));
      if (left == nullptr || left->getOpcode() != Instruction::Shl || !leftAmount || !rightAmount)
        continue;
      unsigned width = right->getType()->getScalarSizeInBits();
      uint64_t up = leftAmount->getZExtValue(), down = rightAmount->getZExtValue();
      if (up >= width || down > up || right->getType()->isVectorTy())
        continue;
      IRBuilder<> builder(right);
      Type *narrow = builder.getIntNTy(width - static_cast<unsigned>(up));
      Value *extended =
          builder.CreateSExt(builder.CreateTrunc(left->getOperand(0), narrow), right->getType());
      right->replaceAllUsesWith(builder.CreateShl(extended, up - down));
      right->eraseFromParent();
      if (left->use_empty())
        left->eraseFromParent();
    }
}

/// Variables of the constant address space cannot change: say so, as Clang does (printf finds
/// its format strings by it).
void markConstantsConstant(Module &module) {
  for (GlobalVariable &variable : module.globals())
    if (variable.getAddressSpace() == kConstantAddressSpace && variable.hasInitializer())
      variable.setConstant(true);
}

} // namespace

bool adaptTranslatedModule(Module &module, std::string &log) {
  LibraryDeclarations library(module.getContext());
  std::optional<DataLayout> layout = library.dataLayout(log);
  if (!layout)
    return false;
  // Clang's triple and data layout (which the translator spells differently).
  module.setTargetTriple(Triple(kSpirTriple));
  module.setDataLayout(*layout);
  removeIdentityBitcasts(module);
  rewriteShiftedSignExtensions(module);
  markConstantsConstant(module);
  return adoptLibraryTypes(module, library, log);
}

} // namespace kiln::compiler
