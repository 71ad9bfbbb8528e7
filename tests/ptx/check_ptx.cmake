# One PTX test: compiles KERNEL (OpenCL C 3.0, with the build options of a "// PTX options:" line)
# with kilnc as the GPU device does (MODE optimized or unoptimized, i.e. -cl-opt-disable), checks that every kernel has its entry and that the PTX
# matches each "// PTX contains: <regex>" line of the kernel's source (and, optimized, each "// PTX
# optimized contains: <regex>" line), then assembles the PTX
# with the CUDA toolkit's ptxas for sm_90 when PTXAS names one.
set(options -cl-std=CL3.0)
file(READ ${KERNEL} source)
# "// PTX options: <build options>" adds build options.
string(REGEX MATCH "// PTX options: ([^\n]+)" extra "${source}")
if(extra)
  separate_arguments(extra_options UNIX_COMMAND "${CMAKE_MATCH_1}")
  list(APPEND options ${extra_options})
endif()
if(MODE STREQUAL "unoptimized")
  list(APPEND options -cl-opt-disable)
endif()
execute_process(COMMAND ${KILNC} -q --link --ptx 90 ${options} ${KERNEL} -o ${OUTPUT}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "kilnc failed on ${KERNEL}:\n${out}")
endif()
file(READ ${OUTPUT} ptx)
string(REGEX MATCHALL "kernel void ([A-Za-z_0-9]+)" kernels "${source}")
foreach(kernel ${kernels})
  string(REPLACE "kernel void " "" name "${kernel}")
  if(NOT ptx MATCHES "\\.entry __kiln_entry_${name}\\(")
    message(FATAL_ERROR "no PTX entry for kernel ${name}")
  endif()
endforeach()
# "// PTX optimized contains: <regex>" lines hold only for the optimized compile.
string(REGEX MATCHALL "// PTX contains: [^\n]+" expectations "${source}")
if(MODE STREQUAL "optimized")
  string(REGEX MATCHALL "// PTX optimized contains: [^\n]+" optimized_expectations "${source}")
  list(APPEND expectations ${optimized_expectations})
endif()
foreach(expectation ${expectations})
  string(REGEX REPLACE "// PTX (optimized )?contains: " "" pattern "${expectation}")
  if(NOT ptx MATCHES "${pattern}")
    message(FATAL_ERROR "the PTX of ${KERNEL} does not contain ${pattern}")
  endif()
endforeach()
if(PTXAS AND ptx MATCHES "cudaLaunchDeviceV2")
  # Kernels that start kernels themselves: relocatable code, linked with CUDA's device runtime
  # as the driver links it.
  get_filename_component(toolkit_bin ${PTXAS} DIRECTORY)
  execute_process(COMMAND ${PTXAS} -arch=sm_90 -c ${OUTPUT} -o ${OUTPUT}.o
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "ptxas rejected the PTX of ${KERNEL}:\n${out}")
  endif()
  execute_process(COMMAND ${toolkit_bin}/nvlink -arch=sm_90 ${OUTPUT}.o
                          ${toolkit_bin}/../lib64/libcudadevrt.a -o ${OUTPUT}.cubin
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "nvlink cannot link the PTX of ${KERNEL} with the device runtime:\n${out}")
  endif()
elseif(PTXAS)
  execute_process(COMMAND ${PTXAS} -arch=sm_90 ${OUTPUT} -o ${OUTPUT}.cubin
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "ptxas rejected the PTX of ${KERNEL}:\n${out}")
  endif()
else()
  message(STATUS "no ptxas (CUDA toolkit): the PTX was not assembled")
endif()
