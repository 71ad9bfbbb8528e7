// The code generators libkiln-compiler.so has, one row per kind of device: the compiler
// library's composition root, beside the device list (device_list.cpp). The compiler names no
// device; a device with a code generator of its own adds its row here.
#include "compiler/code_generator.hpp"
#include "devices/cpu/codegen/jit/cpu_kernel_jit.hpp"
#include "devices/cuda/codegen/ptx_compiler.hpp"

namespace kiln::compiler {
namespace {

template <auto create> std::unique_ptr<CodeGenerator> make() {
  return create();
}

constexpr CodeGeneratorKind kCodeGenerators[] = {
    {cpu::KernelJit::kKind, make<cpu::createCpuKernelJit>},
    {cuda::PtxCompiler::kKind, make<cuda::createPtxCompiler>},
};

} // namespace

std::span<const CodeGeneratorKind> codeGeneratorList() {
  return kCodeGenerators;
}

} // namespace kiln::compiler
