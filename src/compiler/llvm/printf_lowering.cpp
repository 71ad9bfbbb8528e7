//===- printf_lowering.cpp - printf calls to printf buffer records --------===//
#include "compiler/llvm/printf_lowering.hpp"

#include "compiler/llvm/spir_address_spaces.hpp"
#include "compiler/printf_format.hpp"

#include "llvm/ADT/SmallSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <optional>

using namespace llvm;

namespace kiln::compiler {
namespace {

/// The call sites, in call site number order: !{!"format", !{i32 kind, i32 bytes, i32 count, ...}}.
constexpr StringLiteral kCallSitesMetadata = "kiln.printf";

constexpr StringLiteral kPrintfName = "printf";

/// Clang moves the body of each kernel into a callable copy named with this prefix.
constexpr StringLiteral kKernelCopyPrefix = "__clang_ocl_kern_imp_";

constexpr unsigned kMaxVectorSize = 16;

/// The function that holds `call`, as the programmer knows it.
std::string callerName(const CallBase &call) {
  StringRef name = call.getFunction()->getName();
  name.consume_front(kKernelCopyPrefix);
  return demangle(name);
}

/// How a record holds a value of `type`; nullopt for types printf cannot print.
std::optional<PrintfArgument> describeArgument(Type *type, const DataLayout &layout) {
  PrintfArgument argument;
  if (auto *vector = dyn_cast<FixedVectorType>(type)) {
    if (vector->getNumElements() > kMaxVectorSize)
      return std::nullopt;
    argument.elementCount = uint8_t(vector->getNumElements());
    type = vector->getElementType();
  }
  if (type->isIntegerTy(8) || type->isIntegerTy(16) || type->isIntegerTy(32) ||
      type->isIntegerTy(64)) {
    argument.kind = PrintfArgument::Kind::Integer;
    argument.elementBytes = uint8_t(type->getIntegerBitWidth() / 8);
  } else if (type->isHalfTy() || type->isFloatTy() || type->isDoubleTy()) {
    argument.kind = PrintfArgument::Kind::Float;
    argument.elementBytes = uint8_t(type->getPrimitiveSizeInBits() / 8);
  } else if (type->isPointerTy() && argument.elementCount == 1) {
    argument.kind = PrintfArgument::Kind::Pointer;
    argument.elementBytes = uint8_t(layout.getPointerSize(type->getPointerAddressSpace()));
  } else {
    return std::nullopt;
  }
  return argument;
}

/// The arguments (numbered from 0 after the format) that %s conversions of `format` consume.
SmallSet<unsigned, 4> stringArguments(StringRef format) {
  SmallSet<unsigned, 4> strings;
  unsigned next = 0;
  for (const PrintfDirective &directive : parsePrintfFormat(format)) {
    if (!directive.isConversion)
      continue;
    const PrintfConversion &conversion = directive.conversion;
    unsigned count = conversion.argumentCount();
    if (conversion.conversion == 's')
      strings.insert(next + count - 1); // after any '*' width or precision
    next += count;
  }
  return strings;
}

class PrintfLowering {
public:
  PrintfLowering(Module &module, std::string &log)
      : module_(module), context_(module.getContext()), layout_(module.getDataLayout()), log_(log) {
  }

  bool run() {
    Function *printf = module_.getFunction(kPrintfName);
    if (printf == nullptr || !printf->isDeclaration())
      return true;
    // In module order, so that call sites are numbered as they appear in the source.
    SmallVector<CallInst *, 8> calls;
    for (Function &function : module_)
      for (Instruction &instruction : instructions(function))
        if (auto *call = dyn_cast<CallInst>(&instruction);
            call != nullptr && call->getCalledOperand() == printf)
          calls.push_back(call);
    if (calls.size() != printf->getNumUses()) {
      log_ += "error: the address of printf cannot be taken\n";
      return false;
    }
    bool ok = true;
    for (CallInst *call : calls)
      ok &= lowerCall(*call);
    if (ok && printf->use_empty())
      printf->eraseFromParent();
    return ok;
  }

private:
  bool lowerCall(CallInst &call) {
    StringRef format;
    if (call.arg_size() == 0 || !getConstantStringInfo(call.getArgOperand(0), format)) {
      log_ += "error: the format of a printf call in '" + callerName(call) +
              "' is not a string literal\n";
      return false;
    }
    PrintfCallSite site;
    site.format = format.str();
    SmallSet<unsigned, 4> strings = stringArguments(format);
    for (unsigned index = 1; index < call.arg_size(); ++index) {
      Value *value = call.getArgOperand(index);
      std::optional<PrintfArgument> argument = describeArgument(value->getType(), layout_);
      if (!argument) {
        log_ += "error: argument " + std::to_string(index + 1) + " of a printf call in '" +
                callerName(call) + "' has a type printf cannot print\n";
        return false;
      }
      if (argument->kind == PrintfArgument::Kind::Pointer && strings.contains(index - 1))
        argument->kind = PrintfArgument::Kind::String;
      site.args.push_back(*argument);
    }
    emitRecord(call, site, recordCallSite(site));
    return true;
  }

  /// Appends `site` to the module's table; returns its number.
  uint32_t recordCallSite(const PrintfCallSite &site) {
    NamedMDNode *table = module_.getOrInsertNamedMetadata(kCallSitesMetadata);
    uint32_t number = table->getNumOperands();
    SmallVector<Metadata *, 24> fields;
    Type *i32 = Type::getInt32Ty(context_);
    for (const PrintfArgument &argument : site.args)
      for (unsigned field : {unsigned(argument.kind), unsigned(argument.elementBytes),
                             unsigned(argument.elementCount)})
        fields.push_back(ConstantAsMetadata::get(ConstantInt::get(i32, field)));
    table->addOperand(MDNode::get(
        context_, {MDString::get(context_, site.format), MDNode::get(context_, fields)}));
    return number;
  }

  /// Replaces `call` by: reserve the record; if that succeeded, fill it; 0 or -1.
  void emitRecord(CallInst &call, const PrintfCallSite &site, uint32_t number) {
    IRBuilder<> builder(&call);
    // The fixed part, then what the strings add.
    uint64_t fixedBytes = kPrintfRecordHeaderSize;
    for (const PrintfArgument &argument : site.args)
      fixedBytes += argument.kind == PrintfArgument::Kind::String
                        ? sizeof(uint32_t)
                        : uint64_t(argument.elementBytes) * argument.elementCount;
    Value *size = builder.getInt64(fixedBytes);
    SmallVector<Value *, 4> lengths;
    for (unsigned index = 0; index < site.args.size(); ++index) {
      if (site.args[index].kind != PrintfArgument::Kind::String)
        continue;
      Value *string = call.getArgOperand(index + 1);
      Value *length = builder.CreateCall(stringLengthFunction(string->getType()), {string});
      lengths.push_back(length);
      size = builder.CreateAdd(size, length);
    }
    Value *record = builder.CreateCall(allocPrimitive(), {size}, "printf.record");
    Value *reserved = builder.CreateIsNotNull(record);
    Instruction *fill = SplitBlockAndInsertIfThen(reserved, call.getIterator(), false);
    BasicBlock *filled = fill->getParent();

    builder.SetInsertPoint(fill);
    Value *offset = builder.getInt64(0);
    auto store = [&](Value *value) {
      builder.CreateAlignedStore(value, builder.CreateGEP(builder.getInt8Ty(), record, offset),
                                 Align(1));
      offset = builder.CreateAdd(
          offset, builder.getInt64(layout_.getTypeStoreSize(value->getType()).getFixedValue()));
    };
    store(builder.CreateTrunc(size, builder.getInt32Ty()));
    store(builder.getInt32(number));
    size_t nextLength = 0;
    for (unsigned index = 0; index < site.args.size(); ++index) {
      Value *value = call.getArgOperand(index + 1);
      switch (site.args[index].kind) {
      case PrintfArgument::Kind::String: {
        Value *length = lengths[nextLength++];
        store(builder.CreateTrunc(length, builder.getInt32Ty()));
        builder.CreateMemCpy(builder.CreateGEP(builder.getInt8Ty(), record, offset), Align(1),
                             value, Align(1), length);
        offset = builder.CreateAdd(offset, length);
        break;
      }
      case PrintfArgument::Kind::Pointer:
        store(builder.CreatePtrToInt(value, builder.getIntNTy(site.args[index].elementBytes * 8)));
        break;
      default:
        store(value);
        break;
      }
    }

    // printf's value: 0 when the record was written, -1 when there was no room.
    builder.SetInsertPoint(&call);
    PHINode *result = builder.CreatePHI(call.getType(), 2, "printf.result");
    BasicBlock *tail = call.getParent();
    for (BasicBlock *predecessor : predecessors(tail))
      result->addIncoming(ConstantInt::get(call.getType(), predecessor == filled ? 0 : -1, true),
                          predecessor);
    call.replaceAllUsesWith(result);
    call.eraseFromParent();
  }

  FunctionCallee allocPrimitive() {
    Type *record = PointerType::get(context_, spir::kGlobalAddressSpace);
    return module_.getOrInsertFunction(kPrintfAllocPrimitive, record, Type::getInt64Ty(context_));
  }

  /// `i64 (ptr s)`: the length of the string at `s` up to its NUL, at most
  /// kPrintfMaxStringBytes; 0 for a null pointer. One per address space.
  Function *stringLengthFunction(Type *pointerType) {
    std::string name =
        "kiln.printf.strnlen.p" + std::to_string(pointerType->getPointerAddressSpace());
    if (Function *existing = module_.getFunction(name))
      return existing;
    Type *i64 = Type::getInt64Ty(context_);
    Function *function = Function::Create(FunctionType::get(i64, {pointerType}, false),
                                          GlobalValue::InternalLinkage, name, module_);
    function->addFnAttr(Attribute::NoUnwind);
    Argument *string = function->getArg(0);

    auto *entry = BasicBlock::Create(context_, "entry", function);
    auto *loop = BasicBlock::Create(context_, "loop", function);
    auto *body = BasicBlock::Create(context_, "body", function);
    auto *exit = BasicBlock::Create(context_, "exit", function);
    IRBuilder<> builder(entry);
    builder.CreateCondBr(builder.CreateIsNull(string), exit, loop);

    builder.SetInsertPoint(loop);
    PHINode *index = builder.CreatePHI(i64, 2, "index");
    index->addIncoming(builder.getInt64(0), entry);
    builder.CreateCondBr(builder.CreateICmpEQ(index, builder.getInt64(kPrintfMaxStringBytes)), exit,
                         body);

    builder.SetInsertPoint(body);
    Value *character = builder.CreateLoad(builder.getInt8Ty(),
                                          builder.CreateGEP(builder.getInt8Ty(), string, index));
    Value *next = builder.CreateAdd(index, builder.getInt64(1));
    index->addIncoming(next, body);
    builder.CreateCondBr(builder.CreateICmpEQ(character, builder.getInt8(0)), exit, loop);

    builder.SetInsertPoint(exit);
    PHINode *length = builder.CreatePHI(i64, 3, "length");
    length->addIncoming(builder.getInt64(0), entry);
    length->addIncoming(index, loop);
    length->addIncoming(index, body);
    builder.CreateRet(length);
    return function;
  }

  Module &module_;
  LLVMContext &context_;
  const DataLayout &layout_;
  std::string &log_;
};

/// An unsigned field of a metadata tuple, if it is one.
std::optional<uint64_t> field(const MDNode &node, unsigned index) {
  if (index >= node.getNumOperands())
    return std::nullopt;
  if (auto *value = mdconst::dyn_extract_or_null<ConstantInt>(node.getOperand(index)))
    return value->getLimitedValue();
  return std::nullopt;
}

/// The arguments of one call site; those after a malformed entry are dropped.
std::vector<PrintfArgument> readArguments(const MDNode &fields) {
  std::vector<PrintfArgument> arguments;
  for (unsigned index = 0; index + 3 <= fields.getNumOperands(); index += 3) {
    std::optional<uint64_t> kind = field(fields, index), bytes = field(fields, index + 1),
                            count = field(fields, index + 2);
    if (!kind || !bytes || !count || *kind > uint64_t(PrintfArgument::Kind::String) ||
        (*bytes != 1 && *bytes != 2 && *bytes != 4 && *bytes != 8) || *count == 0 ||
        *count > kMaxVectorSize)
      break;
    arguments.push_back({PrintfArgument::Kind(*kind), uint8_t(*bytes), uint8_t(*count)});
  }
  return arguments;
}

} // namespace

bool lowerPrintfCalls(Module &module, std::string &log) {
  return PrintfLowering(module, log).run();
}

std::vector<PrintfCallSite> printfCallSites(const Module &module) {
  std::vector<PrintfCallSite> sites;
  const NamedMDNode *table = module.getNamedMetadata(kCallSitesMetadata);
  if (table == nullptr)
    return sites;
  for (const MDNode *node : table->operands()) {
    // A malformed entry (a damaged binary) still takes its number.
    PrintfCallSite &site = sites.emplace_back();
    if (node->getNumOperands() != 2)
      continue;
    if (auto *format = dyn_cast_or_null<MDString>(node->getOperand(0).get()))
      site.format = format->getString().str();
    if (auto *fields = dyn_cast_or_null<MDNode>(node->getOperand(1).get()))
      site.args = readArguments(*fields);
  }
  return sites;
}

} // namespace kiln::compiler
