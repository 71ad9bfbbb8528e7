// The OpenCL address spaces as the front end numbers them in SPIR IR (Clang's SPIR target).
// The compiler's passes and the CPU code generator read pointers' spaces by these numbers.
#pragma once

namespace kiln::compiler::spir {

inline constexpr unsigned kPrivateAddressSpace = 0;
inline constexpr unsigned kGlobalAddressSpace = 1;
inline constexpr unsigned kConstantAddressSpace = 2;
inline constexpr unsigned kLocalAddressSpace = 3;
inline constexpr unsigned kGenericAddressSpace = 4;

/// Whether a pointer of `space` points into a buffer: global or constant memory.
inline constexpr bool isBufferAddressSpace(unsigned space) {
  return space == kGlobalAddressSpace || space == kConstantAddressSpace;
}

} // namespace kiln::compiler::spir
