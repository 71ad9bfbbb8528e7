#include "compiler/program_info_serialization.hpp"

namespace kiln::compiler {
namespace {

/// Bump with every change to ProgramInfo or to the layout below.
constexpr uint32_t kFormatVersion = 4;

// The fewest bytes one element of each list takes, to bound the counts read back.
constexpr size_t kMinimumKernelBytes = 8;
constexpr size_t kMinimumArgBytes = 8;
constexpr size_t kMinimumPrintfCallBytes = 8;
constexpr size_t kMinimumPrintfArgBytes = 3;

template <size_t N> void writeSizes(ByteWriter &out, const std::array<size_t, N> &sizes) {
  for (size_t size : sizes)
    out.number<uint64_t>(size);
}

template <size_t N> void readSizes(ByteReader &in, std::array<size_t, N> &sizes) {
  for (size_t &size : sizes)
    size = in.number<uint64_t>();
}

void writeArg(ByteWriter &out, const KernelArgInfo &arg) {
  out.text(arg.name);
  out.text(arg.typeName);
  out.number(arg.addressQualifier);
  out.number(arg.accessQualifier);
  out.number(arg.typeQualifier);
  out.number(arg.kind);
  out.number(arg.valueSize);
  out.number(arg.blockOffset);
  out.number(arg.blockSize);
  out.number<uint8_t>(arg.onlyWritten);
}

KernelArgInfo readArg(ByteReader &in) {
  KernelArgInfo arg;
  arg.name = in.text();
  arg.typeName = in.text();
  arg.addressQualifier = in.number<cl_kernel_arg_address_qualifier>();
  arg.accessQualifier = in.number<cl_kernel_arg_access_qualifier>();
  arg.typeQualifier = in.number<cl_kernel_arg_type_qualifier>();
  arg.kind = in.number<ArgKind>();
  if (arg.kind > ArgKind::Queue)
    in.fail();
  arg.valueSize = in.number<uint32_t>();
  arg.blockOffset = in.number<uint32_t>();
  arg.blockSize = in.number<uint32_t>();
  arg.onlyWritten = in.number<uint8_t>() != 0;
  return arg;
}

void writeKernel(ByteWriter &out, const KernelInfo &kernel) {
  out.text(kernel.name);
  out.number<uint64_t>(kernel.args.size());
  for (const KernelArgInfo &arg : kernel.args)
    writeArg(out, arg);
  out.text(kernel.attributes);
  writeSizes(out, kernel.requiredWorkGroupSize);
  writeSizes(out, kernel.workGroupSizeHint);
  out.text(kernel.vecTypeHint);
  out.number(kernel.requiredSubGroupSize);
  out.number(kernel.staticLocalMemSize);
  out.number(kernel.argBlockSize);
  out.number(kernel.argBlockAlignment);
  out.number<uint8_t>(kernel.usesPrintf);
  out.number<uint8_t>(kernel.usesWorkGroupScratch);
  out.number<uint8_t>(kernel.usesDeviceEnqueue);
  out.number<uint8_t>(kernel.isEnqueuedBlock);
}

KernelInfo readKernel(ByteReader &in) {
  KernelInfo kernel;
  kernel.name = in.text();
  kernel.args.resize(in.count(kMinimumArgBytes));
  for (KernelArgInfo &arg : kernel.args)
    arg = readArg(in);
  kernel.attributes = in.text();
  readSizes(in, kernel.requiredWorkGroupSize);
  readSizes(in, kernel.workGroupSizeHint);
  kernel.vecTypeHint = in.text();
  kernel.requiredSubGroupSize = in.number<uint32_t>();
  kernel.staticLocalMemSize = in.number<uint64_t>();
  kernel.argBlockSize = in.number<uint32_t>();
  kernel.argBlockAlignment = in.number<uint32_t>();
  kernel.usesPrintf = in.number<uint8_t>() != 0;
  kernel.usesWorkGroupScratch = in.number<uint8_t>() != 0;
  kernel.usesDeviceEnqueue = in.number<uint8_t>() != 0;
  kernel.isEnqueuedBlock = in.number<uint8_t>() != 0;
  return kernel;
}

void writePrintfCall(ByteWriter &out, const PrintfCallSite &call) {
  out.text(call.format);
  out.number<uint64_t>(call.args.size());
  for (const PrintfArgument &arg : call.args) {
    out.number(arg.kind);
    out.number(arg.elementBytes);
    out.number(arg.elementCount);
  }
}

PrintfCallSite readPrintfCall(ByteReader &in) {
  PrintfCallSite call;
  call.format = in.text();
  call.args.resize(in.count(kMinimumPrintfArgBytes));
  for (PrintfArgument &arg : call.args) {
    arg.kind = in.number<PrintfArgument::Kind>();
    if (arg.kind > PrintfArgument::Kind::String)
      in.fail();
    arg.elementBytes = in.number<uint8_t>();
    arg.elementCount = in.number<uint8_t>();
  }
  return call;
}

} // namespace

void writeProgramInfo(ByteWriter &out, const ProgramInfo &info) {
  out.number(kFormatVersion);
  out.number<uint64_t>(info.kernels.size());
  for (const KernelInfo &kernel : info.kernels)
    writeKernel(out, kernel);
  out.number<uint64_t>(info.globalVariableTotalSize);
  out.number<uint8_t>(info.argInfoAvailable);
  out.number<uint64_t>(info.printfCalls.size());
  for (const PrintfCallSite &call : info.printfCalls)
    writePrintfCall(out, call);
}

std::optional<ProgramInfo> readProgramInfo(ByteReader &in) {
  if (in.number<uint32_t>() != kFormatVersion)
    in.fail();
  ProgramInfo info;
  info.kernels.resize(in.count(kMinimumKernelBytes));
  for (KernelInfo &kernel : info.kernels)
    kernel = readKernel(in);
  info.globalVariableTotalSize = in.number<uint64_t>();
  info.argInfoAvailable = in.number<uint8_t>() != 0;
  info.printfCalls.resize(in.count(kMinimumPrintfCallBytes));
  for (PrintfCallSite &call : info.printfCalls)
    call = readPrintfCall(in);
  if (!in.ok())
    return std::nullopt;
  return info;
}

} // namespace kiln::compiler
