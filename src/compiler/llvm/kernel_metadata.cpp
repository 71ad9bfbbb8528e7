#include "compiler/llvm/kernel_metadata.hpp"

#include "compiler/argument_block.hpp"
#include "compiler/device_enqueue_format.hpp"
#include "compiler/llvm/enqueued_blocks.hpp"
#include "compiler/llvm/pointer_argument_access.hpp"
#include "compiler/llvm/printf_lowering.hpp"
#include "compiler/work_group_scratch.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"

#include <algorithm>
#include <optional>

namespace kiln::compiler {
namespace {

constexpr const char *kArgInfoFlag = "kiln.kernel-arg-info";
constexpr const char *kDenormsAreZeroFlag = "kiln.denorms-are-zero";

bool moduleFlagSet(const llvm::Module &module, llvm::StringRef name) {
  auto *flag = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(module.getModuleFlag(name));
  return flag && !flag->isZero();
}

// The address spaces of Clang's SPIR target, as !kernel_arg_addr_space numbers them.
enum SpirAddressSpace : unsigned { kPrivate = 0, kGlobal = 1, kConstant = 2, kLocal = 3 };

std::optional<llvm::StringRef> stringOperand(const llvm::MDNode *node, unsigned index) {
  if (!node || index >= node->getNumOperands())
    return std::nullopt;
  if (auto *string = llvm::dyn_cast_or_null<llvm::MDString>(node->getOperand(index).get()))
    return string->getString();
  return std::nullopt;
}

std::optional<uint64_t> intOperand(const llvm::MDNode *node, unsigned index) {
  if (!node || index >= node->getNumOperands())
    return std::nullopt;
  if (auto *value = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(node->getOperand(index)))
    return value->getLimitedValue();
  return std::nullopt;
}

/// Clang's !kernel_arg_* metadata of one kernel; each node may be absent.
struct ArgMetadata {
  explicit ArgMetadata(const llvm::Function &kernel)
      : addressSpace(kernel.getMetadata("kernel_arg_addr_space")),
        access(kernel.getMetadata("kernel_arg_access_qual")),
        type(kernel.getMetadata("kernel_arg_type")),
        baseType(kernel.getMetadata("kernel_arg_base_type")),
        typeQualifier(kernel.getMetadata("kernel_arg_type_qual")),
        name(kernel.getMetadata("kernel_arg_name")) {}
  const llvm::MDNode *addressSpace, *access, *type, *baseType, *typeQualifier, *name;
};

cl_kernel_arg_access_qualifier accessQualifier(llvm::StringRef text) {
  if (text == "read_only")
    return CL_KERNEL_ARG_ACCESS_READ_ONLY;
  if (text == "write_only")
    return CL_KERNEL_ARG_ACCESS_WRITE_ONLY;
  if (text == "read_write")
    return CL_KERNEL_ARG_ACCESS_READ_WRITE;
  return CL_KERNEL_ARG_ACCESS_NONE;
}

// Clang writes the qualifiers space separated, e.g. "restrict const volatile".
cl_kernel_arg_type_qualifier typeQualifier(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef, 4> words;
  text.split(words, ' ', -1, /*KeepEmpty=*/false);
  cl_kernel_arg_type_qualifier result = CL_KERNEL_ARG_TYPE_NONE;
  for (llvm::StringRef word : words) {
    if (word == "const")
      result |= CL_KERNEL_ARG_TYPE_CONST;
    else if (word == "restrict")
      result |= CL_KERNEL_ARG_TYPE_RESTRICT;
    else if (word == "volatile")
      result |= CL_KERNEL_ARG_TYPE_VOLATILE;
    else if (word == "pipe")
      result |= CL_KERNEL_ARG_TYPE_PIPE;
  }
  return result;
}

cl_kernel_arg_address_qualifier addressQualifier(unsigned addressSpace) {
  switch (addressSpace) {
  case kGlobal:
    return CL_KERNEL_ARG_ADDRESS_GLOBAL;
  case kConstant:
    return CL_KERNEL_ARG_ADDRESS_CONSTANT;
  case kLocal:
    return CL_KERNEL_ARG_ADDRESS_LOCAL;
  default:
    return CL_KERNEL_ARG_ADDRESS_PRIVATE;
  }
}

/// Images, samplers, pipes and queues by their IR type (Clang 22 emits SPIR-V target extension
/// types for them), else by their OpenCL type name.
std::optional<ArgKind> openclObjectKind(const llvm::Argument &arg, llvm::StringRef baseType,
                                        cl_kernel_arg_type_qualifier qualifiers) {
  if (auto *ext = llvm::dyn_cast<llvm::TargetExtType>(arg.getType())) {
    llvm::StringRef name = ext->getName();
    if (name == "spirv.Image" || name == "spirv.SampledImage")
      return ArgKind::Image;
    if (name == "spirv.Sampler")
      return ArgKind::Sampler;
    if (name == "spirv.Pipe")
      return ArgKind::Pipe;
    if (name == "spirv.Queue")
      return ArgKind::Queue;
  }
  if (qualifiers & CL_KERNEL_ARG_TYPE_PIPE)
    return ArgKind::Pipe;
  if (baseType.starts_with("image") && baseType.ends_with("_t"))
    return ArgKind::Image;
  if (baseType == "sampler_t")
    return ArgKind::Sampler;
  if (baseType == "queue_t")
    return ArgKind::Queue;
  return std::nullopt;
}

ArgKind pointerKind(unsigned addressSpace) {
  switch (addressSpace) {
  case kConstant:
    return ArgKind::ConstantPointer;
  case kLocal:
    return ArgKind::LocalPointer;
  default:
    return ArgKind::GlobalPointer;
  }
}

/// Fills kind, sizes and qualifiers of one argument; returns its alignment in the block.
uint32_t describeArg(const llvm::Argument &arg, const ArgMetadata &md, const llvm::DataLayout &dl,
                     KernelArgInfo &info) {
  unsigned index = arg.getArgNo();
  info.name = stringOperand(md.name, index).value_or(arg.getName()).str();
  info.typeName = stringOperand(md.type, index).value_or("").str();
  info.accessQualifier = accessQualifier(stringOperand(md.access, index).value_or("none"));
  info.typeQualifier = typeQualifier(stringOperand(md.typeQualifier, index).value_or(""));
  llvm::StringRef baseType = stringOperand(md.baseType, index).value_or(info.typeName);

  auto *pointer = llvm::dyn_cast<llvm::PointerType>(arg.getType());
  unsigned irAddressSpace = pointer ? pointer->getAddressSpace() : kPrivate;
  unsigned addressSpace = intOperand(md.addressSpace, index).value_or(irAddressSpace);
  info.addressQualifier = addressQualifier(addressSpace);

  if (std::optional<ArgKind> kind = openclObjectKind(arg, baseType, info.typeQualifier)) {
    info.kind = *kind;
  } else if (pointer && !arg.hasByValAttr() && irAddressSpace != kPrivate) {
    info.kind = pointerKind(irAddressSpace);
    info.onlyWritten = info.kind == ArgKind::GlobalPointer && isOnlyWrittenThrough(arg);
  } else {
    info.kind = ArgKind::Value;
    // A struct passed by value arrives as a pointer to a byval copy: its size is the struct's.
    llvm::Type *type = arg.hasByValAttr() ? arg.getParamByValType() : arg.getType();
    info.valueSize = uint32_t(dl.getTypeAllocSize(type).getKnownMinValue());
    info.blockSize = info.valueSize;
    llvm::Align align = dl.getABITypeAlign(type);
    if (arg.hasByValAttr())
      align = std::max(align, arg.getParamAlign().valueOrOne());
    return uint32_t(align.value());
  }
  // Handles: clSetKernelArg takes a cl_mem / cl_sampler / cl_command_queue; a __local argument
  // takes only a size (any), so it has no fixed value size.
  info.valueSize = info.kind == ArgKind::LocalPointer ? 0 : kArgumentSlotSize;
  info.blockSize = kArgumentSlotSize;
  return kArgumentSlotAlignment;
}

/// Places the arguments in the block (compiler/argument_block.hpp).
void layoutArgBlock(KernelInfo &kernel, const std::vector<uint32_t> &alignments) {
  ArgumentBlockLayout layout;
  for (size_t i = 0; i < kernel.args.size(); ++i)
    kernel.args[i].blockOffset = layout.place(kernel.args[i].blockSize, alignments[i]);
  kernel.argBlockSize = layout.size();
  kernel.argBlockAlignment = layout.alignment();
}

std::optional<std::array<size_t, 3>> sizeTriple(const llvm::Function &kernel,
                                                llvm::StringRef kind) {
  const llvm::MDNode *node = kernel.getMetadata(kind);
  std::array<size_t, 3> sizes{};
  for (unsigned i = 0; i < 3; ++i) {
    std::optional<uint64_t> value = intOperand(node, i);
    if (!value)
      return std::nullopt;
    sizes[i] = *value;
  }
  return sizes;
}

/// The OpenCL C spelling of a vec_type_hint type (e.g. "uint4", "float", "half8").
std::string openclTypeName(llvm::Type *type, bool isSigned) {
  unsigned lanes = 1;
  if (auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(type)) {
    lanes = vector->getNumElements();
    type = vector->getElementType();
  }
  std::string name;
  if (type->isHalfTy())
    name = "half";
  else if (type->isFloatTy())
    name = "float";
  else if (type->isDoubleTy())
    name = "double";
  else if (type->isIntegerTy(8))
    name = "char";
  else if (type->isIntegerTy(16))
    name = "short";
  else if (type->isIntegerTy(32))
    name = "int";
  else if (type->isIntegerTy(64))
    name = "long";
  else
    return {};
  if (type->isIntegerTy() && !isSigned)
    name = "u" + name;
  return lanes > 1 ? name + std::to_string(lanes) : name;
}

std::string formatTriple(llvm::StringRef attribute, const std::array<size_t, 3> &sizes) {
  return (attribute + "(" + llvm::Twine(sizes[0]) + "," + llvm::Twine(sizes[1]) + "," +
          llvm::Twine(sizes[2]) + ")")
      .str();
}

/// The kernel attributes, and CL_KERNEL_ATTRIBUTES spelling them as in the source.
void describeAttributes(const llvm::Function &function, KernelInfo &kernel) {
  std::vector<std::string> parts;
  if (auto sizes = sizeTriple(function, "reqd_work_group_size")) {
    kernel.requiredWorkGroupSize = *sizes;
    parts.push_back(formatTriple("reqd_work_group_size", *sizes));
  }
  if (auto sizes = sizeTriple(function, "work_group_size_hint")) {
    kernel.workGroupSizeHint = *sizes;
    parts.push_back(formatTriple("work_group_size_hint", *sizes));
  }
  // !vec_type_hint = !{<type> poison, i32 isSigned}
  if (const llvm::MDNode *hint = function.getMetadata("vec_type_hint");
      hint && hint->getNumOperands() == 2) {
    if (auto *value = llvm::mdconst::dyn_extract_or_null<llvm::Constant>(hint->getOperand(0))) {
      kernel.vecTypeHint = openclTypeName(value->getType(), intOperand(hint, 1).value_or(1) != 0);
      if (!kernel.vecTypeHint.empty())
        parts.push_back("vec_type_hint(" + kernel.vecTypeHint + ")");
    }
  }
  if (auto size = intOperand(function.getMetadata("intel_reqd_sub_group_size"), 0)) {
    kernel.requiredSubGroupSize = uint32_t(*size);
    parts.push_back("intel_reqd_sub_group_size(" + std::to_string(*size) + ")");
  }
  kernel.attributes = llvm::join(parts, " ");
}

/// Every function `root` may run: itself and what it calls or takes the address of, directly or
/// indirectly.
llvm::SmallPtrSet<const llvm::Function *, 16> reachableFunctions(const llvm::Function &root) {
  llvm::SmallPtrSet<const llvm::Function *, 16> seen{&root};
  llvm::SmallVector<const llvm::Function *, 16> work{&root};
  while (!work.empty()) {
    const llvm::Function *function = work.pop_back_val();
    for (const llvm::BasicBlock &block : *function)
      for (const llvm::Instruction &instruction : block)
        for (const llvm::Value *operand : instruction.operands())
          if (auto *callee = llvm::dyn_cast<llvm::Function>(operand->stripPointerCasts()))
            if (seen.insert(callee).second)
              work.push_back(callee);
  }
  return seen;
}

/// The functions whose instructions refer to `value`, also through constant expressions.
void collectUsingFunctions(const llvm::Value &value,
                           llvm::SmallPtrSetImpl<const llvm::Function *> &functions) {
  for (const llvm::User *user : value.users()) {
    if (auto *instruction = llvm::dyn_cast<llvm::Instruction>(user))
      functions.insert(instruction->getFunction());
    else if (llvm::isa<llvm::Constant>(user))
      collectUsingFunctions(*user, functions);
  }
}

/// The __local variables (addrspace(3) globals: Clang turns each `local` variable of a kernel
/// into one) with the functions using them.
struct LocalVariable {
  const llvm::GlobalVariable *variable;
  llvm::SmallPtrSet<const llvm::Function *, 4> users;
};

std::vector<LocalVariable> localVariables(const llvm::Module &module) {
  std::vector<LocalVariable> result;
  for (const llvm::GlobalVariable &variable : module.globals()) {
    if (variable.getAddressSpace() != kLocal)
      continue;
    LocalVariable local{&variable, {}};
    collectUsingFunctions(variable, local.users);
    result.push_back(std::move(local));
  }
  return result;
}

/// Bytes of the __local variables a kernel can reach (its `reachable` functions use), laid out in
/// module order, each at a multiple of its alignment.
uint64_t staticLocalMemSize(const llvm::SmallPtrSetImpl<const llvm::Function *> &reachable,
                            const std::vector<LocalVariable> &locals, const llvm::DataLayout &dl) {
  uint64_t size = 0;
  for (const LocalVariable &local : locals) {
    bool used = llvm::any_of(
        local.users, [&](const llvm::Function *function) { return reachable.contains(function); });
    if (!used)
      continue;
    const llvm::GlobalVariable &variable = *local.variable;
    size = llvm::alignTo(size, dl.getPreferredAlign(&variable));
    size += dl.getTypeAllocSize(variable.getValueType()).getKnownMinValue();
  }
  return size;
}

KernelInfo describeKernel(const llvm::Function &function, const std::vector<LocalVariable> &locals,
                          const llvm::DataLayout &dl) {
  KernelInfo kernel;
  kernel.name = function.getName().str();
  ArgMetadata md(function);
  std::vector<uint32_t> alignments;
  for (const llvm::Argument &arg : function.args()) {
    kernel.args.emplace_back();
    alignments.push_back(describeArg(arg, md, dl, kernel.args.back()));
  }
  layoutArgBlock(kernel, alignments);
  describeAttributes(function, kernel);
  llvm::SmallPtrSet<const llvm::Function *, 16> reachable = reachableFunctions(function);
  kernel.staticLocalMemSize = staticLocalMemSize(reachable, locals, dl);
  // Lowered printf calls reserve their records through this primitive.
  const llvm::Function *printfAlloc = function.getParent()->getFunction(kPrintfAllocPrimitive);
  kernel.usesPrintf = printfAlloc != nullptr && reachable.contains(printfAlloc);
  const llvm::Function *scratch = function.getParent()->getFunction(kWorkGroupScratchPrimitive);
  kernel.usesWorkGroupScratch = scratch != nullptr && reachable.contains(scratch);
  const llvm::Function *arena = function.getParent()->getFunction(kDeviceEnqueueArenaPrimitive);
  kernel.usesDeviceEnqueue = arena != nullptr && reachable.contains(arena);
  kernel.isEnqueuedBlock = isEnqueuedBlock(function);
  return kernel;
}

} // namespace

bool isKernel(const llvm::Function &function) {
  return !function.isDeclaration() && function.getCallingConv() == llvm::CallingConv::SPIR_KERNEL;
}

void setArgInfoRequested(llvm::Module &module, bool requested) {
  // Max: a program linked from several objects has the information if any object asked.
  module.setModuleFlag(llvm::Module::Max, kArgInfoFlag,
                       uint32_t(requested || argInfoRequested(module)));
}

bool argInfoRequested(const llvm::Module &module) {
  return moduleFlagSet(module, kArgInfoFlag);
}

void setDenormsAreZero(llvm::Module &module, bool allowed) {
  module.setModuleFlag(llvm::Module::Min, kDenormsAreZeroFlag, uint32_t(allowed));
}

bool denormsAreZero(const llvm::Module &module) {
  return moduleFlagSet(module, kDenormsAreZeroFlag);
}

ProgramInfo extractProgramInfo(const llvm::Module &module) {
  ProgramInfo info;
  const llvm::DataLayout &dl = module.getDataLayout();
  std::vector<LocalVariable> locals = localVariables(module);
  for (const llvm::Function &function : module)
    if (isKernel(function))
      info.kernels.push_back(describeKernel(function, locals, dl));
  for (const llvm::GlobalVariable &variable : module.globals())
    if (variable.getAddressSpace() == kGlobal && !variable.isDeclaration())
      info.globalVariableTotalSize +=
          dl.getTypeAllocSize(variable.getValueType()).getKnownMinValue();
  info.argInfoAvailable = argInfoRequested(module);
  info.printfCalls = printfCallSites(module);
  return info;
}

} // namespace kiln::compiler
