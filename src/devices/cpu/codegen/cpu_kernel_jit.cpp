// PLACEHOLDER while the code generator is being written: compiles nothing.
#include "devices/cpu/codegen/cpu_kernel_jit.hpp"

namespace kiln::cpu {
namespace {
class CpuKernelJit final : public KernelJit {
public:
  std::unique_ptr<JitProgram> compile(const compiler::Bitcode &, const compiler::ProgramInfo &,
                                      bool, std::string &error) override {
    error = "the CPU code generator is not written yet";
    return nullptr;
  }
  std::string hostCpuName() override { return "unknown"; }
};
} // namespace

std::unique_ptr<KernelJit> createCpuKernelJit() { return std::make_unique<CpuKernelJit>(); }

} // namespace kiln::cpu
