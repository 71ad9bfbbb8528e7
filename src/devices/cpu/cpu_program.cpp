//===- cpu_program.cpp - A program and its kernels on the CPU device ------===//
#include "devices/cpu/cpu_program.hpp"

#include <algorithm>

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

cl_ulong CpuKernel::spillMemorySize() const {
  WorkGroupShape shape;
  if (requiredWorkGroupSize_[0] != 0)
    for (unsigned dim = 0; dim < 3; ++dim)
      shape.localSize[dim] = requiredWorkGroupSize_[dim];
  else
    shape.localSize[0] = std::min<size_t>(maxWorkGroupSize_, 256);
  shape.enqueuedLocalSize = shape.localSize;
  std::string error;
  const WorkGroupCode *compiled = code(shape, error);
  return compiled != nullptr ? compiled->stackBytes : 0;
}

} // namespace kiln::cpu
