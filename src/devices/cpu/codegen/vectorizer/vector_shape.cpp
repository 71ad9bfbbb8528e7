//===- vector_shape.cpp - How values vary across the lanes of a SIMD group ===//
#include "devices/cpu/codegen/vectorizer/vector_shape.hpp"

#include "compiler/llvm/sub_group_primitives.hpp"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace kiln::cpu::vectorizer {
namespace {

/// Rounds of the fixed point before giving up on a shape (each round can only raise shapes).
constexpr unsigned kMaxRounds = 64;

// Strides combine in two's complement, like the values they describe: wrapping, never undefined.
int64_t wrappingAdd(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) + uint64_t(b));
}
int64_t wrappingSub(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) - uint64_t(b));
}
int64_t wrappingMul(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) * uint64_t(b));
}

bool allOperandsUniform(const User &user, function_ref<Shape(const Value *)> shapeOf) {
  return all_of(user.operands(), [&](const Use &use) { return shapeOf(use.get()).isUniform(); });
}

} // namespace

bool isUniformPrimitive(const Function &function) {
  bool primitive = StringSwitch<bool>(function.getName())
                       .Cases({"__kiln_group_id", "__kiln_local_size", "__kiln_enqueued_local_size",
                               "__kiln_num_groups", "__kiln_global_size", "__kiln_global_offset",
                               "__kiln_work_dim"},
                              true)
                       .Default(false);
  return primitive || function.doesNotAccessMemory();
}

bool callsUniformPrimitive(const CallInst &call) {
  const Function *callee = call.getCalledFunction();
  return callee != nullptr && isUniformPrimitive(*callee);
}

ShapeAnalysis::ShapeAnalysis(Function &function, ShapeSeeds seeds,
                             const DenseSet<const Value *> &forcedVarying)
    : layout_(function.getDataLayout()), seeds_(seeds) {
  ReversePostOrderTraversal<Function *> order(&function);
  for (unsigned round = 0;; ++round) {
    bool changed = false;
    for (BasicBlock *block : order) {
      for (Instruction &instruction : *block) {
        Shape next =
            forcedVarying.contains(&instruction) ? Shape::varying() : transfer(instruction);
        Shape &current = shapes_[&instruction];
        if (round == kMaxRounds && !(next == current))
          next = Shape::varying();
        if (!(next == current)) {
          current = next;
          changed = true;
        }
      }
    }
    if (!changed)
      break;
  }
  // Values of unreachable code, and values whose shape never settled.
  for (auto &entry : shapes_)
    if (!entry.second.isKnown())
      entry.second = Shape::varying();
}

Shape ShapeAnalysis::shape(const Value *value) const {
  if (isa<Constant>(value) || isa<Argument>(value) || isa<BasicBlock>(value) ||
      isa<MetadataAsValue>(value) || isa<InlineAsm>(value))
    return Shape::uniform();
  auto found = shapes_.find(value);
  return found == shapes_.end() ? Shape::unknown() : found->second;
}

Shape ShapeAnalysis::transfer(const Instruction &instruction) const {
  auto shapeOf = [this](const Value *value) { return shape(value); };
  Shape result = [&]() -> Shape {
    if (auto *phi = dyn_cast<PHINode>(&instruction)) {
      // Poison (what a path that does not define the value passes, as where a uniform
      // branch's sides meet) takes any shape.
      Shape joined = Shape::unknown();
      for (const Value *incoming : phi->incoming_values())
        if (!isa<PoisonValue>(incoming))
          joined = joined.join(shape(incoming));
      return joined.isKnown() || !all_of(phi->incoming_values(),
                                         [](const Value *value) { return isa<PoisonValue>(value); })
                 ? joined
                 : Shape::uniform();
    }
    if (auto *select = dyn_cast<SelectInst>(&instruction)) {
      Shape condition = shape(select->getCondition());
      if (!condition.isKnown())
        return Shape::unknown();
      if (!condition.isUniform())
        return Shape::varying();
      return shape(select->getTrueValue()).join(shape(select->getFalseValue()));
    }
    if (auto *op = dyn_cast<BinaryOperator>(&instruction))
      return binaryShape(*op);
    if (auto *cast = dyn_cast<CastInst>(&instruction))
      return castShape(*cast);
    if (auto *gep = dyn_cast<GetElementPtrInst>(&instruction))
      return gepShape(*gep);
    if (auto *alloca = dyn_cast<AllocaInst>(&instruction)) {
      std::optional<TypeSize> size = alloca->getAllocationSize(layout_);
      return size && !size->isScalable() ? Shape::strided(int64_t(size->getFixedValue()))
                                         : Shape::varying();
    }
    if (auto *load = dyn_cast<LoadInst>(&instruction)) {
      Shape address = shape(load->getPointerOperand());
      if (!address.isKnown())
        return Shape::unknown();
      return address.isUniform() ? Shape::uniform() : Shape::varying();
    }
    if (isa<AtomicRMWInst>(instruction) || isa<AtomicCmpXchgInst>(instruction))
      return Shape::varying();
    if (auto *call = dyn_cast<CallBase>(&instruction))
      return callShape(*call);
    if (auto *freeze = dyn_cast<FreezeInst>(&instruction))
      return shape(freeze->getOperand(0));
    if (instruction.getType()->isVoidTy())
      return Shape::uniform();
    for (const Use &operand : instruction.operands())
      if (!shape(operand.get()).isKnown())
        return Shape::unknown();
    return allOperandsUniform(instruction, shapeOf) ? Shape::uniform() : Shape::varying();
  }();
  // Only integers and pointers advance by a stride; everything else is uniform or varying.
  Type *type = instruction.getType();
  if (result.isStrided() && !result.isUniform() && !type->isIntegerTy() && !type->isPointerTy())
    return Shape::varying();
  if (result.isStrided() && !result.isUniform() && type->isIntegerTy(1))
    return Shape::varying();
  return result;
}

Shape ShapeAnalysis::binaryShape(const BinaryOperator &op) const {
  Shape left = shape(op.getOperand(0));
  Shape right = shape(op.getOperand(1));
  if (!left.isKnown() || !right.isKnown())
    return Shape::unknown();
  if (left.isUniform() && right.isUniform())
    return Shape::uniform();
  if (left.isVarying() || right.isVarying() || !op.getType()->isIntegerTy())
    return Shape::varying();
  auto constant = [](const Value *value) -> std::optional<int64_t> {
    if (auto *integer = dyn_cast<ConstantInt>(value); integer && integer->getBitWidth() <= 64)
      return integer->getSExtValue();
    return std::nullopt;
  };
  switch (op.getOpcode()) {
  case Instruction::Add:
    return Shape::strided(wrappingAdd(left.stride(), right.stride()));
  case Instruction::Sub:
    return Shape::strided(wrappingSub(left.stride(), right.stride()));
  case Instruction::Or:
    if (cast<PossiblyDisjointInst>(op).isDisjoint())
      return Shape::strided(wrappingAdd(left.stride(), right.stride()));
    return Shape::varying();
  case Instruction::Mul:
    if (std::optional<int64_t> factor = constant(op.getOperand(1)); factor && right.isUniform())
      return Shape::strided(wrappingMul(left.stride(), *factor));
    if (std::optional<int64_t> factor = constant(op.getOperand(0)); factor && left.isUniform())
      return Shape::strided(wrappingMul(right.stride(), *factor));
    return Shape::varying();
  case Instruction::Shl:
    if (std::optional<int64_t> amount = constant(op.getOperand(1));
        amount && *amount >= 0 && *amount < 63 && right.isUniform())
      return Shape::strided(wrappingMul(left.stride(), int64_t(1) << *amount));
    return Shape::varying();
  default:
    return Shape::varying();
  }
}

Shape ShapeAnalysis::castShape(const CastInst &cast) const {
  Shape source = shape(cast.getOperand(0));
  if (!source.isKnown() || source.isUniform() || source.isVarying())
    return source;
  switch (cast.getOpcode()) {
  case Instruction::Trunc:    // lanes stay a stride apart, modulo the narrower width
  case Instruction::PtrToInt: // pointers and i64 have one width on the host
  case Instruction::IntToPtr:
  case Instruction::AddrSpaceCast:
  case Instruction::BitCast:
    return source;
  case Instruction::SExt:
  case Instruction::ZExt:
    // Assumes the lanes of one SIMD group do not straddle the point where the narrower type
    // wraps: the idiom `int i = get_global_id(0)` would otherwise never give contiguous
    // accesses, and only NDRanges of more than 2^31 work-items reach that point.
    return source;
  default:
    return Shape::varying();
  }
}

Shape ShapeAnalysis::gepShape(const GetElementPtrInst &gep) const {
  Shape base = shape(gep.getPointerOperand());
  if (!base.isKnown())
    return Shape::unknown();
  if (base.isVarying() || gep.getType()->isVectorTy())
    return Shape::varying();
  int64_t stride = base.stride();
  for (gep_type_iterator index = gep_type_begin(gep), end = gep_type_end(gep); index != end;
       ++index) {
    Shape indexShape = shape(index.getOperand());
    if (!indexShape.isKnown())
      return Shape::unknown();
    if (indexShape.isUniform())
      continue;
    if (indexShape.isVarying() || index.isStruct())
      return Shape::varying();
    TypeSize elementSize = index.getSequentialElementStride(layout_);
    if (elementSize.isScalable())
      return Shape::varying();
    stride =
        wrappingAdd(stride, wrappingMul(indexShape.stride(), int64_t(elementSize.getFixedValue())));
  }
  return Shape::strided(stride);
}

Shape ShapeAnalysis::callShape(const CallBase &call) const {
  for (const Use &argument : call.args())
    if (!shape(argument.get()).isKnown())
      return Shape::unknown();
  const Function *callee = call.getCalledFunction();
  if (callee == nullptr)
    return Shape::varying();
  if (callee == seeds_.anyLane)
    return Shape::uniform();
  // A sub-group is the SIMD group: its id and its ballots are the same in every lane.
  switch (compiler::subGroupPrimitive(callee)) {
  case compiler::SubGroupPrimitive::LocalId:
    return Shape::varying();
  case compiler::SubGroupPrimitive::Shuffle:
    return shape(call.getArgOperand(0)).isUniform() || shape(call.getArgOperand(1)).isUniform()
               ? Shape::uniform()
               : Shape::varying();
  case compiler::SubGroupPrimitive::None:
    break;
  default:
    return Shape::uniform();
  }
  if (callee == seeds_.localId) {
    auto *dim = dyn_cast<ConstantInt>(call.getArgOperand(0));
    if (dim == nullptr)
      return Shape::varying();
    return dim->isZero() ? Shape::strided(1) : Shape::uniform();
  }
  bool uniformArguments =
      all_of(call.args(), [&](const Use &argument) { return shape(argument.get()).isUniform(); });
  if (!uniformArguments)
    return Shape::varying();
  if (isUniformPrimitive(*callee))
    return Shape::uniform();
  if (callee->isIntrinsic() && call.onlyReadsMemory())
    return Shape::uniform();
  return Shape::varying();
}

} // namespace kiln::cpu::vectorizer
