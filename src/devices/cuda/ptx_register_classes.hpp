// PTX's register classes in the operand constraints of `asm` statements.
#pragma once

#include <string_view>

namespace kiln::cuda {

/// The constraint letters of PTX's register classes that programs written for NVIDIA's driver
/// use beside the generic `r`: `c` (8 bits), `h` (16), `l` (64), `f` (32-bit float), `d` (64-bit
/// float). The front end reads them as `r`, which the code generator then replaces by the class
/// of the operand's width (asm_register_classes.hpp).
inline constexpr std::string_view kPtxRegisterClassLetters = "chlfd";

} // namespace kiln::cuda
