//===- cpu_program.cpp - A program and its kernels on the CPU device ------===//
#include "devices/cpu/cpu_program.hpp"

namespace kiln::cpu {

const WorkGroupCode *CpuKernel::code(const WorkGroupShape &shape, std::string &error) const {
  if (const WorkGroupCode *code = codes_.findRecent(shape))
    return code;
  return codes_.findOrCompile(
      shape,
      [this](const WorkGroupShape &wanted, WorkGroupCode &code, std::string &failure) {
        return program_.specialize(index_, wanted, code, failure);
      },
      error);
}

} // namespace kiln::cpu
