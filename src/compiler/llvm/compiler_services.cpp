// The entry point of libkiln-compiler.so.
#include "compiler/compiler_library.hpp"
#include "compiler/llvm/clang_frontend.hpp"
#include "devices/cpu/codegen/cpu_kernel_jit.hpp"

namespace kiln {
namespace {

class LlvmCompilerServices final : public CompilerServices {
public:
  compiler::Frontend &frontend() override { return *frontend_; }
  cpu::KernelJit &cpuJit() override { return *cpuJit_; }

private:
  std::unique_ptr<compiler::Frontend> frontend_ = compiler::createClangFrontend();
  std::unique_ptr<cpu::KernelJit> cpuJit_ = cpu::createCpuKernelJit();
};

} // namespace
} // namespace kiln

extern "C" __attribute__((visibility("default"))) kiln::CompilerServices *
kiln_compiler_services_v1() {
  static kiln::LlvmCompilerServices services;
  return &services;
}
