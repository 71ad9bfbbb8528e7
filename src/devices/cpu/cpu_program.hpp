//===- cpu_program.hpp - A program and its kernels on the CPU device ------===//
//
// A program loaded on the CPU device holds what its build prepared (one work-group function per
// kernel, as LLVM bitcode that the on-disk cache can keep) and compiles each kernel for a shape
// of work-group when a launch first needs it, through the CPU's code generator, which it loads
// only then.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/work_group_scratch.hpp"
#include "devices/cpu/kernel_jit.hpp"
#include "devices/cpu/prepared_program_serialization.hpp"
#include "devices/cpu/work_group_code_cache.hpp"
#include "runtime/device_driver.hpp"
#include "runtime/objects/compiler_loader.hpp"

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::cpu {

class CpuProgram;

class CpuKernel final : public DeviceKernel {
public:
  /// `program` owns the kernel; `printfCalls`: the program's printf call sites, which outlive
  /// the kernel.
  CpuKernel(CpuProgram &program, size_t index, uint32_t preferredMultiple, uint32_t subGroupWidth,
            const compiler::KernelInfo &info, size_t maxWorkGroupSize,
            const std::vector<compiler::PrintfCallSite> &printfCalls)
      : program_(program), index_(index), preferredMultiple_(preferredMultiple),
        subGroupWidth_(subGroupWidth), maxWorkGroupSize_(maxWorkGroupSize),
        printfCalls_(info.usesPrintf ? &printfCalls : nullptr) {
    if (info.requiredWorkGroupSize[0] != 0)
      maxWorkGroupSize_ = info.requiredWorkGroupSize[0] * info.requiredWorkGroupSize[1] *
                          info.requiredWorkGroupSize[2];
    if (info.usesWorkGroupScratch)
      workGroupScratchSize_ = compiler::workGroupScratchBytes(maxWorkGroupSize_, subGroupWidth_);
    for (unsigned dim = 0; dim < 3; ++dim)
      requiredWorkGroupSize_[dim] = info.requiredWorkGroupSize[dim];
  }

  DeviceKernelInfo info() const override {
    DeviceKernelInfo result;
    result.maxWorkGroupSize = maxWorkGroupSize_;
    // A group smaller than the vector (reqd_work_group_size) fills only that many lanes.
    result.preferredWorkGroupSizeMultiple = std::min<size_t>(preferredMultiple_, maxWorkGroupSize_);
    // Large enough to amortize the cost of starting a work-group, small enough that the
    // work-items' data stays in cache. A streaming kernel (STREAM's triad) moved 8-12% more
    // bytes a second with 1024 work-items a group than with 256; 4096 gained nothing more.
    result.preferredWorkGroupItems = 1024;
    result.subGroupSize = subGroupWidth_;
    result.workGroupScratchSize = workGroupScratchSize_;
    return result;
  }

  /// The stack of the work-group function for the kernel's usual work-group: its required size,
  /// else as many work-items along dimension 0 as it allows, up to 256.
  cl_ulong spillMemorySize() const override;

  /// The work-group function for work-groups of `shape`, compiled on its first use. Null, with
  /// `error` set, when it cannot be compiled.
  const WorkGroupCode *code(const WorkGroupShape &shape, std::string &error) const;

  /// The program's printf call sites when the kernel calls printf, else null.
  const std::vector<compiler::PrintfCallSite> *printfCalls() const { return printfCalls_; }

private:
  CpuProgram &program_;
  size_t index_; // in the program's ProgramInfo
  uint32_t preferredMultiple_;
  uint32_t subGroupWidth_;
  size_t maxWorkGroupSize_;
  cl_ulong workGroupScratchSize_ = 0;
  std::array<size_t, 3> requiredWorkGroupSize_{}; // reqd_work_group_size, 0s when not given
  const std::vector<compiler::PrintfCallSite> *printfCalls_;
  mutable WorkGroupCodeCache codes_;
};

class CpuProgram final : public DeviceProgram {
public:
  CpuProgram(CodeGeneratorHandle<KernelJit> jitCompiler, PreparedProgram prepared,
             const compiler::ProgramInfo &info, size_t maxWorkGroupSize)
      : jitCompiler_(jitCompiler), prepared_(std::move(prepared)), info_(info) {
    for (size_t index = 0; index < info.kernels.size(); ++index) {
      uint32_t multiple =
          index < prepared_.preferredMultiples.size() ? prepared_.preferredMultiples[index] : 1;
      uint32_t subGroupWidth =
          index < prepared_.subGroupWidths.size() ? prepared_.subGroupWidths[index] : 1;
      kernels_.emplace(info.kernels[index].name,
                       std::make_unique<CpuKernel>(*this, index, multiple, subGroupWidth,
                                                   info.kernels[index], maxWorkGroupSize,
                                                   info_.printfCalls));
    }
  }

  const DeviceKernel *kernel(std::string_view name) const override {
    auto found = kernels_.find(name);
    return found == kernels_.end() ? nullptr : found->second.get();
  }

  std::vector<std::byte> serialize() const override { return serializePreparedProgram(prepared_); }

  /// Compiles kernel number `kernel` for work-groups of `shape`.
  bool specialize(size_t kernel, const WorkGroupShape &shape, WorkGroupCode &code,
                  std::string &error) {
    JitProgram *jit = this->jit(error);
    return jit != nullptr && jit->specialize(kernel, shape, code, error);
  }

private:
  /// The JIT side of the program, made when a kernel first runs (a program loaded from the
  /// on-disk cache needs no LLVM before that).
  JitProgram *jit(std::string &error) {
    std::lock_guard lock(jitMutex_);
    if (!jit_) {
      KernelJit *compiler = jitCompiler_.get(error);
      if (compiler == nullptr)
        return nullptr;
      jit_ = compiler->load(prepared_, info_);
    }
    return jit_.get();
  }

  CodeGeneratorHandle<KernelJit> jitCompiler_;
  PreparedProgram prepared_;
  compiler::ProgramInfo info_;
  std::mutex jitMutex_;
  std::unique_ptr<JitProgram> jit_;
  std::map<std::string, std::unique_ptr<CpuKernel>, std::less<>> kernels_;
};

} // namespace kiln::cpu
