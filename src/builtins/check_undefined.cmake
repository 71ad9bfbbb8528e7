# Fails when the linked builtin library (BITCODE) references a function other than the
# __kiln_* primitives (overloaded ones mangled: _Z<length>__kiln_*), LLVM intrinsics and the host math functions listed in HOST_FUNCTIONS.
# Run with cmake -DLLVM_NM=... -DBITCODE=... -DHOST_FUNCTIONS=... -P check_undefined.cmake.
execute_process(COMMAND ${LLVM_NM} --undefined-only --format=just-symbols ${BITCODE}
  OUTPUT_VARIABLE undefined RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "llvm-nm failed on ${BITCODE}")
endif()
file(STRINGS ${HOST_FUNCTIONS} host_lines REGEX "^KILN_HOST_FUNCTION\\(")
set(allowed)
foreach(line ${host_lines})
  string(REGEX REPLACE "^KILN_HOST_FUNCTION\\(([A-Za-z0-9_]+)\\).*" "\\1" name "${line}")
  list(APPEND allowed ${name})
endforeach()
string(REPLACE "\n" ";" undefined "${undefined}")
set(bad)
foreach(symbol ${undefined})
  if(symbol STREQUAL "" OR symbol MATCHES "^__kiln_" OR symbol MATCHES "^_Z[0-9]+__kiln_" OR
     symbol MATCHES "^llvm\\.")
    continue()
  endif()
  list(FIND allowed ${symbol} index)
  if(index EQUAL -1)
    list(APPEND bad ${symbol})
  endif()
endforeach()
if(bad)
  # Remove the library so that no later build embeds it.
  file(REMOVE ${BITCODE})
  message(FATAL_ERROR "The builtin library calls functions that are neither __kiln_* "
                      "primitives, LLVM intrinsics nor listed in host_math_functions.def: ${bad}")
endif()
