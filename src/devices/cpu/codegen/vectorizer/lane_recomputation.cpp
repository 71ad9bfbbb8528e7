#include "devices/cpu/codegen/vectorizer/lane_recomputation.hpp"

#include "compiler/llvm/spir_address_spaces.hpp"
#include "devices/cpu/codegen/preparation/address_space_queries.hpp"

#include "llvm/Analysis/MemoryLocation.h"

using namespace llvm;

namespace kiln::cpu::vectorizer {
namespace {

/// A space no object of another named space overlaps: global, constant or local.
bool isNamedObjectSpace(unsigned space) {
  return compiler::spir::isBufferAddressSpace(space) || space == compiler::spir::kLocalAddressSpace;
}

} // namespace

bool isSteppable(Type *type) {
  return type->isIntegerTy() || type->isPointerTy();
}

Value *stepLane(IRBuilder<> &builder, Value *value, int64_t stride, unsigned lane) {
  int64_t step = stride * int64_t(lane);
  if (step == 0)
    return value;
  if (value->getType()->isPointerTy())
    return builder.CreateGEP(builder.getInt8Ty(), value, builder.getInt64(step));
  return builder.CreateAdd(value, ConstantInt::get(value->getType(), step, /*IsSigned=*/true));
}

LaneRecomputation::LaneRecomputation(ArrayRef<Instruction *> order,
                                     std::function<Shape(const Value *)> shapeOf)
    : order_(order.begin(), order.end()), shapeOf_(std::move(shapeOf)) {
  for (unsigned position = 0; position < order_.size(); ++position)
    place_[order_[position]] = {position, order_[position]->getParent()};
}

bool LaneRecomputation::passesThrough(const Value *value) const {
  // Values every lane's copy already takes as they are, or steps from lane 0's.
  Shape shape = shapeOf_(value);
  return shape.isUniform() || (shape.isStrided() && isSteppable(value->getType()));
}

bool LaneRecomputation::recomputable(Value *operand, const Instruction &user) const {
  unsigned budget = kMaxChain;
  bool loaded = false;
  return !passesThrough(operand) && recomputable(operand, user, budget, loaded);
}

bool LaneRecomputation::recomputable(Value *value, const Instruction &user, unsigned &budget,
                                     bool &loaded) const {
  if (passesThrough(value))
    return true;
  auto *definition = dyn_cast<Instruction>(value);
  auto definitionPlace = definition ? place_.find(definition) : place_.end();
  auto userPlace = place_.find(&user);
  if (definitionPlace == place_.end() || userPlace == place_.end() ||
      definitionPlace->second.second != userPlace->second.second || budget == 0)
    return false;
  --budget;
  if (auto *load = dyn_cast<LoadInst>(definition)) {
    if (loaded || !repeatable(*load, user))
      return false;
    loaded = true;
    return passesThrough(load->getPointerOperand());
  }
  bool pure = isa<CastInst, GetElementPtrInst>(definition) ||
              (isa<BinaryOperator>(definition) && !definition->isIntDivRem());
  if (!pure)
    return false;
  for (Value *operand : definition->operands())
    if (!recomputable(operand, user, budget, loaded))
      return false;
  return true;
}

bool LaneRecomputation::repeatable(const LoadInst &load, const Instruction &user) const {
  if (!load.isSimple())
    return false;
  unsigned read = load.getPointerAddressSpace();
  if (read == compiler::spir::kConstantAddressSpace)
    return true; // no kernel writes constant memory
  // Nothing between the vector load and the copies writes memory...
  unsigned from = place_.lookup(&load).first, to = place_.lookup(&user).first;
  for (unsigned position = from + 1; position < to; ++position)
    if (order_[position]->mayWriteToMemory())
      return false;
  if (!user.mayWriteToMemory())
    return true;
  // ... and the copies write memory the load cannot read.
  // (A volatile or ordered load counts as writing; it is left to extract its operands.)
  std::optional<MemoryLocation> written = MemoryLocation::getOrNone(&user);
  if (!written || isa<LoadInst>(user))
    return false;
  std::optional<unsigned> writtenSpace = namedAddressSpaceOf(const_cast<Value *>(written->Ptr));
  return writtenSpace && isNamedObjectSpace(*writtenSpace) && isNamedObjectSpace(read) &&
         *writtenSpace != read;
}

Value *LaneRecomputation::recompute(IRBuilder<> &builder, Value *operand, unsigned lane) const {
  Shape shape = shapeOf_(operand);
  if (shape.isUniform())
    return operand;
  if (shape.isStrided() && isSteppable(operand->getType()))
    return stepLane(builder, operand, shape.stride(), lane);
  auto *definition = cast<Instruction>(operand);
  Instruction *copy = definition->clone();
  for (Use &use : copy->operands())
    use.set(recompute(builder, use.get(), lane));
  return builder.Insert(copy, definition->getName() + ".lane");
}

} // namespace kiln::cpu::vectorizer
