//===- instruction_widening.cpp - One work-item's code for W lanes --------===//
#include "devices/cpu/codegen/vectorizer/instruction_widening.hpp"

#include "compiler/llvm/sub_group_primitives.hpp"

#include "compiler/llvm/codegen_error.hpp"
#include "devices/cpu/codegen/ir_utilities/fast_path_branch.hpp"
#include "devices/cpu/codegen/vectorizer/interleaved_access.hpp"
#include "devices/cpu/codegen/vectorizer/lane_recomputation.hpp"
#include "devices/cpu/codegen/vectorizer/uniform_atomics.hpp"
#include "devices/cpu/codegen/vectorizer/work_item_vectorizer.hpp"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <algorithm>
#include <optional>

using namespace llvm;

namespace kiln::cpu::vectorizer {
namespace {

class Widener {
public:
  Widener(Function &function, const ShapeAnalysis &shapes, const LinearizedControl &control,
          ShapeSeeds seeds, unsigned width, unsigned registerBits)
      : function_(function), shapes_(shapes), control_(control), seeds_(seeds), width_(width),
        registerBits_(registerBits), layout_(function.getDataLayout()),
        context_(function.getContext()), groups_(function, shapes) {}

  Error run() {
    // Everything is decided on the code as it is now: widening splits blocks.
    std::vector<Instruction *> work;
    for (BasicBlock *block : ReversePostOrderTraversal<Function *>(&function_))
      for (Instruction &instruction : *block) {
        work.push_back(&instruction);
        laneMask_[&instruction] = control_.blockMask.lookup(block);
        if (control_.fullBlocks.contains(block))
          full_.insert(&instruction);
      }
    recomputation_.emplace(work, [this](const Value *value) { return shapeOf(value); });
    for (Instruction *instruction : work) {
      user_ = instruction;
      if (Error error = widen(*instruction))
        return error;
    }
    for (auto &[phi, vector] : phis_)
      for (unsigned index = 0; index < phi->getNumIncomingValues(); ++index) {
        user_ = phi->getIncomingBlock(index)->getTerminator();
        vector->addIncoming(vectorOf(phi->getIncomingValue(index)), phi->getIncomingBlock(index));
      }
    for (Instruction *instruction : replaced_)
      instruction->dropAllReferences();
    for (Instruction *instruction : replaced_)
      if (!instruction->use_empty())
        return compiler::codegenError(Twine("internal: a scalar '") + instruction->getOpcodeName() +
                                      "' is still used after widening");
    for (Instruction *instruction : replaced_)
      instruction->eraseFromParent();
    return Error::success();
  }

private:
  Shape shapeOf(const Value *value) const {
    if (auto found = newShapes_.find(value); found != newShapes_.end())
      return found->second;
    return shapes_.shape(value);
  }

  Type *widen(Type *type) const {
    if (type->isIntegerTy() || type->isFloatingPointTy() || type->isPointerTy())
      return FixedVectorType::get(type, width_);
    if (auto *structure = dyn_cast<StructType>(type)) {
      SmallVector<Type *, 4> fields;
      for (Type *field : structure->elements())
        if (Type *wide = widen(field))
          fields.push_back(wide);
        else
          return nullptr;
      return StructType::get(context_, fields);
    }
    if (auto *array = dyn_cast<ArrayType>(type))
      if (Type *element = widen(array->getElementType()))
        return ArrayType::get(element, array->getNumElements());
    return nullptr;
  }

  /// <0, s, 2s, ...> in `type` (an integer type).
  Constant *laneSteps(Type *type, int64_t stride) const {
    SmallVector<Constant *, 64> steps;
    for (unsigned lane = 0; lane < width_; ++lane)
      steps.push_back(ConstantInt::get(type, uint64_t(stride) * lane, /*IsSigned=*/true));
    return ConstantVector::get(steps);
  }

  /// Where a vector form of `value` can be computed once for all its uses.
  IRBuilder<> builderAfter(Value *value) {
    if (auto *instruction = dyn_cast<Instruction>(value)) {
      if (isa<PHINode>(instruction))
        return IRBuilder<>(instruction->getParent(),
                           instruction->getParent()->getFirstInsertionPt());
      return IRBuilder<>(instruction->getParent(), std::next(instruction->getIterator()));
    }
    BasicBlock &entry = function_.getEntryBlock();
    return IRBuilder<>(&entry, entry.getFirstInsertionPt());
  }

  /// The W-lane vector of a scalar value of any shape.
  Value *vectorOf(Value *value) {
    if (isa<AllocaInst>(value)) {
      // Computed where it is used: the work-item loops give each region its own copy of the
      // allocas that live across barriers, and replace the alloca only in the regions' code.
      IRBuilder<> builder(user_);
      return laneAddresses(builder, value, shapeOf(value).stride());
    }
    if (Value *known = vectors_.lookup(value))
      return known;
    Shape shape = shapeOf(value);
    Value *vector = nullptr;
    if (auto *constant = dyn_cast<Constant>(value); constant && !isa<GlobalValue>(value)) {
      vector = splatConstant(constant);
    } else {
      assert(!shape.isVarying() && "a varying value is used before it is widened");
      IRBuilder<> builder = builderAfter(value);
      Value *splat = builder.CreateVectorSplat(width_, value, value->getName() + ".splat");
      vector = splat;
      if (shape.stride() != 0) {
        if (value->getType()->isPointerTy())
          vector = laneAddresses(builder, value, shape.stride());
        else
          vector = builder.CreateAdd(splat, laneSteps(value->getType(), shape.stride()),
                                     value->getName() + ".lanes");
      }
    }
    vectors_[value] = vector;
    return vector;
  }

  /// A constant's vector form; aggregates become aggregates of vectors.
  Constant *splatConstant(Constant *constant) {
    Type *type = constant->getType();
    if (!type->isAggregateType())
      return ConstantVector::getSplat(ElementCount::getFixed(width_), constant);
    Type *wide = widen(type);
    if (isa<PoisonValue>(constant))
      return PoisonValue::get(wide);
    if (isa<UndefValue>(constant))
      return UndefValue::get(wide);
    SmallVector<Constant *, 4> fields;
    unsigned count =
        isa<StructType>(type) ? type->getStructNumElements() : type->getArrayNumElements();
    for (unsigned field = 0; field < count; ++field)
      fields.push_back(splatConstant(constant->getAggregateElement(field)));
    if (auto *structure = dyn_cast<StructType>(wide))
      return ConstantStruct::get(structure, fields);
    return ConstantArray::get(cast<ArrayType>(wide), fields);
  }

  /// The addresses `base`, `base + stride`, ... of the lanes.
  Value *laneAddresses(IRBuilder<> &builder, Value *base, int64_t stride) {
    Value *splat = builder.CreateVectorSplat(width_, base, base->getName() + ".splat");
    return builder.CreateGEP(builder.getInt8Ty(), splat, laneSteps(builder.getInt64Ty(), stride),
                             base->getName() + ".lanes");
  }

  Value *maskOf(Instruction &instruction) {
    Value *mask = laneMask_.lookup(&instruction);
    assert(mask && "every block has a mask");
    return mask;
  }

  /// Whether some lane runs `instruction`: an i1. Some lane of every SIMD group is active.
  Value *anyLane(IRBuilder<> &builder, Value *mask) {
    if (shapeOf(mask).isUniform())
      return mask;
    if (isActiveLanesMask(*mask))
      return builder.getTrue();
    return builder.CreateOrReduce(vectorOf(mask));
  }

  void replaceWith(Instruction &instruction, Value *vector) {
    vectors_[&instruction] = vector;
    replaced_.push_back(&instruction);
  }

  Error widen(Instruction &instruction) {
    if (auto *call = dyn_cast<CallInst>(&instruction)) {
      if (call->getCalledFunction() == seeds_.anyLane) {
        IRBuilder<> builder(call);
        call->replaceAllUsesWith(anyLane(builder, call->getArgOperand(0)));
        replaced_.push_back(call);
        return Error::success();
      }
      if (auto *intrinsic = dyn_cast<IntrinsicInst>(call);
          intrinsic && intrinsic->isAssumeLikeIntrinsic()) {
        replaced_.push_back(call);
        return Error::success();
      }
    }
    if (auto *alloca = dyn_cast<AllocaInst>(&instruction))
      return widenAlloca(*alloca);
    if (auto *branch = dyn_cast<BranchInst>(&instruction)) {
      if (branch->isConditional() && shapeOf(branch->getCondition()).isVarying())
        return compiler::codegenError("internal: a divergent branch survived linearization (in '" +
                                      branch->getParent()->getName() + "')");
      return Error::success();
    }
    if (instruction.isTerminator())
      return Error::success();
    if (const InterleavedGroup *group = groups_.groupOf(&instruction))
      return widenInterleaved(*group, instruction);
    if (auto *load = dyn_cast<LoadInst>(&instruction))
      return widenLoad(*load);
    if (auto *store = dyn_cast<StoreInst>(&instruction))
      return widenStore(*store);
    if (auto *atomic = dyn_cast<AtomicRMWInst>(&instruction);
        atomic && combinesLanes(*atomic, [&](const Value *value) { return shapeOf(value); }))
      return widenCombinedAtomic(*atomic, maskOf(instruction));
    if (isa<AtomicRMWInst>(instruction) || isa<AtomicCmpXchgInst>(instruction))
      return perLane(instruction, maskOf(instruction));
    if (auto *call = dyn_cast<CallInst>(&instruction))
      return widenCall(*call);
    if (isa<FenceInst>(instruction))
      return Error::success();
    if (!shapeOf(&instruction).isVarying())
      return Error::success();
    if (auto *phi = dyn_cast<PHINode>(&instruction)) {
      Type *type = widen(phi->getType());
      if (type == nullptr)
        return compiler::codegenError("a varying value of type that has no vector form");
      PHINode *vector =
          PHINode::Create(type, phi->getNumIncomingValues(), phi->getName(), phi->getIterator());
      phis_.push_back({phi, vector});
      replaceWith(*phi, vector);
      return Error::success();
    }
    if (isa<BinaryOperator>(instruction) || isa<UnaryOperator>(instruction) ||
        isa<CmpInst>(instruction) || isa<CastInst>(instruction) || isa<SelectInst>(instruction) ||
        isa<FreezeInst>(instruction) || isa<GetElementPtrInst>(instruction) ||
        isa<ExtractValueInst>(instruction) || isa<InsertValueInst>(instruction))
      return widenElementwise(instruction);
    return compiler::codegenError(Twine("a varying '") + instruction.getOpcodeName() +
                                  "' instruction");
  }

  /// The same operation on vectors: uniform operands stay scalar where the instruction allows
  /// it (a select's condition, an address's base and indices), the others become vectors.
  Error widenElementwise(Instruction &instruction) {
    Type *type = widen(instruction.getType());
    if (type == nullptr)
      return compiler::codegenError("a varying value of type that has no vector form");
    auto *gep = dyn_cast<GetElementPtrInst>(&instruction);
    SmallVector<Value *, 4> operands; // computed first: they must come before the vector form
    for (unsigned index = 0; index < instruction.getNumOperands(); ++index) {
      Value *operand = instruction.getOperand(index);
      bool keepScalar = false;
      if (isa<SelectInst>(instruction) && index == 0)
        keepScalar = shapeOf(operand).isUniform();
      if (gep)
        keepScalar = shapeOf(operand).isUniform();
      if (isa<ExtractValueInst>(instruction) || isa<InsertValueInst>(instruction))
        if (operand->getType()->isAggregateType() && !shapeOf(operand).isVarying())
          return compiler::codegenError("a uniform aggregate in a varying one");
      operands.push_back(keepScalar ? operand : vectorOf(operand));
    }
    Instruction *vector = instruction.clone();
    vector->insertBefore(instruction.getIterator());
    vector->setName(instruction.getName());
    for (unsigned index = 0; index < operands.size(); ++index)
      vector->setOperand(index, operands[index]);
    vector->mutateType(type);
    replaceWith(instruction, vector);
    return Error::success();
  }

  Error widenAlloca(AllocaInst &alloca) {
    auto *count = dyn_cast<ConstantInt>(alloca.getArraySize());
    if (count == nullptr)
      return compiler::codegenError("a variable-length private array");
    // Lane l's copy sits at l * (the alloca's size): the strided shape of the alloca.
    Type *copy = ArrayType::get(alloca.getAllocatedType(), count->getZExtValue());
    auto *copies = new AllocaInst(ArrayType::get(copy, width_), alloca.getAddressSpace(), nullptr,
                                  alloca.getAlign(), alloca.getName(), alloca.getIterator());
    newShapes_[copies] = shapeOf(&alloca);
    alloca.replaceAllUsesWith(copies);
    replaced_.push_back(&alloca);
    return Error::success();
  }

  /// Whether `pointer` addresses W consecutive elements of `type`, one per lane.
  bool isContiguous(Value *pointer, Type *type) const {
    Shape shape = shapeOf(pointer);
    if (!(type->isIntegerTy() || type->isFloatingPointTy() || type->isPointerTy()) ||
        type->isIntegerTy(1))
      return false;
    uint64_t size = layout_.getTypeStoreSize(type);
    return shape.isStrided() && size == layout_.getTypeAllocSize(type) &&
           shape.stride() == int64_t(size);
  }

  Error widenLoad(LoadInst &load) {
    Value *pointer = load.getPointerOperand();
    Type *type = load.getType();
    IRBuilder<> builder(&load);
    Value *mask = maskOf(load);
    if (shapeOf(&load).isUniform()) {
      if (full_.contains(&load))
        return Error::success();
      // Some lane may not run it: load only when one does.
      if (!load.isSimple()) { // atomic or volatile: one load, when some lane runs
        Instruction *then =
            SplitBlockAndInsertIfThen(anyLane(builder, mask), load.getIterator(), false);
        BasicBlock *skipped = then->getParent()->getSinglePredecessor();
        BasicBlock *tail = load.getParent();
        load.moveBefore(then->getIterator());
        IRBuilder<> after(tail, tail->begin());
        PHINode *value = after.CreatePHI(type, 2, load.getName());
        newShapes_[value] = Shape::uniform();
        load.replaceAllUsesWith(value);
        value->addIncoming(&load, then->getParent());
        value->addIncoming(Constant::getNullValue(type), skipped);
        return Error::success();
      }
      if (type->isAggregateType())
        return compiler::codegenError("an aggregate load where not every lane runs");
      unsigned lanes = type->isVectorTy() ? cast<FixedVectorType>(type)->getNumElements() : 1;
      Type *vectorType = type->isVectorTy() ? type : FixedVectorType::get(type, 1);
      Value *enabled = builder.CreateVectorSplat(lanes, anyLane(builder, mask));
      Value *loaded = builder.CreateMaskedLoad(vectorType, pointer, load.getAlign(), enabled,
                                               Constant::getNullValue(vectorType));
      if (!type->isVectorTy())
        loaded = builder.CreateExtractElement(loaded, uint64_t(0));
      newShapes_[loaded] = Shape::uniform(); // the load's users look up its shape
      load.replaceAllUsesWith(loaded);
      replaced_.push_back(&load);
      return Error::success();
    }
    if (!load.isSimple())
      return perLane(load, mask);
    Type *vectorType = widen(type);
    if (vectorType == nullptr || type->isAggregateType() || type->isVectorTy())
      return compiler::codegenError("a varying load of a type that has no vector form");
    Value *lanes = vectorOf(mask);
    Value *zero = Constant::getNullValue(vectorType);
    Value *vector =
        isContiguous(pointer, type)
            ? builder.CreateMaskedLoad(vectorType, pointer, load.getAlign(), lanes, zero)
            : builder.CreateMaskedGather(vectorType, vectorOf(pointer), load.getAlign(), lanes,
                                         zero);
    vector->takeName(&load);
    replaceWith(load, vector);
    return Error::success();
  }

  Error widenStore(StoreInst &store) {
    Value *pointer = store.getPointerOperand();
    Value *value = store.getValueOperand();
    Type *type = value->getType();
    Value *mask = maskOf(store);
    IRBuilder<> builder(&store);
    if (shapeOf(pointer).isUniform() && shapeOf(value).isUniform()) {
      if (full_.contains(&store))
        return Error::success();
      if (!store.isSimple() || type->isAggregateType())
        return perLane(store, mask);
      unsigned lanes = type->isVectorTy() ? cast<FixedVectorType>(type)->getNumElements() : 1;
      Value *vector = type->isVectorTy() ? value : builder.CreateVectorSplat(1, value);
      Value *enabled = builder.CreateVectorSplat(lanes, anyLane(builder, mask));
      builder.CreateMaskedStore(vector, pointer, store.getAlign(), enabled);
      replaced_.push_back(&store);
      return Error::success();
    }
    if (!store.isSimple() || type->isAggregateType() || type->isVectorTy())
      return perLane(store, mask);
    if (shapeOf(pointer).isUniform())
      return storeLastActiveLane(store, builder, mask);
    Value *lanes = vectorOf(mask);
    if (isContiguous(pointer, type))
      builder.CreateMaskedStore(vectorOf(value), pointer, store.getAlign(), lanes);
    else // lanes storing to one address store in lane order: the last one's value stays
      builder.CreateMaskedScatter(vectorOf(value), vectorOf(pointer), store.getAlign(), lanes);
    replaced_.push_back(&store);
    return Error::success();
  }

  /// A store of varying values to one address (`if (lid == last) out[group] = x`): the lanes
  /// store in lane order, so the value of the last lane that runs it is the one that stays.
  /// One scalar store of that value, instead of a scatter of every lane to the same address
  /// (a scatter costs about as much with its lanes masked off as with them on).
  Error storeLastActiveLane(StoreInst &store, IRBuilder<> &builder, Value *mask) {
    // The highest set bit of the mask; with no lane active the index is out of range and the
    // store is off. Where every lane is active (full blocks, the groups assumeEveryLaneActive
    // marks, a uniform mask), the optimizer folds this to one plain store of the last lane.
    Type *bitsType = builder.getIntNTy(width_);
    Value *bits = builder.CreateBitCast(vectorOf(mask), bitsType, "lane.bits");
    Value *leading = builder.CreateBinaryIntrinsic(Intrinsic::ctlz, bits, builder.getFalse());
    Value *lane = builder.CreateSub(ConstantInt::get(bitsType, width_ - 1), leading, "last.lane");
    Value *last =
        builder.CreateExtractElement(vectorOf(store.getValueOperand()), lane, "last.lane.value");
    builder.CreateMaskedStore(builder.CreateVectorSplat(1, last), store.getPointerOperand(),
                              store.getAlign(),
                              builder.CreateVectorSplat(1, anyLane(builder, mask)));
    replaced_.push_back(&store);
    return Error::success();
  }

  /// A member of an interleaved group: the group's loads are read together where the first of
  /// them is, its stores written together where the last is.
  Error widenInterleaved(const InterleavedGroup &group, Instruction &member) {
    replaced_.push_back(&member);
    if (!group.isStore && &member == group.first) {
      SmallVector<Value *, 16> components = loadInterleaved(group);
      for (unsigned component = 0; component < group.factor; ++component) {
        components[component]->takeName(group.members[component]);
        vectors_[group.members[component]] = components[component];
      }
    }
    if (group.isStore && &member == group.last)
      storeInterleaved(group);
    return Error::success();
  }

  /// Lanes per piece of an interleaved group: one vector register's worth of elements, whose
  /// components the backend separates with a few shuffles.
  unsigned pieceLanes(Type *element) const {
    unsigned bits = static_cast<unsigned>(layout_.getTypeStoreSizeInBits(element));
    return std::clamp(registerBits_ / bits, 1u, width_);
  }

  /// The lanes `[lane, lane + count)` of the active-lane mask, each repeated `factor` times: the
  /// mask of the elements those lanes' components occupy.
  Value *pieceMask(IRBuilder<> &builder, Value *lanes, unsigned lane, unsigned count,
                   unsigned factor) {
    SmallVector<int, 64> indices;
    for (unsigned element = 0; element < count * factor; ++element)
      indices.push_back(static_cast<int>(lane + element / factor));
    return builder.CreateShuffleVector(lanes, indices);
  }

  /// The group's run starts at the first access's address plus a constant.
  Value *runStart(IRBuilder<> &builder, const InterleavedGroup &group) {
    return builder.CreateConstGEP1_64(builder.getInt8Ty(), getLoadStorePointerOperand(group.first),
                                      group.startFromFirst, "interleaved.run");
  }

  SmallVector<Value *, 16> loadInterleaved(const InterleavedGroup &group) {
    IRBuilder<> builder(group.first);
    Value *start = runStart(builder, group);
    // Masked like any varying access: lanes past the end of the work-group must not touch memory
    // (in the SIMD groups that have none, the mask folds to a constant and the loads are plain).
    Value *lanes = vectorOf(maskOf(*group.first));
    unsigned factor = group.factor, count = pieceLanes(group.elementType);
    uint64_t size = layout_.getTypeStoreSize(group.elementType);
    auto *pieceType = FixedVectorType::get(group.elementType, count * factor);
    SmallVector<SmallVector<Value *, 8>, 16> pieces(factor);
    for (unsigned lane = 0; lane < width_; lane += count) {
      uint64_t bytes = uint64_t(lane) * factor * size;
      Value *at = builder.CreateConstGEP1_64(builder.getInt8Ty(), start, bytes);
      Align align = commonAlignment(group.startAlign, bytes);
      Value *run = builder.CreateMaskedLoad(pieceType, at, align,
                                            pieceMask(builder, lanes, lane, count, factor),
                                            Constant::getNullValue(pieceType));
      for (unsigned component = 0; component < factor; ++component)
        pieces[component].push_back(
            builder.CreateShuffleVector(run, createStrideMask(component, factor, count)));
    }
    SmallVector<Value *, 16> components;
    for (SmallVector<Value *, 8> &parts : pieces)
      components.push_back(parts.size() == 1 ? parts[0] : concatenateVectors(builder, parts));
    return components;
  }

  void storeInterleaved(const InterleavedGroup &group) {
    IRBuilder<> builder(group.last);
    SmallVector<Value *, 16> values;
    for (Instruction *member : group.members)
      values.push_back(vectorOf(cast<StoreInst>(member)->getValueOperand()));
    Value *start = runStart(builder, group);
    Value *lanes = vectorOf(maskOf(*group.last));
    unsigned factor = group.factor, count = pieceLanes(group.elementType);
    uint64_t size = layout_.getTypeStoreSize(group.elementType);
    for (unsigned lane = 0; lane < width_; lane += count) {
      SmallVector<Value *, 16> parts;
      for (Value *value : values)
        parts.push_back(count == width_ ? value
                                        : builder.CreateShuffleVector(
                                              value, createSequentialMask(lane, count, 0)));
      Value *run = builder.CreateShuffleVector(concatenateVectors(builder, parts),
                                               createInterleaveMask(count, factor));
      uint64_t bytes = uint64_t(lane) * factor * size;
      Value *at = builder.CreateConstGEP1_64(builder.getInt8Ty(), start, bytes);
      Align align = commonAlignment(group.startAlign, bytes);
      builder.CreateMaskedStore(run, at, align, pieceMask(builder, lanes, lane, count, factor));
    }
  }

  Error widenCall(CallInst &call) {
    Function *callee = call.getCalledFunction();
    if (compiler::SubGroupPrimitive primitive = compiler::subGroupPrimitive(call);
        primitive != compiler::SubGroupPrimitive::None)
      return widenSubGroupPrimitive(call, primitive);
    bool uniformArguments = all_of(
        call.args(), [&](const Use &argument) { return shapeOf(argument.get()).isUniform(); });
    if (seeds_.isBarrier(call))
      return Error::success(); // linearization left it where the whole group runs it
    if (callee && callee == seeds_.localId) {
      if (!shapeOf(&call).isVarying())
        return Error::success();
      // Dimension not known: the base of the group's lanes, plus the lane in dimension 0.
      IRBuilder<> builder(call.getNextNode());
      Value *isX = builder.CreateICmpEQ(call.getArgOperand(0),
                                        ConstantInt::get(call.getArgOperand(0)->getType(), 0));
      Value *steps = builder.CreateSelect(isX, laneSteps(call.getType(), 1),
                                          Constant::getNullValue(widen(call.getType())));
      vectors_[&call] =
          builder.CreateAdd(builder.CreateVectorSplat(width_, &call), steps, "local.id.lanes");
      return Error::success();
    }
    if (shapeOf(&call).isUniform() && uniformArguments) {
      // Work-group primitives, functions without side effects and barriers run once for the
      // group; any other call with side effects runs once per work-item.
      if (call.getType()->isVoidTy() && !seeds_.isBarrier(call) && !call.doesNotAccessMemory())
        return perLane(call, maskOf(call));
      return Error::success();
    }
    if (Intrinsic::ID id = call.getIntrinsicID();
        id != Intrinsic::not_intrinsic && isTriviallyVectorizable(id))
      if (Value *vector = vectorIntrinsic(call, id)) {
        replaceWith(call, vector);
        return Error::success();
      }
    bool pure = call.doesNotAccessMemory();
    return perLane(call, pure ? nullptr : maskOf(call));
  }

  /// The vectorizer runs a kernel that crosses sub-group lanes with as many lanes as its
  /// sub-groups have: lane i of a SIMD group is the work-item of sub-group local id i.
  Error widenSubGroupPrimitive(CallInst &call, compiler::SubGroupPrimitive primitive) {
    IRBuilder<> builder(&call);
    auto replaceByScalar = [&](Value *value) {
      newShapes_[value] = Shape::uniform(); // the same in every lane, as the call was
      call.replaceAllUsesWith(value);
      replaced_.push_back(&call);
      return Error::success();
    };
    switch (primitive) {
    case compiler::SubGroupPrimitive::LocalId:
      replaceWith(call, laneSteps(call.getType(), 1));
      return Error::success();
    case compiler::SubGroupPrimitive::Shuffle:
      if (shapeOf(&call).isUniform() && shapeOf(call.getArgOperand(0)).isUniform())
        return replaceByScalar(call.getArgOperand(0));
      if (shapeOf(&call).isUniform())
        return replaceByScalar(builder.CreateExtractElement(
            vectorOf(call.getArgOperand(0)), laneIndex(builder, call.getArgOperand(1))));
      replaceWith(call, shuffledLanes(builder, vectorOf(call.getArgOperand(0)),
                                      vectorOf(call.getArgOperand(1))));
      return Error::success();
    case compiler::SubGroupPrimitive::Ballot: {
      Value *predicate = call.getArgOperand(0);
      Value *set = builder.CreateIsNotNull(vectorOf(predicate));
      Value *lanes = builder.CreateAnd(set, vectorOf(maskOf(call)));
      Value *bits = builder.CreateBitCast(lanes, builder.getIntNTy(width_));
      return replaceByScalar(builder.CreateZExt(bits, call.getType(), "ballot"));
    }
    case compiler::SubGroupPrimitive::Barrier:
      replaced_.push_back(&call); // the lanes run in step
      return Error::success();
    default:
      return Error::success(); // the width and the id are the same in every lane
    }
  }

  /// A sub-group local id as an index into the lanes; out of range is undefined, kept inside.
  Value *laneIndex(IRBuilder<> &builder, Value *lane) {
    return builder.CreateAnd(lane, ConstantInt::get(lane->getType(), width_ - 1));
  }

  /// Lane i of the result is lane lanes[i] of `vector`: one shufflevector when the lanes are
  /// constants, else lane by lane (the optimizer folds these once loops are unrolled).
  Value *shuffledLanes(IRBuilder<> &builder, Value *vector, Value *lanes) {
    if (auto *constant = dyn_cast<Constant>(lanes)) {
      SmallVector<int, 64> mask;
      for (unsigned lane = 0; lane < width_; ++lane) {
        auto *index = dyn_cast_or_null<ConstantInt>(constant->getAggregateElement(lane));
        mask.push_back(index ? int(index->getZExtValue() & (width_ - 1)) : PoisonMaskElem);
      }
      return builder.CreateShuffleVector(vector, mask, "lanes.shuffled");
    }
    Value *result = PoisonValue::get(vector->getType());
    for (unsigned lane = 0; lane < width_; ++lane) {
      Value *index = laneIndex(builder, builder.CreateExtractElement(lanes, lane));
      result =
          builder.CreateInsertElement(result, builder.CreateExtractElement(vector, index), lane);
    }
    return result;
  }

  Value *vectorIntrinsic(CallInst &call, Intrinsic::ID id) {
    Type *type = widen(call.getType());
    if (type == nullptr || call.getType()->isVectorTy())
      return nullptr;
    SmallVector<Type *, 4> overloads;
    SmallVector<Value *, 4> arguments;
    if (isVectorIntrinsicWithOverloadTypeAtArg(id, -1, nullptr))
      overloads.push_back(type);
    for (unsigned index = 0; index < call.arg_size(); ++index) {
      Value *argument = call.getArgOperand(index);
      if (isVectorIntrinsicWithScalarOpAtArg(id, index, nullptr)) {
        if (!shapeOf(argument).isUniform())
          return nullptr;
        arguments.push_back(argument);
      } else {
        if (argument->getType()->isVectorTy())
          return nullptr;
        arguments.push_back(vectorOf(argument));
      }
      if (isVectorIntrinsicWithOverloadTypeAtArg(id, index, nullptr))
        overloads.push_back(arguments.back()->getType());
    }
    Function *declaration = Intrinsic::getOrInsertDeclaration(function_.getParent(), id, overloads);
    IRBuilder<> builder(&call);
    CallInst *vector = builder.CreateCall(declaration, arguments, call.getName());
    vector->copyFastMathFlags(&call);
    return vector;
  }

  /// An integer add or sub of every lane to one address (uniform_atomics.hpp) as one atomic of
  /// the active lanes' sum, made when some lane is active; each lane's result is the value before
  /// it plus (or less) the values of the active lanes before its own.
  Error widenCombinedAtomic(AtomicRMWInst &atomic, Value *mask) {
    IRBuilder<> builder(&atomic);
    Value *laneMasks = mask ? vectorOf(mask) : nullptr;
    if (laneMasks && isConstantFullMask(laneMasks))
      laneMasks = nullptr;
    Value *values = vectorOf(atomic.getValOperand());
    if (laneMasks)
      values = builder.CreateSelect(laneMasks, values, Constant::getNullValue(values->getType()),
                                    "lanes.active");
    Value *total = builder.CreateAddReduce(values);
    Instruction *at = &atomic;
    BasicBlock *before = atomic.getParent();
    if (laneMasks)
      at = SplitBlockAndInsertIfThen(anyLane(builder, mask), atomic.getIterator(), false);
    auto *combined = cast<AtomicRMWInst>(atomic.clone());
    combined->insertBefore(at->getIterator());
    combined->setOperand(1, total); // the value the atomic adds
    combined->setName(atomic.getName() + ".lanes");
    if (!atomic.use_empty()) {
      IRBuilder<> after(&atomic);
      Value *old = combined;
      if (laneMasks) {
        PHINode *phi = after.CreatePHI(atomic.getType(), 2);
        phi->addIncoming(combined, combined->getParent());
        phi->addIncoming(Constant::getNullValue(atomic.getType()), before);
        old = phi;
      }
      Value *sumsBefore = exclusiveLaneSums(after, values);
      Value *olds = after.CreateVectorSplat(width_, old);
      replaceWith(atomic, atomic.getOperation() == AtomicRMWInst::Add
                              ? after.CreateAdd(olds, sumsBefore, atomic.getName() + ".lanes")
                              : after.CreateSub(olds, sumsBefore, atomic.getName() + ".lanes"));
      return Error::success();
    }
    replaced_.push_back(&atomic);
    return Error::success();
  }

  /// Runs `instruction` once per lane, in lane order; under `mask` (when not null) only for the
  /// lanes it holds. Its result, if any, becomes a vector of the lanes' results.
  Error perLane(Instruction &instruction, Value *mask) {
    Type *type = instruction.getType();
    Type *vectorType = type->isVoidTy() ? nullptr : widen(type);
    if (!type->isVoidTy() && vectorType == nullptr)
      return compiler::codegenError(Twine("a varying '") + instruction.getOpcodeName() +
                                    "' whose result has no vector form");
    for (const Use &operand : instruction.operands())
      if (!shapeOf(operand.get()).isUniform() && widen(operand->getType()) == nullptr &&
          !isa<Function>(operand.get()))
        return compiler::codegenError(Twine("a varying '") + instruction.getOpcodeName() +
                                      "' whose operands have no vector form");
    // Every lane active: the copies need no test of their lane's bit.
    Value *laneMasks = mask ? vectorOf(mask) : nullptr;
    if (laneMasks && isConstantFullMask(laneMasks))
      laneMasks = nullptr;
    // The operands' vectors, before any block is split: each lane's copy extracts from them,
    // or reads its address from a stack slot (spillAddresses). Strided operands need neither:
    // each lane's value is the scalar one (lane 0's) plus a constant. Nor do operands each copy
    // recomputes from scalar code (lane_recomputation.hpp).
    LaneOperands operands;
    for (Use &operand : instruction.operands()) {
      Value *value = operand.get();
      Shape shape = shapeOf(value);
      bool scalar = shape.isUniform() || isa<Function>(value) || isa<BasicBlock>(value);
      bool stepped = !scalar && shape.isStrided() && isSteppable(value->getType());
      bool recomputed = !scalar && !stepped && recomputation_->recomputable(value, instruction);
      bool fromVector = !scalar && !stepped && !recomputed;
      operands.strides.push_back(stepped ? shape.stride() : 0);
      operands.recomputed.push_back(recomputed);
      operands.vectors.push_back(fromVector ? vectorOf(value) : nullptr);
      operands.addressSlots.push_back(
          fromVector ? spillAddresses(operands.vectors.back(), operand.getOperandNo(), instruction)
                     : nullptr);
    }
    Value *result = nullptr;
    if (laneMasks && isMemoryAccess(instruction))
      result = laneCopiesOrFullMaskPath(instruction, operands, laneMasks);
    else
      result = laneCopies(instruction, instruction, operands, laneMasks);
    if (vectorType)
      vectors_[&instruction] = result;
    replaced_.push_back(&instruction);
    return Error::success();
  }

  /// What perLane's copies of an instruction take in place of its operands: a vector to
  /// extract each lane's value from, a stack slot with each lane's address, the stride that
  /// steps the operand itself from lane to lane, or whether each copy recomputes it (null, 0
  /// and false for operands that are the same in every lane).
  struct LaneOperands {
    SmallVector<Value *, 8> vectors;
    SmallVector<AllocaInst *, 8> addressSlots;
    SmallVector<int64_t, 8> strides;
    SmallVector<bool, 8> recomputed;
  };

  /// An access to memory, whose per-lane copy is one or two machine instructions: the test and
  /// branch on its lane's mask bit would cost as much again.
  static bool isMemoryAccess(const Instruction &instruction) {
    return isa<LoadInst, StoreInst, AtomicRMWInst, AtomicCmpXchgInst>(instruction);
  }

  /// perLane's copies of a memory access under a mask that is usually full (a loop's or a
  /// branch's): when every lane is active, one copy per lane with no test between them, as in
  /// the 64 increments of local counters per line of the suite's histogram; otherwise one per
  /// active lane. Returns the lanes' results as a vector (null when there is none).
  Value *laneCopiesOrFullMaskPath(Instruction &instruction, const LaneOperands &operands,
                                  Value *laneMasks) {
    IRBuilder<> builder(&instruction);
    Value *full = allLanesSet(builder, laneMasks, "lanes.all");
    Instruction *fullPath = nullptr;
    Instruction *maskedPath = nullptr;
    SplitBlockAndInsertIfThenElse(full, instruction.getIterator(), &fullPath, &maskedPath);
    Value *unmasked = laneCopies(instruction, *fullPath, operands, nullptr);
    Value *masked = laneCopies(instruction, *maskedPath, operands, laneMasks);
    if (unmasked == nullptr)
      return nullptr;
    BasicBlock *tail = instruction.getParent();
    builder.SetInsertPoint(tail, tail->getFirstInsertionPt());
    PHINode *merged = builder.CreatePHI(unmasked->getType(), 2, instruction.getName() + ".lanes");
    merged->addIncoming(unmasked, fullPath->getParent());
    merged->addIncoming(masked, maskedPath->getParent());
    return merged;
  }

  /// One copy of `instruction` per lane, in lane order, placed before `insertionPoint`; under
  /// `laneMasks` (when not null) each behind a branch on its lane's bit. Returns the lanes'
  /// results as a vector (null when there is none).
  Value *laneCopies(Instruction &instruction, Instruction &insertionPoint,
                    const LaneOperands &operands, Value *laneMasks) {
    Type *type = instruction.getType();
    Value *result = type->isVoidTy() ? nullptr : Constant::getNullValue(widen(type));
    for (unsigned lane = 0; lane < width_; ++lane) {
      IRBuilder<> builder(&insertionPoint);
      Instruction *at = &insertionPoint;
      BasicBlock *before = insertionPoint.getParent();
      if (laneMasks) {
        Value *enabled = builder.CreateExtractElement(laneMasks, lane);
        at = SplitBlockAndInsertIfThen(enabled, insertionPoint.getIterator(), false);
      }
      Instruction *copy = instruction.clone();
      copy->insertBefore(at->getIterator());
      IRBuilder<> laneBuilder(copy);
      for (unsigned index = 0; index < operands.vectors.size(); ++index)
        if (AllocaInst *slot = operands.addressSlots[index])
          copy->setOperand(index, loadLaneAddress(laneBuilder, *slot, lane));
        else if (Value *vector = operands.vectors[index])
          copy->setOperand(index, extractLane(laneBuilder, vector, lane));
        else if (int64_t stride = operands.strides[index])
          copy->setOperand(index,
                           stepLane(laneBuilder, instruction.getOperand(index), stride, lane));
        else if (operands.recomputed[index])
          copy->setOperand(
              index, recomputation_->recompute(laneBuilder, instruction.getOperand(index), lane));
      if (result == nullptr)
        continue;
      Value *laneValue = copy;
      IRBuilder<> after(&insertionPoint);
      if (laneMasks) {
        PHINode *phi = after.CreatePHI(type, 2);
        phi->addIncoming(copy, copy->getParent());
        phi->addIncoming(Constant::getNullValue(type), before);
        laneValue = phi;
      }
      result = insertLane(after, result, laneValue, lane);
    }
    return result;
  }

  /// For perLane: a stack slot holding `lanes` when it is a vector of addresses, stored there
  /// before `instruction`; null for other operands. Each lane's copy then loads its address from
  /// the slot, where the processor sees it as soon as the store is done, instead of extracting it
  /// from the vector register: moved from a vector register, the addresses of a long run of
  /// per-lane memory accesses come late, and a 2-core Zen 4 ran such a run (64 increments of
  /// local counters) at 9 ns a lane against 0.8 ns with the addresses in memory (the suite's
  /// histogram at 64 lanes).
  ///
  /// One slot serves every per-lane access's operand `operandNo` of that type: each access reads
  /// it before the next stores to it. (In kernels with barriers, every slot becomes private
  /// memory of each SIMD group.)
  AllocaInst *spillAddresses(Value *lanes, unsigned operandNo, Instruction &instruction) {
    auto *type = dyn_cast<FixedVectorType>(lanes->getType());
    if (type == nullptr || !type->getElementType()->isPointerTy())
      return nullptr;
    AllocaInst *&slot = addressSlots_[{type, operandNo}];
    if (slot == nullptr) {
      BasicBlock &entry = function_.getEntryBlock();
      IRBuilder<> atEntry(&entry, entry.getFirstInsertionPt());
      slot = atEntry.CreateAlloca(type, nullptr, "lane.addresses");
    }
    IRBuilder<> builder(&instruction);
    builder.CreateAlignedStore(lanes, slot, slot->getAlign());
    return slot;
  }

  /// Lane `lane` of the addresses spillAddresses stored in `slot`. Volatile: the optimizer
  /// would otherwise turn the load back into an extract from the stored vector.
  Value *loadLaneAddress(IRBuilder<> &builder, AllocaInst &slot, unsigned lane) {
    Type *address = cast<VectorType>(slot.getAllocatedType())->getElementType();
    Value *element = builder.CreateConstInBoundsGEP1_32(address, &slot, lane);
    return builder.CreateAlignedLoad(address, element, layout_.getABITypeAlign(address),
                                     /*isVolatile=*/true);
  }

  /// Lane `lane` of a widened value (a vector, or an aggregate of vectors).
  Value *extractLane(IRBuilder<> &builder, Value *wide, unsigned lane) {
    Type *type = wide->getType();
    if (type->isVectorTy())
      return builder.CreateExtractElement(wide, lane);
    Value *scalar = PoisonValue::get(narrow(type));
    unsigned count =
        isa<StructType>(type) ? type->getStructNumElements() : type->getArrayNumElements();
    for (unsigned field = 0; field < count; ++field)
      scalar = builder.CreateInsertValue(
          scalar, extractLane(builder, builder.CreateExtractValue(wide, field), lane), field);
    return scalar;
  }

  Value *insertLane(IRBuilder<> &builder, Value *wide, Value *scalar, unsigned lane) {
    Type *type = wide->getType();
    if (type->isVectorTy())
      return builder.CreateInsertElement(wide, scalar, lane);
    unsigned count =
        isa<StructType>(type) ? type->getStructNumElements() : type->getArrayNumElements();
    for (unsigned field = 0; field < count; ++field)
      wide = builder.CreateInsertValue(wide,
                                       insertLane(builder, builder.CreateExtractValue(wide, field),
                                                  builder.CreateExtractValue(scalar, field), lane),
                                       field);
    return wide;
  }

  Type *narrow(Type *wide) const {
    if (auto *vector = dyn_cast<VectorType>(wide))
      return vector->getElementType();
    if (auto *structure = dyn_cast<StructType>(wide)) {
      SmallVector<Type *, 4> fields;
      for (Type *field : structure->elements())
        fields.push_back(narrow(field));
      return StructType::get(context_, fields);
    }
    auto *array = cast<ArrayType>(wide);
    return ArrayType::get(narrow(array->getElementType()), array->getNumElements());
  }

  Function &function_;
  const ShapeAnalysis &shapes_;
  const LinearizedControl &control_;
  ShapeSeeds seeds_;
  unsigned width_;
  unsigned registerBits_;
  const DataLayout &layout_;
  LLVMContext &context_;
  InterleavedGroups groups_;
  DenseMap<Value *, Value *> vectors_;
  Instruction *user_ = nullptr; // the instruction being widened: where allocas are materialized
  DenseMap<const Value *, Shape> newShapes_; // of the values widening creates
  DenseMap<Instruction *, Value *> laneMask_;
  DenseMap<std::pair<Type *, unsigned>, AllocaInst *> addressSlots_; // see spillAddresses
  DenseSet<const Instruction *> full_;
  std::optional<LaneRecomputation> recomputation_; // of the code before widening
  std::vector<std::pair<PHINode *, PHINode *>> phis_;
  std::vector<Instruction *> replaced_;
};

} // namespace

Error widenInstructions(Function &function, const ShapeAnalysis &shapes,
                        const LinearizedControl &control, ShapeSeeds seeds, unsigned width,
                        unsigned registerBits) {
  return Widener(function, shapes, control, seeds, width, registerBits).run();
}

} // namespace kiln::cpu::vectorizer
