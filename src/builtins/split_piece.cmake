# Splits one compiled source of the builtin library into COUNT parts, so that linking a program
# reads only the parts that define the functions it calls (the module records of a part are read
# whole, and one of a few hundred functions costs as much as its code). Parts keep internal
# functions and constants with the functions that use them (--preserve-locals), and lose the
# declarations they do not use. Writes PREFIX<i>.bc and PREFIX<i>.symbols (the names the part
# defines for other modules, one per line) for i in 0..COUNT-1.
#   cmake -DLLVM_SPLIT=... -DOPT=... -DLLVM_NM=... -DBITCODE=piece.bc -DCOUNT=n -DPREFIX=...
#         -P split_piece.cmake
execute_process(COMMAND ${LLVM_SPLIT} --preserve-locals -j ${COUNT} -o ${PREFIX}.split
                        ${BITCODE}
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "llvm-split failed on ${BITCODE}")
endif()
math(EXPR last "${COUNT} - 1")
foreach(index RANGE ${last})
  set(part ${PREFIX}${index}.bc)
  execute_process(COMMAND ${OPT} -passes=strip-dead-prototypes -o ${part}
                          ${PREFIX}.split${index}
                  RESULT_VARIABLE status ERROR_VARIABLE ignored)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "opt failed on ${PREFIX}.split${index}")
  endif()
  file(REMOVE ${PREFIX}.split${index})
  execute_process(COMMAND ${LLVM_NM} --defined-only --extern-only --just-symbol-name ${part}
                  OUTPUT_FILE ${PREFIX}${index}.symbols RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "llvm-nm failed on ${part}")
  endif()
endforeach()
