//===- kernel_entry.cpp - PTX entries and the work-item primitives -------===//
#include "devices/cuda/codegen/kernel_entry.hpp"
#include "devices/cuda/codegen/warp_lanes.hpp"

#include "compiler/argument_block.hpp"
#include "compiler/device_enqueue_format.hpp"
#include "compiler/llvm/argument_block_reads.hpp"
#include "compiler/llvm/codegen_error.hpp"
#include "compiler/llvm/kernel_inlining.hpp"
#include "compiler/llvm/printf_lowering.hpp"
#include "compiler/llvm/printf_reservation.hpp"
#include "devices/cuda/codegen/address_space_mapping.hpp"
#include "devices/cuda/launch_abi.hpp"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>

using namespace llvm;

namespace kiln::cuda {
namespace {

/// The __local arguments' memory: the launch's dynamic shared memory.
GlobalVariable &dynamicSharedMemory(Module &module) {
  if (GlobalVariable *existing = module.getNamedGlobal(kDynamicSharedSymbol))
    return *existing;
  auto *type = ArrayType::get(Type::getInt8Ty(module.getContext()), 0);
  auto *variable = new GlobalVariable(module, type, false, GlobalValue::ExternalLinkage, nullptr,
                                      kDynamicSharedSymbol, nullptr, GlobalValue::NotThreadLocal,
                                      kNvptxSharedAddressSpace);
  variable->setAlignment(Align(16));
  return *variable;
}

/// The bytes of the shared variable that stands for the work-group scratch primitive in an
/// entry (compiler/work_group_scratch.hpp), as a function attribute of the entry: the variable
/// itself is made when a call is replaced, as nothing would keep an unused one until then.
constexpr const char *kWorkGroupScratchAttribute = "kiln-work-group-scratch-bytes";

/// The work-group scratch of `entry`, one variable per kernel, of the size its sub-groups need;
/// null if the entry has none.
GlobalVariable *workGroupScratch(Function &entry) {
  uint64_t bytes = 0;
  if (entry.getFnAttribute(kWorkGroupScratchAttribute).getValueAsString().getAsInteger(10, bytes))
    return nullptr;
  Module &module = *entry.getParent();
  std::string name = (entry.getName() + "_scratch").str();
  if (GlobalVariable *existing = module.getNamedGlobal(name))
    return existing;
  auto *type = ArrayType::get(Type::getInt64Ty(module.getContext()),
                              bytes / compiler::kWorkGroupScratchSlotBytes);
  auto *variable =
      new GlobalVariable(module, type, false, GlobalValue::InternalLinkage, PoisonValue::get(type),
                         name, nullptr, GlobalValue::NotThreadLocal, kNvptxSharedAddressSpace);
  variable->setAlignment(Align(compiler::kWorkGroupScratchSlotBytes));
  return variable;
}

/// What the reads of the argument block's slots assume of their addresses: the block is a
/// kernel parameter aligned to at least this (compiler/argument_block.hpp, where the devices
/// differ), and the slots are at multiples of it.
constexpr Align kSlotReadAlignment = Align::Constant<compiler::kArgumentSlotAlignment>();

/// The kernel's arguments, read from the argument block (layout: compiler/argument_block.hpp).
Expected<SmallVector<Value *, 8>> readArguments(IRBuilder<> &builder, Function &kernel,
                                                const compiler::KernelInfo &info, Value *block,
                                                Value *sharedMemory) {
  auto read = [&](const compiler::KernelArgInfo &arg, Argument &parameter,
                  Value *slot) -> Expected<Value *> {
    Type *type = parameter.getType();
    switch (arg.kind) {
    case compiler::ArgKind::GlobalPointer:
    case compiler::ArgKind::ConstantPointer:
    case compiler::ArgKind::Image:
    case compiler::ArgKind::Pipe:
    case compiler::ArgKind::Sampler:
    case compiler::ArgKind::Queue:
      return builder.CreateAlignedLoad(type, slot, kSlotReadAlignment);
    case compiler::ArgKind::LocalPointer: {
      // The kernel's own __local variables are static shared memory here; the dynamic memory
      // holds the arguments' part of the local memory.
      Value *offset = builder.CreateSub(
          builder.CreateAlignedLoad(builder.getInt64Ty(), slot, kSlotReadAlignment),
          builder.getInt64(compiler::localArgumentsBegin(info.staticLocalMemSize)));
      Value *address = builder.CreateGEP(builder.getInt8Ty(), sharedMemory, offset);
      return builder.CreatePointerBitCastOrAddrSpaceCast(address, type);
    }
    case compiler::ArgKind::Value:
      // A struct passed by value arrives as a pointer to a private copy (byval); the inliner
      // makes that copy.
      return parameter.hasByValAttr() ? slot : builder.CreateAlignedLoad(type, slot, Align(1));
    default:
      return compiler::codegenError("kernel '" + info.name +
                                    "' has an argument of a kind the GPU device does not know");
    }
  };
  return compiler::readKernelArguments(builder, kernel, info, block, read);
}

/// The sub-group width of the kernel's entry: a warp, unless the kernel requires another.
Expected<unsigned> subGroupWidthOf(const compiler::KernelInfo &info) {
  uint32_t required = info.requiredSubGroupSize;
  if (required == 0)
    return kWarpSize;
  if (!llvm::is_contained(kSubGroupSizes, required))
    return compiler::codegenError(
        "kernel '" + info.name + "' requires sub-groups of " + std::to_string(required) +
        " work-items (intel_reqd_sub_group_size); this device offers 8, 16, 32");
  return required;
}

Error addEntry(Module &module, Function &kernel, const compiler::KernelInfo &info) {
  Expected<Function *> entry = createEntry(
      module, info, entryName(info.name), std::max<uint32_t>(info.argBlockSize, kMinimumBlockSize),
      Align(std::max(info.argBlockAlignment, compiler::kArgumentSlotAlignment)));
  if (!entry)
    return entry.takeError();
  IRBuilder<> builder(&(*entry)->getEntryBlock());
  return callKernel(builder, kernel, info, (*entry)->getArg(0));
}

/// Reads field `offset` (+ 8 × `dimension` for the per-dimension ones) of the launch parameters.
Value *launchField(IRBuilder<> &builder, Value *launch, size_t offset, Type *type,
                   Value *dimension = nullptr) {
  Value *address = builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), launch, offset);
  if (dimension != nullptr)
    address = builder.CreateInBoundsGEP(builder.getInt64Ty(), address, dimension);
  return builder.CreateAlignedLoad(type, address, Align(8));
}

/// Picks the value for `dimension` (0, 1 or 2) among one per axis.
Value *selectAxis(IRBuilder<> &builder, const std::array<Value *, 3> &values, Value *dimension) {
  if (auto *constant = dyn_cast<ConstantInt>(dimension))
    return values[std::min<uint64_t>(constant->getZExtValue(), 2)];
  Value *isY = builder.CreateICmpEQ(dimension, builder.getInt32(1));
  Value *isX = builder.CreateICmpEQ(dimension, builder.getInt32(0));
  return builder.CreateSelect(isX, values[0], builder.CreateSelect(isY, values[1], values[2]));
}

/// CUDA's x/y/z special registers, as 32-bit values.
std::array<Value *, 3> specialRegisters(IRBuilder<> &builder, const Intrinsic::ID (&registers)[3]) {
  std::array<Value *, 3> values;
  for (int axis = 0; axis < 3; ++axis)
    values[axis] = builder.CreateIntrinsic(builder.getInt32Ty(), registers[axis], {});
  return values;
}

constexpr Intrinsic::ID kThreadIndex[3] = {Intrinsic::nvvm_read_ptx_sreg_tid_x,
                                           Intrinsic::nvvm_read_ptx_sreg_tid_y,
                                           Intrinsic::nvvm_read_ptx_sreg_tid_z};
constexpr Intrinsic::ID kBlockIndex[3] = {Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                                          Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                                          Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
constexpr Intrinsic::ID kBlockSize[3] = {Intrinsic::nvvm_read_ptx_sreg_ntid_x,
                                         Intrinsic::nvvm_read_ptx_sreg_ntid_y,
                                         Intrinsic::nvvm_read_ptx_sreg_ntid_z};

/// The work-group's local ids and sizes along each axis, computed once at an entry's start.
struct LocalAxes {
  std::array<Value *, 3> ids, sizes;
};

bool usesLocalAxesBeyondX(const Function &entry) {
  for (const Instruction &instruction : instructions(entry)) {
    const auto *call = dyn_cast<CallBase>(&instruction);
    const Function *callee = call ? call->getCalledFunction() : nullptr;
    if (callee == nullptr ||
        (callee->getName() != "__kiln_local_id" && callee->getName() != "__kiln_local_size"))
      continue;
    const auto *dimension = dyn_cast<ConstantInt>(call->getArgOperand(0));
    if (dimension == nullptr || !dimension->isZero())
      return true;
  }
  return false;
}

/// The block's thread ids and sizes, with y and z unfolded where the launch folded both into the
/// block's y axis (LaunchParams::foldedHeight): local id y is then tid.y % foldedHeight and z is
/// tid.y / foldedHeight. Only such launches run the division, behind a branch: computed for
/// every thread, it cost a 2-D kernel such as a 3x3 stencil a third of its instructions.
LocalAxes unfoldedLocalAxes(Function &entry) {
  BasicBlock &first = entry.getEntryBlock();
  BasicBlock::iterator start = first.getFirstInsertionPt();
  while (isa<AllocaInst>(*start))
    ++start;
  IRBuilder<> builder(&first, start);
  LocalAxes axes{specialRegisters(builder, kThreadIndex), specialRegisters(builder, kBlockSize)};
  Value *height = launchField(builder, entry.getArg(1), offsetof(LaunchParams, foldedHeight),
                              builder.getInt32Ty());
  Value *folded = builder.CreateICmpNE(height, builder.getInt32(0));
  Instruction *unfold = SplitBlockAndInsertIfThen(folded, &*builder.GetInsertPoint(), false);
  BasicBlock *unfolding = unfold->getParent();
  builder.SetInsertPoint(unfold);
  Value *depth = builder.CreateUDiv(axes.ids[1], height);
  Value *row = builder.CreateSub(axes.ids[1], builder.CreateMul(depth, height));
  Value *depthSize = builder.CreateUDiv(axes.sizes[1], height);
  BasicBlock *rest = unfolding->getSingleSuccessor();
  builder.SetInsertPoint(rest, rest->begin());
  auto merge = [&](Value *unfoldedValue, Value *plain) {
    PHINode *phi = builder.CreatePHI(plain->getType(), 2);
    phi->addIncoming(unfoldedValue, unfolding);
    phi->addIncoming(plain, &first);
    return phi;
  };
  LocalAxes unfolded = axes;
  unfolded.ids[1] = merge(row, axes.ids[1]);
  unfolded.ids[2] = merge(depth, axes.ids[2]);
  unfolded.sizes[1] = merge(height, axes.sizes[1]);
  unfolded.sizes[2] = merge(depthSize, axes.sizes[2]);
  return unfolded;
}

/// Local id (`ofThreads`) or size `dimension` of the work-item, as a 64-bit value.
Value *localAxis(IRBuilder<> &builder, const LocalAxes *axes, Value *dimension, bool ofThreads) {
  std::array<Value *, 3> values;
  auto *constant = dyn_cast<ConstantInt>(dimension);
  if (constant != nullptr && constant->isZero())
    values = specialRegisters(builder, ofThreads ? kThreadIndex : kBlockSize);
  else
    values = ofThreads ? axes->ids : axes->sizes;
  return builder.CreateZExt(selectAxis(builder, values, dimension), builder.getInt64Ty());
}

/// One of CUDA's block index registers for `dimension`, as a 64-bit value.
Value *blockIndex(IRBuilder<> &builder, const Intrinsic::ID (&registers)[3], Value *dimension) {
  std::array<Value *, 3> values = specialRegisters(builder, registers);
  return builder.CreateZExt(selectAxis(builder, values, dimension), builder.getInt64Ty());
}

/// The value of a primitive's call, computed before `call` (which the caller then removes), or
/// null when `name` is not a primitive this step lowers.
Value *primitiveValue(IRBuilder<> &builder, StringRef name, CallBase &call, Value *launch,
                      const LocalAxes *axes) {
  Type *i64 = builder.getInt64Ty();
  auto dimension = [&] { return call.getArgOperand(0); };
  if (name == "__kiln_local_id")
    return localAxis(builder, axes, dimension(), /*ofThreads=*/true);
  if (name == "__kiln_local_size")
    return localAxis(builder, axes, dimension(), /*ofThreads=*/false);
  if (name == "__kiln_group_id")
    return builder.CreateAdd(
        blockIndex(builder, kBlockIndex, dimension()),
        launchField(builder, launch, offsetof(LaunchParams, firstGroup), i64, dimension()));
  if (name == "__kiln_enqueued_local_size")
    return launchField(builder, launch, offsetof(LaunchParams, enqueuedLocalSize), i64,
                       dimension());
  if (name == "__kiln_num_groups")
    return launchField(builder, launch, offsetof(LaunchParams, numGroups), i64, dimension());
  if (name == "__kiln_global_size")
    return launchField(builder, launch, offsetof(LaunchParams, globalSize), i64, dimension());
  if (name == "__kiln_global_offset")
    return launchField(builder, launch, offsetof(LaunchParams, globalOffset), i64, dimension());
  if (name == "__kiln_work_dim")
    return launchField(builder, launch, offsetof(LaunchParams, workDim), builder.getInt32Ty());
  if (name == "__kiln_is_local_pointer")
    return builder.CreateIntrinsic(builder.getInt1Ty(), Intrinsic::nvvm_isspacep_shared,
                                   {call.getArgOperand(0)});
  if (name == "__kiln_is_private_pointer")
    return builder.CreateIntrinsic(builder.getInt1Ty(), Intrinsic::nvvm_isspacep_local,
                                   {call.getArgOperand(0)});
  if (name == compiler::kPrintfAllocPrimitive) {
    auto *pointer = PointerType::get(builder.getContext(), 0);
    Function *reserve = compiler::printfReservationFunction(
        *call.getModule(), cast<PointerType>(call.getType()), pointer);
    reserve->addFnAttr(Attribute::AlwaysInline);
    Value *buffer = builder.CreateIntToPtr(
        launchField(builder, launch, offsetof(LaunchParams, printfBuffer), i64), pointer);
    return builder.CreateCall(reserve, {buffer, call.getArgOperand(0)});
  }
  if (name == compiler::kLaunchDefaultQueuePrimitive)
    return launchField(builder, launch, offsetof(LaunchParams, defaultQueue), i64);
  if (name == compiler::kDeviceEnqueueArenaPrimitive)
    return builder.CreateIntToPtr(
        launchField(builder, launch, offsetof(LaunchParams, deviceEnqueueArena), i64),
        call.getType());
  if (name == "__kiln_work_group_barrier") {
    // bar.sync orders the memory accesses of the block's threads, as the primitive must.
    builder.CreateIntrinsic(builder.getVoidTy(), Intrinsic::nvvm_barrier_cta_sync_aligned_all,
                            {builder.getInt32(0)});
    return PoisonValue::get(call.getType());
  }
  return nullptr;
}

/// Whether `value` is a call of primitive `name` for `dimension`.
bool isPrimitiveCall(const Value *value, StringRef name, const Value *dimension) {
  const auto *call = dyn_cast<CallBase>(value);
  const Function *callee = call ? call->getCalledFunction() : nullptr;
  return callee != nullptr && callee->getName() == name && call->getArgOperand(0) == dimension;
}

/// The other operand of `value` where it is an `opcode` one of whose operands is a call of
/// primitive `name` for `dimension`, else null.
const Value *besidePrimitive(const Value *value, Instruction::BinaryOps opcode, StringRef name,
                             const Value *dimension) {
  const auto *instruction = dyn_cast<BinaryOperator>(value);
  if (instruction == nullptr || instruction->getOpcode() != opcode)
    return nullptr;
  for (unsigned side = 0; side < 2; ++side)
    if (isPrimitiveCall(instruction->getOperand(side), name, dimension))
      return instruction->getOperand(1 - side);
  return nullptr;
}

/// Whether `sum` is the library's global id along `dimension`: group id × enqueued local size +
/// local id + global offset (builtins/workitem.cl), each pair of operands in either order.
bool isGlobalIdSum(const Value *sum, const Value *dimension) {
  const Value *item = besidePrimitive(sum, Instruction::Add, "__kiln_global_offset", dimension);
  if (item == nullptr)
    return false;
  const Value *product = besidePrimitive(item, Instruction::Add, "__kiln_local_id", dimension);
  if (product == nullptr)
    return false;
  const Value *group =
      besidePrimitive(product, Instruction::Mul, "__kiln_enqueued_local_size", dimension);
  return group != nullptr && isPrimitiveCall(group, "__kiln_group_id", dimension);
}

/// Rewrites each global id the library computes, group id × enqueued local size + local id +
/// global offset along one dimension, as LaunchParams::firstItem + blockIdx × enqueued size +
/// local id, with the product of two 32-bit values: a kernel that truncates its ids to int (most
/// do) then computes them in 32 bits, as NVIDIA's compiler does, instead of multiplying 64-bit
/// values. The primitives' calls stay for the walk below, which lowers them; unused, they go.
void fuseGlobalIds(Function &entry, const LocalAxes *axes) {
  Function *offsets = entry.getParent()->getFunction("__kiln_global_offset");
  if (offsets == nullptr)
    return;
  SmallVector<std::pair<BinaryOperator *, Value *>, 8> globalIds;
  for (User *user : offsets->users()) {
    auto *offset = dyn_cast<CallBase>(user);
    if (offset == nullptr || offset->getFunction() != &entry)
      continue;
    Value *dimension = offset->getArgOperand(0);
    for (User *sum : offset->users())
      if (isGlobalIdSum(sum, dimension))
        globalIds.emplace_back(cast<BinaryOperator>(sum), dimension);
  }
  Value *launch = entry.getArg(1);
  for (auto [globalId, dimension] : globalIds) {
    IRBuilder<> builder(globalId);
    Type *i64 = builder.getInt64Ty();
    Value *block = blockIndex(builder, kBlockIndex, dimension);
    Value *size =
        builder.CreateZExt(launchField(builder, launch, offsetof(LaunchParams, enqueuedLocalSize),
                                       builder.getInt32Ty(), dimension),
                           i64);
    Value *local = localAxis(builder, axes, dimension, /*ofThreads=*/true);
    Value *withinLaunch =
        builder.CreateAdd(builder.CreateMul(block, size, "", true, true), local, "", true, true);
    Value *first = launchField(builder, launch, offsetof(LaunchParams, firstItem), i64, dimension);
    globalId->replaceAllUsesWith(builder.CreateAdd(first, withinLaunch));
    globalId->eraseFromParent();
  }
}

bool isEntry(const Function &function) {
  return function.getCallingConv() == CallingConv::PTX_Kernel;
}

/// The builtin library's __kiln_outline_* functions (its software image paths, which use no
/// work-item primitive) stay calls: one copy serves every access of a kernel (builtins/image.cl).
bool isOutOfLinePath(const Function &function) {
  return !function.isDeclaration() && function.getName().starts_with("__kiln_outline_");
}

void keepLibraryPathsOutOfLine(Module &module) {
  for (Function &function : module)
    if (isOutOfLinePath(function)) {
      function.removeFnAttr(Attribute::AlwaysInline);
      function.addFnAttr(Attribute::NoInline);
    }
}

/// The registers of a kernel that may sample images. The builtin library's software paths
/// beside its texture reads (for the formats and samplers a texture cannot serve) hold far more
/// values than the reads through textures, and CUDA gives each thread the registers of the
/// kernel's costliest path, called functions included: a bilinear resize took 148, so that a
/// fifth of the warps an SM holds could run. At 48, 40 of the 64 can; ptxas keeps what no longer
/// fits in local memory, which the software paths' long-lived values are. Below 48 the spills
/// reach the texture reads' own path (bench/results/gpu-linear-filter-h200.txt: 40 and 32 were
/// slower than 64, 48 the fastest).
constexpr unsigned kSamplingKernelRegisters = 48;

bool samplesImages(const compiler::KernelInfo &info) {
  return std::any_of(info.args.begin(), info.args.end(), [](const compiler::KernelArgInfo &arg) {
    return arg.kind == compiler::ArgKind::Image &&
           arg.accessQualifier == CL_KERNEL_ARG_ACCESS_READ_ONLY;
  });
}

/// How many calls of an out-of-line path are inlined rather than kept as calls.
constexpr unsigned kInlinedPathCopies = 4;

/// Whether a call of `path` sits in a loop. There it stays a call: the paths are the software
/// beside a texture read, which a loop of reads should not carry inlined, since the optimizer
/// then can neither take the choice out of the loop nor unroll it.
bool isCalledInLoop(const Function &path) {
  for (const User *user : path.users()) {
    const auto *call = dyn_cast<CallBase>(user);
    if (call == nullptr)
      continue;
    Function &caller = *const_cast<Function *>(call->getFunction());
    DominatorTree dominators(caller);
    LoopInfo loops(dominators);
    if (loops.getLoopFor(call->getParent()) != nullptr)
      return true;
  }
  return false;
}

} // namespace

Expected<Function *> createEntry(Module &module, const compiler::KernelInfo &info, StringRef name,
                                 uint64_t firstParameterBytes, Align firstParameterAlignment) {
  LLVMContext &context = module.getContext();
  Type *byte = Type::getInt8Ty(context);
  Type *firstType = ArrayType::get(byte, firstParameterBytes);
  Type *launchType = ArrayType::get(byte, sizeof(LaunchParams));
  PointerType *pointer = PointerType::get(context, 0);
  auto *type = FunctionType::get(Type::getVoidTy(context), {pointer, pointer}, false);
  Function *entry = Function::Create(type, GlobalValue::ExternalLinkage, name, module);
  entry->setCallingConv(CallingConv::PTX_Kernel);
  entry->addParamAttr(0, Attribute::getWithByValType(context, firstType));
  entry->addParamAttr(0, Attribute::getWithAlignment(context, firstParameterAlignment));
  entry->addParamAttr(1, Attribute::getWithByValType(context, launchType));
  entry->addParamAttr(1, Attribute::getWithAlignment(context, Align(8)));
  entry->getArg(0)->setName("args");
  entry->getArg(1)->setName("launch");
  entry->addFnAttr(Attribute::NoUnwind);
  Expected<unsigned> subGroupWidth = subGroupWidthOf(info);
  if (!subGroupWidth)
    return subGroupWidth.takeError();
  entry->addFnAttr(kSubGroupWidthAttribute, std::to_string(*subGroupWidth));
  if (samplesImages(info))
    entry->addFnAttr("nvvm.maxnreg", std::to_string(kSamplingKernelRegisters));
  size_t requiredThreads =
      info.requiredWorkGroupSize[0] * info.requiredWorkGroupSize[1] * info.requiredWorkGroupSize[2];
  if (requiredThreads != 0) {
    // The launch always has this shape: registers can be allotted for exactly that many threads.
    entry->addFnAttr("nvvm.maxntid", std::to_string(requiredThreads));
  }
  if (info.usesWorkGroupScratch)
    entry->addFnAttr(kWorkGroupScratchAttribute,
                     std::to_string(workGroupScratchBytes(requiredThreads, *subGroupWidth)));
  BasicBlock::Create(context, "entry", entry);
  return entry;
}

Error callKernel(IRBuilder<> &builder, Function &kernel, const compiler::KernelInfo &info,
                 Value *block) {
  Expected<SmallVector<Value *, 8>> arguments =
      readArguments(builder, kernel, info, block, &dynamicSharedMemory(*kernel.getParent()));
  if (!arguments)
    return arguments.takeError();
  builder.CreateCall(&kernel, *arguments);
  builder.CreateRetVoid();
  return Error::success();
}

bool inlineRarelyCalledPaths(Module &module) {
  bool marked = false;
  for (Function &function : module)
    if (isOutOfLinePath(function) && function.getNumUses() <= kInlinedPathCopies &&
        !isCalledInLoop(function)) {
      function.removeFnAttr(Attribute::NoInline);
      function.addFnAttr(Attribute::AlwaysInline);
      marked = true;
    }
  return marked;
}

Error addKernelEntries(Module &module, const compiler::ProgramInfo &info) {
  compiler::markEverythingForInlining(module);
  keepLibraryPathsOutOfLine(module);
  for (const compiler::KernelInfo &kernel : info.kernels) {
    Function *function = module.getFunction(kernel.name);
    if (function == nullptr || function->isDeclaration())
      return compiler::codegenError("kernel '" + kernel.name + "' is missing from the module");
    if (Error error = addEntry(module, *function, kernel))
      return error;
  }
  return Error::success();
}

Error lowerWorkItemPrimitives(Module &module) {
  for (Function &function : module) {
    if (function.isDeclaration())
      continue;
    // Before the walk below: computing them splits the entry's first block.
    std::optional<LocalAxes> axes;
    if (isEntry(function) && usesLocalAxesBeyondX(function))
      axes = unfoldedLocalAxes(function);
    if (isEntry(function))
      fuseGlobalIds(function, axes ? &*axes : nullptr);
    for (Instruction &instruction : make_early_inc_range(instructions(function))) {
      auto *call = dyn_cast<CallBase>(&instruction);
      Function *callee = call ? call->getCalledFunction() : nullptr;
      if (callee == nullptr || callee->isIntrinsic())
        continue;
      if (isOutOfLinePath(*callee))
        continue;
      if (!callee->isDeclaration())
        return compiler::codegenError("recursion is not supported on the GPU (function '" +
                                      callee->getName() + "')");
      if (!callee->getName().starts_with("__kiln_"))
        continue;
      if (!isEntry(function))
        return compiler::codegenError("'" + callee->getName() + "' called outside a kernel");
      IRBuilder<> builder(call);
      if (callee->getName() == compiler::kWorkGroupScratchPrimitive) {
        GlobalVariable *scratch = workGroupScratch(function);
        if (scratch == nullptr)
          return compiler::codegenError("the work-group scratch of '" + function.getName() +
                                        "' is missing");
        call->replaceAllUsesWith(builder.CreateAddrSpaceCast(scratch, call->getType()));
        call->eraseFromParent();
        continue;
      }
      if (callee->getName() == compiler::kNativeReductionName) {
        Expected<Value *> value = warpReduction(builder, *call);
        if (!value)
          return value.takeError();
        call->replaceAllUsesWith(*value);
        call->eraseFromParent();
        continue;
      }
      if (compiler::SubGroupPrimitive primitive = compiler::subGroupPrimitive(callee);
          primitive != compiler::SubGroupPrimitive::None) {
        unsigned width = 0;
        function.getFnAttribute(kSubGroupWidthAttribute).getValueAsString().getAsInteger(10, width);
        if (Value *value = warpLaneValue(builder, primitive, *call, width))
          call->replaceAllUsesWith(value);
        call->eraseFromParent();
        continue;
      }
      Value *value = primitiveValue(builder, callee->getName(), *call, function.getArg(1),
                                    axes ? &*axes : nullptr);
      if (value == nullptr)
        return compiler::codegenError("the GPU device cannot run '" + callee->getName() + "' yet");
      if (!call->getType()->isVoidTy())
        call->replaceAllUsesWith(value);
      call->eraseFromParent();
    }
  }
  return Error::success();
}

} // namespace kiln::cuda
