//===- device_launches.cpp - Kernels the GPU starts itself -----------------===//
//
// The child's parameters are the request the library filled, then the LaunchParams of one
// launch of uniform work-groups, which the launch primitive writes after it: that is the
// parameter buffer cudaGetParameterBufferV2 hands out for the device entry. cudaLaunchDeviceV2
// then starts it on the parent grid's fire-and-forget stream for CLK_ENQUEUE_FLAGS_NO_WAIT (the
// child may run beside its parent) and on its tail-launch stream for the WAIT flags (it starts
// once the parent grid has finished, as both ask at the least). CUDA counts a grid finished only
// once the grids it started have, so the parent's event covers its children, and the host reads
// the records the whole tree left in the parent's arena once it has finished.
//
// A launch the device runtime refuses (beyond its nesting depth, a shape beyond CUDA's limits)
// returns 0 and the library writes a record instead: the enqueue still happens.
//
//===----------------------------------------------------------------------===//
#include "devices/cuda/codegen/device_launches.hpp"

#include "compiler/argument_block.hpp"
#include "compiler/device_enqueue_format.hpp"
#include "compiler/llvm/codegen_error.hpp"
#include "devices/cuda/codegen/kernel_entry.hpp"
#include "devices/cuda/launch_abi.hpp"
#include "support/settings.hpp"

#include "llvm/IR/IRBuilder.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;

namespace kiln::cuda {
namespace {

/// CUDA's limits on a grid and a block (blocks along x, y and z; threads along x, y and z).
constexpr uint64_t kMaxGrid[3] = {(1ull << 31) - 1, 65535, 65535};
constexpr uint64_t kMaxBlock[3] = {1024, 1024, 64};

/// The device runtime's streams of the launching grid (cuda_device_runtime_api.h).
constexpr uint64_t kTailLaunchStream = 0x3;
constexpr uint64_t kFireAndForgetStream = 0x4;

constexpr uint32_t kNoWait = 0; // CLK_ENQUEUE_FLAGS_NO_WAIT

Type *dim3Type(LLVMContext &context) {
  Type *i32 = Type::getInt32Ty(context);
  return StructType::get(context, {i32, i32, i32});
}

Value *dim3(IRBuilder<> &builder, ArrayRef<Value *> axes) {
  Value *value = PoisonValue::get(dim3Type(builder.getContext()));
  for (unsigned axis = 0; axis < 3; ++axis)
    value = builder.CreateInsertValue(value, builder.CreateTrunc(axes[axis], builder.getInt32Ty()),
                                      axis);
  return value;
}

Value *fieldAddress(IRBuilder<> &builder, Value *base, uint64_t offset) {
  return builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), base, offset);
}

Value *loadField(IRBuilder<> &builder, Value *base, uint64_t offset, Type *type) {
  return builder.CreateAlignedLoad(type, fieldAddress(builder, base, offset), Align(8));
}

void storeField(IRBuilder<> &builder, Value *base, uint64_t offset, Value *value) {
  builder.CreateAlignedStore(value, fieldAddress(builder, base, offset), Align(8));
}

/// The __local arguments' slots of the argument block at `block`: each argument's offset in the
/// work-group's local memory, from the sizes in the request.
Error storeLocalArgumentSlots(IRBuilder<> &builder, const compiler::KernelInfo &info,
                              Value *request, Value *block) {
  uint64_t alignment = compiler::kLocalArgumentAlignment;
  Value *offset = builder.getInt64(0); // from the first argument's place
  for (size_t index = 1; index < info.args.size(); ++index) {
    if (info.args[index].kind != compiler::ArgKind::LocalPointer)
      return compiler::codegenError("block kernel '" + info.name +
                                    "' has an argument that is not a __local pointer");
    offset = builder.CreateAnd(builder.CreateAdd(offset, builder.getInt64(alignment - 1)),
                               builder.getInt64(~(alignment - 1)));
    Value *slot = builder.CreateAdd(
        offset, builder.getInt64(compiler::localArgumentsBegin(info.staticLocalMemSize)));
    storeField(builder, block, info.args[index].blockOffset, slot);
    Value *size =
        loadField(builder, request,
                  offsetof(compiler::DeviceLaunchRequest, localArgumentSizes) + 8 * (index - 1),
                  builder.getInt64Ty());
    offset = builder.CreateAdd(offset, size);
  }
  return Error::success();
}

/// The device entry of block kernel `info`: the argument block a record's launch would pass
/// (the literal's address, the __local arguments' offsets) made from the request, then the
/// kernel called as by its own entry.
Expected<Function *> addDeviceEntry(Module &module, const compiler::KernelInfo &info) {
  Function *kernel = module.getFunction(info.name);
  if (kernel == nullptr || info.args.empty() ||
      info.args.size() > 1 + compiler::kDeviceLaunchLocalArguments)
    return nullptr;
  Expected<Function *> entry = createEntry(module, info, deviceEntryName(info.name),
                                           sizeof(compiler::DeviceLaunchRequest), Align(16));
  if (!entry)
    return entry.takeError();
  IRBuilder<> builder(&(*entry)->getEntryBlock());
  Value *request = (*entry)->getArg(0);
  AllocaInst *block = builder.CreateAlloca(
      ArrayType::get(builder.getInt8Ty(), std::max<uint32_t>(info.argBlockSize, 8)));
  block->setAlignment(Align(std::max(info.argBlockAlignment, compiler::kArgumentSlotAlignment)));
  static_assert(offsetof(compiler::DeviceLaunchRequest, literal) == 0);
  storeField(builder, block, info.args[0].blockOffset,
             builder.CreateAddrSpaceCast(request, kernel->getArg(0)->getType()));
  if (Error error = storeLocalArgumentSlots(builder, info, request, block))
    return error;
  if (Error error = callKernel(builder, *kernel, info, block))
    return error;
  return *entry;
}

void makeInlinedDefinition(Function &primitive) {
  primitive.setLinkage(GlobalValue::InternalLinkage);
  primitive.removeFnAttr(Attribute::NoInline);
  primitive.addFnAttr(Attribute::AlwaysInline);
}

/// `__kiln_device_launch_request`: refuses shapes beyond CUDA's limits and block kernels without
/// a device entry; otherwise the device runtime's parameter buffer for the block kernel's entry.
void defineRequestPrimitive(Function &primitive,
                            ArrayRef<std::pair<uint32_t, Function *>> entries) {
  makeInlinedDefinition(primitive);
  LLVMContext &context = primitive.getContext();
  Module &module = *primitive.getParent();
  IRBuilder<> builder(BasicBlock::Create(context, "check", &primitive));
  auto *refuse = BasicBlock::Create(context, "refuse", &primitive);
  auto *request = BasicBlock::Create(context, "request", &primitive);
  Value *kernel = primitive.getArg(0);
  SmallVector<Value *, 3> groups, threads;
  Value *fits = builder.getTrue();
  for (unsigned axis = 0; axis < 3; ++axis) {
    groups.push_back(primitive.getArg(1 + axis));
    threads.push_back(primitive.getArg(4 + axis));
    fits = builder.CreateAnd(fits,
                             builder.CreateICmpULE(groups[axis], builder.getInt64(kMaxGrid[axis])));
    fits = builder.CreateAnd(
        fits, builder.CreateICmpULE(threads[axis], builder.getInt64(kMaxBlock[axis])));
  }
  Value *sharedBytes = primitive.getArg(7);
  fits = builder.CreateAnd(fits, builder.CreateICmpULE(sharedBytes, builder.getInt64(INT32_MAX)));
  PointerType *generic = PointerType::get(context, 0);
  Value *entry = ConstantPointerNull::get(generic);
  for (auto [number, function] : entries)
    entry = builder.CreateSelect(builder.CreateICmpEQ(kernel, builder.getInt32(number)), function,
                                 entry);
  fits = builder.CreateAnd(fits, builder.CreateIsNotNull(entry));
  builder.CreateCondBr(fits, request, refuse);

  builder.SetInsertPoint(refuse);
  builder.CreateRet(ConstantPointerNull::get(cast<PointerType>(primitive.getReturnType())));

  builder.SetInsertPoint(request);
  FunctionCallee getBuffer = module.getOrInsertFunction(
      "cudaGetParameterBufferV2",
      FunctionType::get(
          generic, {generic, dim3Type(context), dim3Type(context), builder.getInt32Ty()}, false));
  Value *buffer =
      builder.CreateCall(getBuffer, {entry, dim3(builder, groups), dim3(builder, threads),
                                     builder.CreateTrunc(sharedBytes, builder.getInt32Ty())});
  builder.CreateRet(builder.CreateAddrSpaceCast(buffer, primitive.getReturnType()));
}

/// `__kiln_device_launch`: writes the LaunchParams after the request and starts the child.
/// The child's LaunchParams at `launch`: one launch of the request's uniform work-groups, with
/// the parent's arena and default queue and no printf buffer.
void writeChildLaunchParams(IRBuilder<> &builder, Value *request, Value *launch) {
  using Request = compiler::DeviceLaunchRequest;
  Type *i64 = builder.getInt64Ty();
  for (unsigned axis = 0; axis < 3; ++axis) {
    Value *offset = loadField(builder, request, offsetof(Request, globalOffset) + 8 * axis, i64);
    Value *size = loadField(builder, request, offsetof(Request, globalSize) + 8 * axis, i64);
    Value *local = loadField(builder, request, offsetof(Request, localSize) + 8 * axis, i64);
    storeField(builder, launch, offsetof(LaunchParams, globalOffset) + 8 * axis, offset);
    storeField(builder, launch, offsetof(LaunchParams, globalSize) + 8 * axis, size);
    storeField(builder, launch, offsetof(LaunchParams, enqueuedLocalSize) + 8 * axis, local);
    storeField(builder, launch, offsetof(LaunchParams, numGroups) + 8 * axis,
               builder.CreateUDiv(size, local));
    storeField(builder, launch, offsetof(LaunchParams, firstGroup) + 8 * axis, builder.getInt64(0));
    storeField(builder, launch, offsetof(LaunchParams, firstItem) + 8 * axis, offset);
  }
  storeField(builder, launch, offsetof(LaunchParams, printfBuffer), builder.getInt64(0));
  storeField(builder, launch, offsetof(LaunchParams, deviceEnqueueArena),
             loadField(builder, request, offsetof(Request, arena), i64));
  storeField(builder, launch, offsetof(LaunchParams, workDim),
             loadField(builder, request, offsetof(Request, workDim), builder.getInt32Ty()));
  storeField(builder, launch, offsetof(LaunchParams, foldedHeight), builder.getInt32(0));
  Module &module = *builder.GetInsertBlock()->getModule();
  FunctionCallee defaultQueue = module.getOrInsertFunction(compiler::kLaunchDefaultQueuePrimitive,
                                                           FunctionType::get(i64, false));
  storeField(builder, launch, offsetof(LaunchParams, defaultQueue),
             builder.CreateCall(defaultQueue));
}

/// `__kiln_device_launch`: writes the LaunchParams after the request and starts the child.
void defineLaunchPrimitive(Function &primitive) {
  makeInlinedDefinition(primitive);
  LLVMContext &context = primitive.getContext();
  Module &module = *primitive.getParent();
  IRBuilder<> builder(BasicBlock::Create(context, "launch", &primitive));
  PointerType *generic = PointerType::get(context, 0);
  Value *request = builder.CreateAddrSpaceCast(primitive.getArg(0), generic);
  writeChildLaunchParams(builder, request,
                         fieldAddress(builder, request, sizeof(compiler::DeviceLaunchRequest)));
  // What the work-group wrote before its barrier and this enqueue, the launching thread has
  // seen (bar.sync); a release fence at the GPU's scope passes that on to the child, which
  // may start at once.
  builder.CreateFence(AtomicOrdering::Release, context.getOrInsertSyncScopeID("device"));
  Value *noWait = builder.CreateICmpEQ(primitive.getArg(1), builder.getInt32(kNoWait));
  Value *stream = builder.CreateSelect(noWait, builder.getInt64(kFireAndForgetStream),
                                       builder.getInt64(kTailLaunchStream));
  FunctionCallee start = module.getOrInsertFunction(
      kDeviceLaunchFunction, FunctionType::get(builder.getInt32Ty(), {generic, generic}, false));
  Value *result = builder.CreateCall(start, {request, builder.CreateIntToPtr(stream, generic)});
  builder.CreateRet(builder.CreateZExt(builder.CreateICmpEQ(result, builder.getInt32(0)),
                                       primitive.getReturnType()));
}

} // namespace

bool launchesOnDevice() {
#ifdef KILN_HAVE_CUDADEVRT
  return settingEnabled(Setting::CudaDeviceLaunch, true);
#else
  return false;
#endif
}

Error addDeviceLaunches(Module &module, const compiler::ProgramInfo &info) {
  Function *requestPrimitive = module.getFunction(compiler::kDeviceLaunchRequestPrimitive);
  Function *launchPrimitive = module.getFunction(compiler::kDeviceLaunchPrimitive);
  if (requestPrimitive == nullptr || launchPrimitive == nullptr || requestPrimitive->use_empty() ||
      !requestPrimitive->isDeclaration() || !launchPrimitive->isDeclaration())
    return Error::success();
  SmallVector<std::pair<uint32_t, Function *>, 8> entries;
  for (size_t index = 0; index < info.kernels.size(); ++index) {
    const compiler::KernelInfo &kernel = info.kernels[index];
    if (!kernel.isEnqueuedBlock || kernel.usesPrintf)
      continue;
    Expected<Function *> entry = addDeviceEntry(module, kernel);
    if (!entry)
      return entry.takeError();
    if (*entry != nullptr)
      entries.emplace_back(static_cast<uint32_t>(index + 1), *entry);
  }
  defineRequestPrimitive(*requestPrimitive, entries);
  defineLaunchPrimitive(*launchPrimitive);
  return Error::success();
}

} // namespace kiln::cuda
