// The entry point of libkiln-compiler.so.
#include "compiler/compiler_library.hpp"
#include "compiler/llvm/clang_frontend.hpp"
#include "devices/cpu/codegen/cpu_kernel_jit.hpp"
#include "devices/cuda/codegen/ptx_compiler.hpp"

#include <llvm/ADT/Statistic.h>
#include <llvm/Support/VirtualFileSystem.h>

namespace kiln {
namespace {

class LlvmCompilerServices final : public CompilerServices {
public:
  // LLVM's shared real file system and the lock of its statistics registry are created lazily
  // inside libLLVM. Creating them here, under this library's own once-only initialisation,
  // makes their construction happen before any build thread uses them, in a way
  // ThreadSanitizer can see (libLLVM itself is not instrumented): otherwise the first pass to
  // count a statistic in each of two concurrent builds races to create the lock, as far as it
  // can tell (ProgramCacheTest.ThreadsBuildingTheSameSourceAtOnceAllSucceed, once in a CI run).
  LlvmCompilerServices() {
    (void)llvm::vfs::getRealFileSystem();
    (void)llvm::GetStatistics();
  }

  compiler::Frontend &frontend() override { return *frontend_; }
  cpu::KernelJit &cpuJit() override { return *cpuJit_; }
  cuda::PtxCompiler &ptxCompiler() override { return *ptxCompiler_; }

private:
  std::unique_ptr<compiler::Frontend> frontend_ = compiler::createClangFrontend();
  std::unique_ptr<cpu::KernelJit> cpuJit_ = cpu::createCpuKernelJit();
  std::unique_ptr<cuda::PtxCompiler> ptxCompiler_ = cuda::createPtxCompiler();
};

} // namespace
} // namespace kiln

extern "C" __attribute__((visibility("default"))) kiln::CompilerServices *
kiln_compiler_services_v3() {
  static kiln::LlvmCompilerServices services;
  return &services;
}
