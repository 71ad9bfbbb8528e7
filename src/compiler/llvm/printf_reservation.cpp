//===- printf_reservation.cpp - Records in a launch's printf buffer ------===//
#include "compiler/llvm/printf_reservation.hpp"

#include "compiler/printf_format.hpp"

#include "llvm/IR/IRBuilder.h"

#include <cstddef>
#include <string>

using namespace llvm;

namespace kiln::compiler {

Function *printfReservationFunction(Module &module, PointerType *recordType,
                                    PointerType *bufferType) {
  std::string name = "kiln.printf_reserve.p" + std::to_string(recordType->getAddressSpace()) +
                     ".p" + std::to_string(bufferType->getAddressSpace());
  if (Function *existing = module.getFunction(name))
    return existing;
  LLVMContext &context = module.getContext();
  Type *i64 = Type::getInt64Ty(context);
  Function *function = Function::Create(FunctionType::get(recordType, {bufferType, i64}, false),
                                        GlobalValue::InternalLinkage, name, module);
  function->addFnAttr(Attribute::NoUnwind);
  Argument *buffer = function->getArg(0);
  Argument *size = function->getArg(1);

  auto *entry = BasicBlock::Create(context, "entry", function);
  auto *start = BasicBlock::Create(context, "start", function);
  auto *loop = BasicBlock::Create(context, "loop", function);
  auto *claim = BasicBlock::Create(context, "claim", function);
  auto *reserved = BasicBlock::Create(context, "reserved", function);
  auto *full = BasicBlock::Create(context, "full", function);
  IRBuilder<> builder(entry);
  auto field = [&](size_t offset) {
    return builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), buffer, offset);
  };
  builder.CreateCondBr(builder.CreateIsNull(buffer), full, start);

  builder.SetInsertPoint(start);
  Value *capacity = builder.CreateLoad(i64, field(offsetof(PrintfBuffer, capacity)), "capacity");
  Value *usedAddress = field(offsetof(PrintfBuffer, used));
  LoadInst *initial = builder.CreateAlignedLoad(i64, usedAddress, Align(8), "used");
  initial->setAtomic(AtomicOrdering::Monotonic);
  builder.CreateBr(loop);

  // `used` never exceeds `capacity`: the record fits when size <= capacity - used.
  builder.SetInsertPoint(loop);
  PHINode *used = builder.CreatePHI(i64, 2, "used");
  used->addIncoming(initial, start);
  builder.CreateCondBr(builder.CreateICmpULE(size, builder.CreateSub(capacity, used)), claim, full);

  builder.SetInsertPoint(claim);
  AtomicCmpXchgInst *exchange =
      builder.CreateAtomicCmpXchg(usedAddress, used, builder.CreateAdd(used, size), MaybeAlign(8),
                                  AtomicOrdering::Monotonic, AtomicOrdering::Monotonic);
  used->addIncoming(builder.CreateExtractValue(exchange, 0), claim);
  builder.CreateCondBr(builder.CreateExtractValue(exchange, 1), reserved, loop);

  builder.SetInsertPoint(reserved);
  Value *data =
      builder.CreateLoad(PointerType::get(context, 0), field(offsetof(PrintfBuffer, data)), "data");
  Value *record = builder.CreateGEP(builder.getInt8Ty(), data, used, "record");
  builder.CreateRet(builder.CreatePointerBitCastOrAddrSpaceCast(record, recordType));

  builder.SetInsertPoint(full);
  builder.CreateRet(ConstantPointerNull::get(recordType));
  return function;
}

} // namespace kiln::compiler
