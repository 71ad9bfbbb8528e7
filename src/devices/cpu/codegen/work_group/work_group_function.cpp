//===- work_group_function.cpp - A kernel as a work-group function -------===//
#include "devices/cpu/codegen/work_group/work_group_function.hpp"

#include "compiler/llvm/argument_block_reads.hpp"
#include "compiler/llvm/codegen_error.hpp"
#include "compiler/llvm/printf_lowering.hpp"
#include "compiler/llvm/printf_reservation.hpp"
#include "compiler/llvm/spir_address_spaces.hpp"
#include "compiler/work_group_scratch.hpp"
#include "devices/cpu/codegen/optimization/pass_pipelines.hpp"
#include "devices/cpu/codegen/preparation/address_space_queries.hpp"
#include "devices/cpu/codegen/preparation/local_atomics.hpp"
#include "devices/cpu/codegen/vectorizer/work_item_vectorizer.hpp"
#include "devices/cpu/codegen/work_group/barrier_regions.hpp"
#include "devices/cpu/codegen/work_group/grid_stride_turns.hpp"
#include "devices/cpu/codegen/work_group/image_format_constants.hpp"
#include "devices/cpu/codegen/work_group/spin_loop_yields.hpp"
#include "devices/cpu/work_group_abi.hpp"

#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"

#include <cstddef>

using namespace llvm;

namespace kiln::cpu {
namespace {

/// How many rounds of inlining a kernel may need; more means recursion, which OpenCL C forbids.
constexpr unsigned kMaxInliningRounds = 64;

/// The calls of `callee` that stand in `function`, gathered first so that each may be replaced.
SmallVector<CallInst *, 16> callsIn(Function &function, Function *callee) {
  SmallVector<CallInst *, 16> calls;
  if (callee != nullptr)
    for (User *user : callee->users())
      if (auto *call = dyn_cast<CallInst>(user); call && call->getFunction() == &function)
        calls.push_back(call);
  return calls;
}

/// Emits the prologue's reads of the launch and work-group parameters.
class ParameterReader {
public:
  ParameterReader(IRBuilder<> &builder, Value *launch, Value *group)
      : builder_(builder), launch_(launch), group_(group) {}

  Value *pointerField(Value *base, size_t offset, const Twine &name) {
    return builder_.CreateLoad(builder_.getPtrTy(), fieldAddress(base, offset), name);
  }
  Value *sizeField(Value *base, size_t offset, const Twine &name) {
    return builder_.CreateLoad(builder_.getInt64Ty(), fieldAddress(base, offset), name);
  }
  Value *launchPointer(size_t offset, const Twine &name) {
    return pointerField(launch_, offset, name);
  }
  Value *groupPointer(size_t offset, const Twine &name) {
    return pointerField(group_, offset, name);
  }
  Value *launchSize(size_t offset, const Twine &name) { return sizeField(launch_, offset, name); }
  Value *groupSize(size_t offset, const Twine &name) { return sizeField(group_, offset, name); }

  /// Element `dim` of a uint64_t[3] field at `at`; `dim` may be any i32 value below 3.
  static Value *dimension(IRBuilder<> &at, Value *base, size_t offset, Value *dim,
                          const Twine &name) {
    Value *index = at.CreateZExt(dim, at.getInt64Ty());
    Value *address = at.CreateGEP(at.getInt64Ty(), fieldAddress(at, base, offset), index);
    return at.CreateLoad(at.getInt64Ty(), address, name);
  }

  Value *launch() const { return launch_; }
  Value *group() const { return group_; }

private:
  Value *fieldAddress(Value *base, size_t offset) { return fieldAddress(builder_, base, offset); }
  static Value *fieldAddress(IRBuilder<> &at, Value *base, size_t offset) {
    return at.CreateConstInBoundsGEP1_64(at.getInt8Ty(), base, offset);
  }

  IRBuilder<> &builder_;
  Value *launch_;
  Value *group_;
};

/// Marks the prologue's reads of buffer arguments (isBufferArgument).
constexpr const char *kBufferArgumentMark = "kiln.buffer_argument";

/// What the reads of the argument block assume of their addresses: nothing. The block is the
/// runtime's copy, aligned to a cache line, and an argument's alignment may be more than that
/// (compiler/argument_block.hpp, where the devices differ).
constexpr Align kArgumentReadAlignment = Align::Constant<1>();

/// The kernel's arguments, read from the argument block (layout: compiler/argument_block.hpp).
Expected<SmallVector<Value *, 8>> readArguments(IRBuilder<> &builder, Function &kernel,
                                                const compiler::KernelInfo &info, Value *block,
                                                Value *localMemory) {
  unsigned images = 0;
  auto read = [&](const compiler::KernelArgInfo &arg, Argument &parameter,
                  Value *slot) -> Expected<Value *> {
    Type *type = parameter.getType();
    Value *value = nullptr;
    switch (arg.kind) {
    case compiler::ArgKind::GlobalPointer:
    case compiler::ArgKind::ConstantPointer: {
      auto *load = builder.CreateAlignedLoad(builder.getPtrTy(), slot, kArgumentReadAlignment);
      load->setMetadata(kBufferArgumentMark, MDNode::get(builder.getContext(), {}));
      value = load;
      break;
    }
    case compiler::ArgKind::Image: { // the address of its descriptor
      auto *load = builder.CreateAlignedLoad(builder.getPtrTy(), slot, kArgumentReadAlignment);
      markImageArgument(*load, images++);
      value = load;
      break;
    }
    case compiler::ArgKind::Pipe:    // the address of its storage
    case compiler::ArgKind::Sampler: // its CLK_* bits (image_accessors.hpp)
    case compiler::ArgKind::Queue:   // its handle (runtime/objects/device_queues.hpp)
      value = builder.CreateAlignedLoad(builder.getPtrTy(), slot, kArgumentReadAlignment);
      break;
    case compiler::ArgKind::LocalPointer: {
      // An offset from the start of the whole local memory, the kernel's own variables included.
      Value *offset = builder.CreateAlignedLoad(builder.getInt64Ty(), slot, kArgumentReadAlignment);
      value = builder.CreateGEP(builder.getInt8Ty(), localMemory, offset);
      break;
    }
    case compiler::ArgKind::Value:
      // A struct passed by value arrives as a pointer to a private copy (byval); the inliner
      // makes that copy, so the block itself is never written.
      value = parameter.hasByValAttr()
                  ? slot
                  : builder.CreateAlignedLoad(type, slot, kArgumentReadAlignment);
      break;
    default:
      return compiler::codegenError("kernel '" + info.name +
                                    "' has an argument of a kind the CPU device does not know");
    }
    if (value->getType() != type)
      value = builder.CreatePointerBitCastOrAddrSpaceCast(value, type);
    return value;
  };
  return compiler::readKernelArguments(builder, kernel, info, block, read);
}

/// Inlines every call to a defined function, repeatedly, until only declarations are called.
Error inlineEverything(Function &function) {
  for (unsigned round = 0;; ++round) {
    SmallVector<CallBase *, 16> calls;
    for (Instruction &instruction : instructions(function))
      if (auto *call = dyn_cast<CallBase>(&instruction))
        if (Function *callee = call->getCalledFunction(); callee && !callee->isDeclaration())
          calls.push_back(call);
    if (calls.empty())
      return Error::success();
    if (round == kMaxInliningRounds)
      return compiler::codegenError("recursion is not supported (function '" +
                                    calls.front()->getCalledFunction()->getName() + "')");
    for (CallBase *call : calls) {
      InlineFunctionInfo info;
      InlineResult result = InlineFunction(*call, info);
      if (!result.isSuccess())
        return compiler::codegenError("cannot inline '" + call->getCalledFunction()->getName() +
                                      "': " + result.getFailureReason());
    }
  }
}

/// Places the __local variables the function uses at the start of the work-group's local
/// memory, in module order, each at its alignment; the front end reports the same layout's
/// size as the kernel's static local memory.
Error placeLocalVariables(Module &module, Function &function, IRBuilder<> &prologue,
                          Value *localMemory, const compiler::KernelInfo &info) {
  SmallVector<Constant *, 8> locals;
  for (GlobalVariable &variable : module.globals())
    if (variable.getAddressSpace() == compiler::spir::kLocalAddressSpace)
      locals.push_back(&variable);
  if (locals.empty())
    return Error::success();
  convertUsersOfConstantsToInstructions(locals, &function);

  const DataLayout &layout = module.getDataLayout();
  uint64_t offset = 0;
  for (Constant *constant : locals) {
    auto *variable = cast<GlobalVariable>(constant);
    bool used = any_of(variable->users(), [&](User *user) {
      auto *instruction = dyn_cast<Instruction>(user);
      return instruction && instruction->getFunction() == &function;
    });
    if (!used)
      continue;
    Align alignment =
        layout.getValueOrABITypeAlignment(variable->getAlign(), variable->getValueType());
    offset = alignTo(offset, alignment);
    Value *address = prologue.CreateConstInBoundsGEP1_64(prologue.getInt8Ty(), localMemory, offset,
                                                         variable->getName());
    address = prologue.CreateAddrSpaceCast(address, variable->getType());
    variable->replaceUsesWithIf(address, [&](Use &use) {
      auto *instruction = dyn_cast<Instruction>(use.getUser());
      return instruction && instruction->getFunction() == &function;
    });
    offset += layout.getTypeAllocSize(variable->getValueType());
  }
  if (offset > info.staticLocalMemSize)
    return compiler::codegenError("kernel '" + info.name + "' needs " + Twine(offset) +
                                  " bytes of __local variables but the front end reported " +
                                  Twine(info.staticLocalMemSize));
  return Error::success();
}

/// The primitives whose value is one of the work-group's or the launch's parameters, per
/// dimension: what replaceGroupPrimitives reads them from.
struct GroupParameterField {
  const char *name;
  bool inLaunch;
  size_t offset;
};
constexpr GroupParameterField kGroupParameterFields[] = {
    {"__kiln_group_id", false, offsetof(WorkGroupParams, groupId)},
    {"__kiln_local_size", false, offsetof(WorkGroupParams, localSize)},
    {"__kiln_enqueued_local_size", true, offsetof(LaunchParams, enqueuedLocalSize)},
    {"__kiln_num_groups", true, offsetof(LaunchParams, numGroups)},
    {"__kiln_global_size", true, offsetof(LaunchParams, globalSize)},
    {"__kiln_global_offset", true, offsetof(LaunchParams, globalOffset)},
};
constexpr const char *kWorkDimPrimitive = "__kiln_work_dim";

/// The declarations of the primitives every work-item of a work-group reads alike.
SmallVector<const Function *, 8> groupPrimitivesOf(const Module &module) {
  SmallVector<const Function *, 8> primitives;
  for (const GroupParameterField &field : kGroupParameterFields)
    if (const Function *primitive = module.getFunction(field.name))
      primitives.push_back(primitive);
  if (const Function *primitive = module.getFunction(kWorkDimPrimitive))
    primitives.push_back(primitive);
  return primitives;
}

} // namespace

/// Replaces the calls of the work-item primitives that `shape` determines by constants: the
/// local and enqueued sizes, and the global offset when it is zero. Calls with a dimension that
/// is not a constant keep reading the parameters (replaceGroupPrimitives).
void substituteShapeConstants(Module &module, Function &function, const WorkGroupShape &shape) {
  auto substitute = [&](const char *name, auto valueOf) {
    for (CallInst *call : callsIn(function, module.getFunction(name))) {
      auto *dim = dyn_cast<ConstantInt>(call->getArgOperand(0));
      if (dim == nullptr || dim->getZExtValue() >= 3)
        continue;
      call->replaceAllUsesWith(ConstantInt::get(call->getType(), valueOf(dim->getZExtValue())));
      call->eraseFromParent();
    }
  };
  substitute("__kiln_local_size", [&](uint64_t dim) { return shape.localSize[dim]; });
  substitute("__kiln_enqueued_local_size",
             [&](uint64_t dim) { return shape.enqueuedLocalSize[dim]; });
  if (shape.zeroOffset)
    substitute("__kiln_global_offset", [](uint64_t) { return uint64_t{0}; });
}

void foldShapeConstants(Function &function) {
  const DataLayout &layout = function.getDataLayout();
  for (bool folded = true; folded;) {
    folded = false;
    for (Instruction &instruction : make_early_inc_range(instructions(function)))
      if (Constant *value = ConstantFoldInstruction(&instruction, layout)) {
        instruction.replaceAllUsesWith(value);
        instruction.eraseFromParent();
        folded = true;
      }
  }
  for (BasicBlock &block : function)
    ConstantFoldTerminator(&block, /*DeleteDeadConditions=*/true);
  removeUnreachableBlocks(function);
}

bool isBufferArgument(const Value *value) {
  const auto *read = dyn_cast<LoadInst>(value);
  return read != nullptr && read->getMetadata(kBufferArgumentMark) != nullptr;
}

std::string workGroupFunctionName(const std::string &kernelName) {
  return "__kiln_wg_" + kernelName;
}

Expected<WorkGroupShell> createWorkGroupFunction(Module &module, const compiler::KernelInfo &info) {
  Function *kernel = module.getFunction(info.name);
  if (kernel == nullptr || kernel->isDeclaration())
    return compiler::codegenError("the program has no kernel '" + info.name + "'");

  LLVMContext &context = module.getContext();
  Type *pointer = PointerType::get(context, 0);
  auto *type = FunctionType::get(Type::getVoidTy(context), {pointer, pointer}, false);
  Function *function = Function::Create(type, GlobalValue::ExternalLinkage,
                                        workGroupFunctionName(info.name), module);
  function->addFnAttr(Attribute::NoUnwind);
  for (unsigned index : {0u, 1u}) {
    function->addParamAttr(index, Attribute::NoAlias);
    function->addParamAttr(index, Attribute::ReadOnly);
  }
  Value *launch = function->getArg(0);
  Value *group = function->getArg(1);
  launch->setName("launch");
  group->setName("group");

  BasicBlock *prologue = BasicBlock::Create(context, "prologue", function);
  BasicBlock *body = BasicBlock::Create(context, "body", function);
  IRBuilder<> builder(prologue);
  ParameterReader parameters(builder, launch, group);
  Value *argBlock = parameters.launchPointer(offsetof(LaunchParams, args), "args");
  Value *localMemory = parameters.groupPointer(offsetof(WorkGroupParams, localMemory), "local");
  Expected<SmallVector<Value *, 8>> arguments =
      readArguments(builder, *kernel, info, argBlock, localMemory);
  if (!arguments)
    return arguments.takeError();
  builder.CreateBr(body);

  builder.SetInsertPoint(body);
  CallInst *call = builder.CreateCall(kernel, *arguments);
  call->setAttributes(kernel->getAttributes());
  builder.CreateRetVoid();
  return WorkGroupShell{function, localMemory};
}

WorkGroupPrologue loadPrivateMemory(Function &function) {
  BasicBlock *prologue = &function.getEntryBlock();
  IRBuilder<> builder(prologue->getTerminator());
  ParameterReader parameters(builder, function.getArg(0), function.getArg(1));
  return {prologue, parameters.groupPointer(offsetof(WorkGroupParams, privateMemory), "private"),
          parameters.groupPointer(offsetof(WorkGroupParams, turn), "turn")};
}

uint64_t turnIntoWorkItemLoops(Module &module, Function &function,
                               const WorkGroupPrologue &prologue, const WorkGroupShape &shape,
                               unsigned simdWidth, unsigned interleave) {
  WorkItemLoopInputs loops;
  loops.prologue = prologue.block;
  loops.privateMemory = prologue.privateMemory;
  for (unsigned dim = 0; dim < 3; ++dim)
    loops.localSize[dim] =
        ConstantInt::get(Type::getInt64Ty(module.getContext()), shape.localSize[dim]);
  loops.barrier = module.getFunction("__kiln_work_group_barrier");
  loops.localId = module.getFunction("__kiln_local_id");
  loops.yield = module.getFunction(kSubGroupYieldName);
  loops.turn = module.getFunction(kWorkGroupTurnName);
  loops.turnState = prologue.turn;
  loops.workItemSlot = module.getFunction(kWorkItemSlotName);
  loops.groupPrimitives = groupPrimitivesOf(module);
  loops.simdWidth = simdWidth;
  loops.interleave = interleave;
  return formWorkItemLoops(function, loops);
}

Error inlineKernel(Function &function) {
  return inlineEverything(function);
}

Error placeLocalVariables(Module &module, const WorkGroupShell &shell,
                          const compiler::KernelInfo &info) {
  IRBuilder<> builder(shell.function->getEntryBlock().getTerminator());
  return placeLocalVariables(module, *shell.function, builder, shell.localMemory, info);
}

void placeWorkGroupScratch(Module &module, const WorkGroupShell &shell) {
  Function &function = *shell.function;
  SmallVector<CallInst *, 16> calls =
      callsIn(function, module.getFunction(compiler::kWorkGroupScratchPrimitive));
  if (calls.empty())
    return;
  IRBuilder<> builder(function.getEntryBlock().getTerminator());
  ParameterReader parameters(builder, function.getArg(0), function.getArg(1));
  // After the launch's local memory (the kernel's variables and its arguments), at a multiple of
  // a slot; the launch job reserves it (kernel_launch_job.cpp).
  Value *size = parameters.launchSize(offsetof(LaunchParams, localMemorySize), "local.size");
  constexpr uint64_t kSlot = compiler::kWorkGroupScratchSlotBytes;
  Value *offset = builder.CreateAnd(builder.CreateAdd(size, builder.getInt64(kSlot - 1)),
                                    builder.getInt64(~(kSlot - 1)), "scratch.offset");
  Value *scratch = builder.CreateGEP(builder.getInt8Ty(), shell.localMemory, offset, "scratch");
  for (CallInst *call : calls) {
    call->replaceAllUsesWith(builder.CreateAddrSpaceCast(scratch, call->getType()));
    call->eraseFromParent();
  }
}

void replaceGroupPrimitives(Module &module, Function &function) {
  Value *launch = function.getArg(0);
  Value *group = function.getArg(1);
  for (const GroupParameterField &field : kGroupParameterFields) {
    for (CallInst *call : callsIn(function, module.getFunction(field.name))) {
      IRBuilder<> at(call);
      Value *dim = at.CreateZExtOrTrunc(call->getArgOperand(0), at.getInt32Ty());
      Value *value = ParameterReader::dimension(at, field.inLaunch ? launch : group, field.offset,
                                                dim, field.name);
      call->replaceAllUsesWith(at.CreateZExtOrTrunc(value, call->getType()));
      call->eraseFromParent();
    }
  }
  for (CallInst *call : callsIn(function, module.getFunction(kWorkDimPrimitive))) {
    IRBuilder<> at(call);
    Value *address =
        at.CreateConstInBoundsGEP1_64(at.getInt8Ty(), launch, offsetof(LaunchParams, workDim));
    call->replaceAllUsesWith(at.CreateLoad(at.getInt32Ty(), address, "work.dim"));
    call->eraseFromParent();
  }
  for (CallInst *call :
       callsIn(function, module.getFunction(compiler::kDeviceEnqueueArenaPrimitive))) {
    IRBuilder<> at(call);
    Value *address = at.CreateConstInBoundsGEP1_64(at.getInt8Ty(), launch,
                                                   offsetof(LaunchParams, deviceEnqueueArena));
    call->replaceAllUsesWith(at.CreateLoad(call->getType(), address, "enqueue.arena"));
    call->eraseFromParent();
  }
}

void replacePrintfReservations(Module &module, Function &function) {
  Value *launch = function.getArg(0);
  auto *pointer = PointerType::get(module.getContext(), 0);
  for (CallInst *call : callsIn(function, module.getFunction(compiler::kPrintfAllocPrimitive))) {
    Function *reserve =
        compiler::printfReservationFunction(module, cast<PointerType>(call->getType()), pointer);
    IRBuilder<> builder(call);
    Value *buffer =
        builder.CreateLoad(pointer,
                           builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), launch,
                                                              offsetof(LaunchParams, printfBuffer)),
                           "printf.buffer");
    CallInst *replacement =
        builder.CreateCall(reserve, {buffer, call->getArgOperand(0)}, "printf.record");
    call->replaceAllUsesWith(replacement);
    call->eraseFromParent();
  }
}

void resolveAddressSpaceQueries(Function &function, const WorkGroupPrologue &prologue) {
  lowerAddressSpaceQueries(function, [&] {
    IRBuilder<> builder(prologue.block->getTerminator());
    ParameterReader parameters(builder, function.getArg(0), function.getArg(1));
    AddressSpaceRegions regions;
    // Loaded again: the simplification deleted the first load where nothing used it.
    regions.localMemory =
        parameters.groupPointer(offsetof(WorkGroupParams, localMemory), "local.memory");
    regions.localMemorySize =
        parameters.launchSize(offsetof(LaunchParams, localMemorySize), "local.memory.size");
    regions.privateMemory = prologue.privateMemory;
    regions.privateMemorySize =
        parameters.launchSize(offsetof(LaunchParams, privateMemorySize), "private.memory.size");
    regions.stackBase = parameters.groupPointer(offsetof(WorkGroupParams, stackBase), "stack");
    regions.stackSize = parameters.groupSize(offsetof(WorkGroupParams, stackSize), "stack.size");
    return regions;
  });
}

} // namespace kiln::cpu
