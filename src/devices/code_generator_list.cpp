// The code generators libkiln-compiler.so has, one row per kind of device: the compiler
// library's composition root, beside the device list (device_list.cpp). The compiler names no
// device; a device with a code generator of its own adds its row here.
#include "compiler/code_generator.hpp"
#include "devices/cpu/codegen/jit/cpu_kernel_jit.hpp"
#ifdef KILN_CODE_GENERATOR_CUDA
#include "devices/cuda/codegen/ptx_compiler.hpp"
#endif

namespace kiln::compiler {
namespace {

template <auto create> std::unique_ptr<CodeGenerator> make() {
  return create();
}

constexpr CodeGeneratorKind kCodeGenerators[] = {
    {cpu::KernelJit::kKind, make<cpu::createCpuKernelJit>},
#ifdef KILN_CODE_GENERATOR_CUDA
    {cuda::PtxCompiler::kKind, make<cuda::createPtxCompiler>},
#endif
};

} // namespace

std::span<const CodeGeneratorKind> codeGeneratorList() {
  return kCodeGenerators;
}

} // namespace kiln::compiler
