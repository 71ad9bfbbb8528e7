# Writes the names a bitcode piece of the builtin library defines for other modules, one per
# line: cmake -DLLVM_NM=... -DBITCODE=piece.bc -DOUTPUT=piece.symbols -P list_symbols.cmake
execute_process(COMMAND ${LLVM_NM} --defined-only --extern-only --just-symbol-name ${BITCODE}
                OUTPUT_FILE ${OUTPUT} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "llvm-nm failed on ${BITCODE}")
endif()
