# The portable build's link of libkiln-compiler.so: LLVM's and Clang's static libraries instead of
# the shared libLLVM and libclang-cpp, so the library needs nothing of LLVM where it runs.
#
# Debian's Clang package describes its static libraries as linking the shared libLLVM, so they are
# named here by file, and LLVM's own static libraries are given as one group: the linker takes
# from them only what Kiln reaches, and drops the sections nothing refers to.
set(kiln_clang_static_libraries
  clangCodeGen clangFrontend clangDriver clangOptions clangParse clangSema clangSerialization
  clangAnalysis clangAnalysisLifetimeSafety clangASTMatchers clangAST clangEdit clangLex clangBasic
  clangAPINotes clangSupport)

function(kiln_link_static_llvm target)
  set(archives)
  foreach(name ${kiln_clang_static_libraries})
    set(archive ${LLVM_LIBRARY_DIR}/lib${name}.a)
    if(EXISTS ${archive})
      list(APPEND archives ${archive})
    endif()
  endforeach()
  # LLVMConfig lists every library it installed; with Debian's shared-library build,
  # llvm_map_components_to_libnames would answer "LLVM", the shared library, instead.
  foreach(component ${LLVM_AVAILABLE_LIBS})
    set(archive ${LLVM_LIBRARY_DIR}/lib${component}.a)
    # Only LLVM's own libraries: the list also names tools' libraries (opt's driver wants Polly).
    if(EXISTS ${archive} AND
       NOT component MATCHES "^LLVM(Testing|Exegesis|TableGen|BOLT|OptDriver|Diff|CFIVerify|Fuzz)")
      list(APPEND archives ${archive})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES archives)
  target_sources(${target} PRIVATE
                 ${PROJECT_SOURCE_DIR}/src/compiler/llvm/portable/no_polly_extension.cpp)
  find_package(ZLIB REQUIRED)
  # The runtime library is enough: libzstd-dev is not needed for this link.
  find_library(KILN_ZSTD_LIBRARY NAMES zstd libzstd.so.1 REQUIRED)
  target_link_libraries(${target} PRIVATE
    -Wl,--start-group ${archives} -Wl,--end-group ZLIB::ZLIB ${KILN_ZSTD_LIBRARY} ${CMAKE_DL_LIBS})
  # --exclude-libs: none of LLVM's symbols is exported (the version script hides them as well, but
  # this keeps them out of the dynamic symbol table's way entirely). --as-needed drops libraries
  # whose code the link did not take (LLVM's Z3 solver, for one). lld links this in seconds where
  # GNU ld takes minutes.
  target_link_options(${target} PRIVATE -fuse-ld=lld -Wl,--gc-sections -Wl,--as-needed
                      -Wl,--exclude-libs,ALL -Wl,-O1 -s)
endfunction()
