// Programs: creation from source and binaries, clBuildProgram and its options, build failures
// with logs, build queries, binaries round trip and corruption, clCompileProgram with embedded
// headers and clLinkProgram (executables and libraries).
#include "cl_test.hpp"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace cltest;

namespace {

class ProgramTest : public ClTest {
protected:
  /// A program from source, not built.
  Program fromSource(const std::string &source) {
    const char *text = source.c_str();
    cl_int error = CL_SUCCESS;
    Program program(clCreateProgramWithSource(context_, 1, &text, nullptr, &error));
    EXPECT_CL_SUCCESS(error);
    return program;
  }

  cl_build_status status(cl_program program) {
    return buildInfo<cl_build_status>(program, device_, CL_PROGRAM_BUILD_STATUS);
  }
  cl_program_binary_type binaryType(cl_program program) {
    return buildInfo<cl_program_binary_type>(program, device_, CL_PROGRAM_BINARY_TYPE);
  }
  std::string options(cl_program program) {
    return queryString([&](size_t s, void *v, size_t *r) {
      return clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_OPTIONS, s, v, r);
    });
  }
  std::string programString(cl_program program, cl_program_info param) {
    return queryString(
        [&](size_t s, void *v, size_t *r) { return clGetProgramInfo(program, param, s, v, r); });
  }

  /// The executable binary of a built program for the device.
  std::vector<unsigned char> binaryOf(cl_program program) {
    size_t size = 0;
    EXPECT_CL_SUCCESS(
        clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr));
    std::vector<unsigned char> binary(size);
    unsigned char *pointer = binary.data();
    EXPECT_CL_SUCCESS(
        clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof pointer, &pointer, nullptr));
    return binary;
  }

  Program fromBinary(const std::vector<unsigned char> &binary, cl_int &error,
                     cl_int &binaryStatus) {
    const unsigned char *pointer = binary.data();
    size_t length = binary.size();
    binaryStatus = 12345;
    return Program(
        clCreateProgramWithBinary(context_, 1, &device_, &length, &pointer, &binaryStatus, &error));
  }

  /// Runs kernel `name` of `program` with one int buffer of `count` elements and returns it.
  std::vector<int> runIntKernel(cl_program program, const char *name, size_t count) {
    Kernel kernel = createKernel(program, name);
    if (kernel == nullptr)
      return {};
    Mem out = createBuffer(CL_MEM_READ_WRITE, count * sizeof(int));
    EXPECT_TRUE(setArgs(kernel, out));
    EXPECT_TRUE(run1D(kernel, count));
    return read<int>(out, count);
  }
};

const char *kTwoKernels = R"(
  kernel void first(global int *out) { out[get_global_id(0)] = (int)get_global_id(0) + 1; }
  kernel void second(global int *out) { out[get_global_id(0)] = 2; }
)";

/// A temporary folder, removed with its contents at the end of the test.
class TempDir {
public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kiln_tests_XXXXXX").string();
    path_ = mkdtemp(pattern.data()) != nullptr ? pattern : std::string();
  }
  ~TempDir() {
    if (!path_.empty())
      std::filesystem::remove_all(path_);
  }
  const std::string &path() const { return path_; }
  void write(const std::string &name, const std::string &text) const {
    std::filesystem::path file = std::filesystem::path(path_) / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }

private:
  std::string path_;
};

} // namespace

// ---------------------------------------------------------------------------------------------
// Creation and queries before any build (no compiler involved)

TEST_F(ProgramTest, SourceIsTheConcatenationOfTheStrings) {
  std::string first = "kernel void a(global int *p) { p[0] = 1; }\n";
  std::string second = "kernel void b(global int *p) { p[0] = 2; }\nNOT PART OF THE SOURCE";
  size_t secondLength = second.find("NOT");
  const char *strings[] = {first.c_str(), second.c_str()};
  // "If an element in lengths is zero, its accompanying string is null-terminated."
  size_t lengths[] = {0, secondLength};
  cl_int error = CL_SUCCESS;
  Program program(clCreateProgramWithSource(context_, 2, strings, lengths, &error));
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(first + second.substr(0, secondLength), programString(program, CL_PROGRAM_SOURCE));
  // "If lengths is NULL, all strings in the strings argument are considered null-terminated."
  const char *whole[] = {first.c_str(), first.c_str()};
  Program again(clCreateProgramWithSource(context_, 2, whole, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(first + first, programString(again, CL_PROGRAM_SOURCE));
}

TEST_F(ProgramTest, CreateWithSourceErrors) {
  const char *source = kTwoKernels;
  const char *withNull[] = {source, nullptr};
  cl_int error = CL_SUCCESS;
  // "CL_INVALID_VALUE if count is zero or if strings or any entry in strings is NULL."
  EXPECT_EQ(nullptr, clCreateProgramWithSource(context_, 0, &source, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  if (!isPocl()) { // PoCL 3.1 crashes on a NULL strings array
    EXPECT_EQ(nullptr, clCreateProgramWithSource(context_, 1, nullptr, nullptr, &error));
    EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  }
  EXPECT_EQ(nullptr, clCreateProgramWithSource(context_, 2, withNull, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  EXPECT_EQ(nullptr, clCreateProgramWithSource(nullptr, 1, &source, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, error);
}

TEST_F(ProgramTest, QueriesBeforeABuild) {
  Program program = fromSource(kTwoKernels);
  EXPECT_EQ(context_.get(), programInfo<cl_context>(program, CL_PROGRAM_CONTEXT));
  EXPECT_EQ(1u, programInfo<cl_uint>(program, CL_PROGRAM_NUM_DEVICES));
  EXPECT_EQ(device_, programInfo<cl_device_id>(program, CL_PROGRAM_DEVICES));
  EXPECT_GE(refCount(program.get()), 1u);
  EXPECT_EQ(CL_BUILD_NONE, status(program));
  EXPECT_EQ(cl_program_binary_type{CL_PROGRAM_BINARY_TYPE_NONE}, binaryType(program));
  // "If a binary is not available for a device(s), a size of zero is returned." (PoCL 3.1:
  // CL_INVALID_PROGRAM.)
  EXPECT_EQ(0u, programInfo<size_t>(program, CL_PROGRAM_BINARY_SIZES));
  // CL_PROGRAM_IL of a source program: param_value_size_ret is 0.
  size_t size = 99;
  EXPECT_CL_SUCCESS(clGetProgramInfo(program, CL_PROGRAM_IL, 0, nullptr, &size));
  EXPECT_EQ(0u, size);
}

TEST_F(ProgramTest, KernelQueriesBeforeABuildAreInvalidProgramExecutable) {
  Program program = fromSource(kTwoKernels);
  size_t count = 0;
  char names[256];
  cl_bool present = CL_FALSE;
  // "CL_INVALID_PROGRAM_EXECUTABLE if param_name is CL_PROGRAM_NUM_KERNELS,
  // CL_PROGRAM_KERNEL_NAMES, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, or
  // CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT and a successful program executable has not been built
  // for at least one device". (PoCL 3.1 answers the constructor queries.)
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE,
                  clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof count, &count, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE,
                  clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE,
                  clGetProgramInfo(program, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, sizeof present,
                                   &present, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE,
                  clGetProgramInfo(program, CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT, sizeof present,
                                   &present, nullptr));
  cl_int error = CL_SUCCESS;
  // clCreateKernel: "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable
  // for program".
  EXPECT_EQ(nullptr, clCreateKernel(program, "first", &error));
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE, error);
  cl_uint kernels = 0;
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE,
                  clCreateKernelsInProgram(program, 0, nullptr, &kernels));
}

TEST_F(ProgramTest, InfoAndBuildInfoErrors) {
  Program program = fromSource(kTwoKernels);
  cl_uint value = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetProgramInfo(program, 0x7FFF, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES,
                                                     sizeof value - 1, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM,
                  clGetProgramInfo(nullptr, CL_PROGRAM_NUM_DEVICES, sizeof value, &value, nullptr));
  cl_build_status buildStatus;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetProgramBuildInfo(program, device_, 0x7FFF, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_STATUS,
                                                          1, &buildStatus, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_DEVICE,
                  clGetProgramBuildInfo(program, nullptr, CL_PROGRAM_BUILD_STATUS,
                                        sizeof buildStatus, &buildStatus, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM,
                  clGetProgramBuildInfo(nullptr, device_, CL_PROGRAM_BUILD_STATUS,
                                        sizeof buildStatus, &buildStatus, nullptr));
}

TEST_F(ProgramTest, ForeignDeviceInBuildInfoIsInvalidDevice) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  Program program = fromSource(kTwoKernels);
  ForeignObject foreign;
  cl_build_status buildStatus;
  EXPECT_CL_ERROR(CL_INVALID_DEVICE,
                  clGetProgramBuildInfo(program, foreign.as<cl_device_id>(device_),
                                        CL_PROGRAM_BUILD_STATUS, sizeof buildStatus, &buildStatus,
                                        nullptr));
  EXPECT_CL_ERROR(
      CL_INVALID_DEVICE,
      clBuildProgram(program, 1, reinterpret_cast<cl_device_id *>(&foreign), "", nullptr, nullptr));
}

TEST_F(ProgramTest, RetainAndReleaseMoveTheReferenceCount) {
  Program program = fromSource(kTwoKernels);
  cl_uint initial = refCount(program.get());
  ASSERT_CL_SUCCESS(clRetainProgram(program));
  EXPECT_EQ(initial + 1, refCount(program.get()));
  ASSERT_CL_SUCCESS(clReleaseProgram(program));
  EXPECT_EQ(initial, refCount(program.get()));
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM, clRetainProgram(nullptr));
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM, clReleaseProgram(nullptr));
}

TEST_F(ProgramTest, UnknownBuildOptionIsInvalidBuildOptions) {
  for (const char *options : {"-fkiln-no-such-option", "-cl-no-such-option", "-cl-std=CL9.9",
                              "-cl-opt-disable --bogus"}) {
    Program program = fromSource(kTwoKernels);
    EXPECT_CL_ERROR(CL_INVALID_BUILD_OPTIONS,
                    clBuildProgram(program, 1, &device_, options, nullptr, nullptr))
        << options;
  }
}

TEST_F(ProgramTest, BuildArgumentErrors) {
  Program program = fromSource(kTwoKernels);
  int data = 0;
  // "CL_INVALID_VALUE if device_list is NULL and num_devices is greater than zero, or if
  // device_list is not NULL and num_devices is zero."
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clBuildProgram(program, 1, nullptr, "", nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clBuildProgram(program, 0, &device_, "", nullptr, nullptr));
  // "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clBuildProgram(program, 1, &device_, "", nullptr, &data));
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM, clBuildProgram(nullptr, 1, &device_, "", nullptr, nullptr));
  EXPECT_EQ(CL_BUILD_NONE, status(program)) << "a rejected call must not start a build";
}

// ---------------------------------------------------------------------------------------------
// Successful builds

TEST_F(ProgramTest, SuccessfulBuildReportsStatusOptionsAndKernels) {
  Program program = fromSource(kTwoKernels);
  const char *buildOptions = "-cl-mad-enable";
  cl_int error = clBuildProgram(program, 1, &device_, buildOptions, nullptr, nullptr);
  ASSERT_CL_SUCCESS(error) << buildLog(program, device_);
  EXPECT_EQ(CL_BUILD_SUCCESS, status(program));
  EXPECT_EQ(cl_program_binary_type{CL_PROGRAM_BINARY_TYPE_EXECUTABLE}, binaryType(program));
  EXPECT_EQ(buildOptions, options(program));
  // The log is a string (possibly empty) after a successful build.
  queryString([&](size_t s, void *v, size_t *r) {
    return clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, s, v, r);
  });
  EXPECT_EQ(2u, programInfo<size_t>(program, CL_PROGRAM_NUM_KERNELS));
  std::vector<std::string> names = split(programString(program, CL_PROGRAM_KERNEL_NAMES), ';');
  std::sort(names.begin(), names.end());
  EXPECT_EQ((std::vector<std::string>{"first", "second"}), names);
  EXPECT_GT(programInfo<size_t>(program, CL_PROGRAM_BINARY_SIZES), 0u);
  cl_bool present = CL_TRUE;
  EXPECT_CL_SUCCESS(clGetProgramInfo(program, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, sizeof present,
                                     &present, nullptr));
  EXPECT_EQ(cl_bool{CL_FALSE}, present) << "OpenCL C programs have no global constructors";
}

TEST_F(ProgramTest, BuildWithoutDeviceListBuildsForEveryDevice) {
  Program program = fromSource(kTwoKernels);
  ASSERT_CL_SUCCESS(clBuildProgram(program, 0, nullptr, nullptr, nullptr, nullptr))
      << buildLog(program, device_);
  EXPECT_EQ(CL_BUILD_SUCCESS, status(program));
  EXPECT_EQ("", options(program));
}

TEST_F(ProgramTest, BuildCallbackIsCalledOnceWithTheProgram) {
  struct Seen {
    std::atomic<int> calls{0};
    cl_program program = nullptr;
  } seen;
  Program program = fromSource(kTwoKernels);
  ASSERT_CL_SUCCESS(clBuildProgram(
      program, 1, &device_, "",
      [](cl_program built, void *data) {
        auto *seen = static_cast<Seen *>(data);
        seen->program = built;
        seen->calls.fetch_add(1);
      },
      &seen));
  ASSERT_TRUE(eventually([&] { return seen.calls == 1; }));
  EXPECT_EQ(program.get(), seen.program);
  EXPECT_EQ(CL_BUILD_SUCCESS, status(program));
}

TEST_F(ProgramTest, RebuildReplacesTheOptions) {
  Program program = fromSource(kTwoKernels);
  ASSERT_CL_SUCCESS(clBuildProgram(program, 1, &device_, "-DFIRST", nullptr, nullptr));
  ASSERT_CL_SUCCESS(clBuildProgram(program, 1, &device_, "-DSECOND", nullptr, nullptr));
  EXPECT_EQ("-DSECOND", options(program));
  EXPECT_EQ(CL_BUILD_SUCCESS, status(program));
}

TEST_F(ProgramTest, DefineOptions) {
  const char *source = R"(
    #ifndef FLAG
    #error FLAG not defined
    #endif
    #if VALUE != 42
    #error VALUE is not 42
    #endif
    #if OTHER != 1
    #error OTHER is not 1
    #endif
    kernel void k(global int *out) { out[0] = VALUE; })";
  for (const char *options : {"-DFLAG -DVALUE=42 -DOTHER", "-D FLAG -D VALUE=42 -D OTHER=1"}) {
    BuildResult result = tryBuild(context_, device_, source, options);
    EXPECT_CL_SUCCESS(result.error) << options << "\n" << result.log;
  }
  BuildResult missing = tryBuild(context_, device_, source, "-DVALUE=42");
  EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE, missing.error);
  EXPECT_NE(std::string::npos, missing.log.find("FLAG not defined")) << missing.log;
}

TEST_F(ProgramTest, IncludeDirectoryOption) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  dir.write("kiln_test_header.h", "#define FROM_HEADER 17\n");
  dir.write("sub/nested.h", "#define NESTED 4\n");
  const char *source = R"(
    #include "kiln_test_header.h"
    #include "sub/nested.h"
    kernel void k(global int *out) { out[0] = FROM_HEADER + NESTED; })";
  BuildResult result = tryBuild(context_, device_, source, "-I " + dir.path());
  EXPECT_CL_SUCCESS(result.error) << result.log;
  BuildResult joined = tryBuild(context_, device_, source, "-I" + dir.path());
  EXPECT_CL_SUCCESS(joined.error) << joined.log;
  BuildResult without = tryBuild(context_, device_, source);
  EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE, without.error);
  EXPECT_NE(std::string::npos, without.log.find("kiln_test_header.h")) << without.log;
}

TEST_F(ProgramTest, WarningOptions) {
  const char *source = R"(
    #warning kiln_test_warning
    kernel void k(global int *out) { out[0] = 1; })";
  BuildResult plain = tryBuild(context_, device_, source);
  EXPECT_CL_SUCCESS(plain.error) << "a warning is not an error\n" << plain.log;
  BuildResult quiet = tryBuild(context_, device_, source, "-w");
  EXPECT_CL_SUCCESS(quiet.error) << quiet.log;
  EXPECT_EQ(std::string::npos, quiet.log.find("kiln_test_warning")) << "-w: no warnings\n"
                                                                    << quiet.log;
  // "-Werror: Make all warnings into errors."
  BuildResult strict = tryBuild(context_, device_, source, "-Werror");
  EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE, strict.error);
  EXPECT_NE(std::string::npos, strict.log.find("kiln_test_warning")) << strict.log;
}

TEST_F(ProgramTest, OptimizationAndMathOptionsAreAccepted) {
  const char *source = R"(
    #ifdef __FAST_RELAXED_MATH__
    #error __FAST_RELAXED_MATH__ without -cl-fast-relaxed-math
    #endif
    kernel void k(global float *out) { out[0] = out[0] * 2.0f + 1.0f; })";
  for (const char *options :
       {"-cl-opt-disable", "-cl-mad-enable", "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations",
        "-cl-finite-math-only", "-cl-single-precision-constant", "-cl-denorms-are-zero",
        "-cl-kernel-arg-info", "-cl-strict-aliasing",
        "-cl-mad-enable -cl-no-signed-zeros -cl-opt-disable",
        "-cl-std=CL1.2 -cl-kernel-arg-info"}) {
    BuildResult result = tryBuild(context_, device_, source, options);
    EXPECT_CL_SUCCESS(result.error) << options << "\n" << result.log;
  }
}

TEST_F(ProgramTest, KernelsBuiltWithOptimizationsDisabledRun) {
  // Work-item functions, a barrier and a helper function: the code generator replaces them in
  // the work-group function; nothing else may still call them.
  const char *source = R"(
    int twice(int value) { return 2 * value; }
    kernel void k(global int *out) {
      local int tile[16];
      size_t i = get_global_id(0);
      tile[get_local_id(0)] = twice((int)i);
      barrier(CLK_LOCAL_MEM_FENCE);
      out[i] = tile[(get_local_id(0) + 1) % get_local_size(0)] + (int)get_group_id(0);
    })";
  Kernel kernel = buildKernel(source, "k", "-cl-opt-disable");
  ASSERT_NE(nullptr, kernel.get());
  Mem out = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(int));
  ASSERT_TRUE(setArgs(kernel, out));
  ASSERT_TRUE(run1D(kernel, 64, 16));
  std::vector<int> expected(64);
  for (int i = 0; i < 64; ++i)
    expected[i] = 2 * (i / 16 * 16 + (i + 1) % 16) + i / 16;
  EXPECT_TRUE(equalArrays(expected, read<int>(out, 64)));
}

TEST_F(ProgramTest, FastRelaxedMathDefinesItsMacro) {
  // "This option causes the preprocessor macro __FAST_RELAXED_MATH__ to be defined".
  const char *source = R"(
    #ifndef __FAST_RELAXED_MATH__
    #error __FAST_RELAXED_MATH__ missing
    #endif
    kernel void k(global float *out) { out[0] = sqrt(out[0]); })";
  BuildResult result = tryBuild(context_, device_, source, "-cl-fast-relaxed-math");
  EXPECT_CL_SUCCESS(result.error) << result.log;
}

TEST_F(ProgramTest, CorrectlyRoundedDivideSqrtDependsOnTheDevice) {
  // "clBuildProgram ... will fail to compile the program for a device if the
  // -cl-fp32-correctly-rounded-divide-sqrt option is specified and
  // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT is not set for the device."
  bool supported = deviceInfo<cl_device_fp_config>(device_, CL_DEVICE_SINGLE_FP_CONFIG) &
                   CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT;
  BuildResult result =
      tryBuild(context_, device_, "kernel void k(global float *o) { o[0] /= 3.0f; }",
               "-cl-fp32-correctly-rounded-divide-sqrt");
  if (supported)
    EXPECT_CL_SUCCESS(result.error) << result.log;
  else
    EXPECT_NE(CL_SUCCESS, result.error);
}

class LanguageVersionTest : public ProgramTest,
                            public ::testing::WithParamInterface<std::pair<int, int>> {};

TEST_P(LanguageVersionTest, ClStdSelectsTheVersionOrFailsWhenUnsupported) {
  auto [major, minor] = GetParam();
  std::string options = "-cl-std=CL" + std::to_string(major) + "." + std::to_string(minor);
  // __OPENCL_C_VERSION__ (OpenCL C 1.2 and newer; allowed earlier) names the selected version.
  std::string source = "#if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ != " +
                       std::to_string(major * 100 + minor * 10) +
                       "\n#error wrong __OPENCL_C_VERSION__\n#endif\n"
                       "kernel void k(global int *out) { out[0] = 1; }\n";
  BuildResult result = tryBuild(context_, device_, source, options);
  if (supportsOpenCLC(device_, major, minor))
    EXPECT_CL_SUCCESS(result.error) << options << "\n" << result.log;
  else
    // "Calls to clBuildProgram ... with the -cl-std=CL2.0 option will fail to compile the
    // program for any devices ... when CL_DEVICE_OPENCL_C_ALL_VERSIONS does not include
    // OpenCL C 2.0" (and likewise for the other versions). PoCL 3.1 builds CL2.0 nevertheless.
    EXPECT_NE(CL_SUCCESS, result.error) << options;
}

INSTANTIATE_TEST_SUITE_P(Versions, LanguageVersionTest,
                         ::testing::Values(std::pair{1, 1}, std::pair{1, 2}, std::pair{2, 0},
                                           std::pair{3, 0}),
                         [](const auto &info) {
                           return "CL" + std::to_string(info.param.first) +
                                  std::to_string(info.param.second);
                         });

TEST_F(ProgramTest, ClStd10IsNotASpecifiedValueButNeverBuildsAnotherVersion) {
  // The specification lists CL1.1 to CL3.x for -cl-std. An implementation may accept CL1.0 (as
  // OpenCL C 1.0) or reject it as an invalid option; it must not silently build another version.
  BuildResult result = tryBuild(context_, device_, R"(
    #if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ != 100
    #error not OpenCL C 1.0
    #endif
    kernel void k(global int *out) { out[0] = 1; })",
                                "-cl-std=CL1.0");
  EXPECT_TRUE(result.error == CL_SUCCESS || result.error == CL_INVALID_BUILD_OPTIONS)
      << errorName(result.error) << "\n"
      << result.log;
}

TEST_F(ProgramTest, DefaultLanguageIsTheHighestOpenCLC1x) {
  // "If the -cl-std build option is not specified, the highest OpenCL C 1.x language version
  // supported by each device is used". (PoCL 3.1 compiles OpenCL C 3.0 by default.)
  BuildResult result = tryBuild(context_, device_, R"(
    #if __OPENCL_C_VERSION__ >= 200
    #error compiled as OpenCL C 2.0 or newer without -cl-std
    #endif
    kernel void k(global int *out) { out[0] = 1; })");
  EXPECT_CL_SUCCESS(result.error) << result.log;
}

TEST_F(ProgramTest, ProgramScopeGlobalVariablesCountInTheTotalSize) {
  if (!supportsOpenCLC(device_, 3, 0) ||
      deviceInfo<size_t>(device_, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE) == 0)
    GTEST_SKIP() << "no program scope global variables";
  Program program = build(R"(
    global int table[100];
    global float scale = 2.0f;
    kernel void k(global int *out) { out[0] = table[get_global_id(0)] * (int)scale; })",
                          "-cl-std=CL3.0");
  ASSERT_NE(nullptr, program.get());
  EXPECT_GE(buildInfo<size_t>(program, device_, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE),
            100 * sizeof(cl_int) + sizeof(cl_float));
}

// ---------------------------------------------------------------------------------------------
// Failed builds

TEST_F(ProgramTest, MalformedSourceFailsWithALogNamingTheError) {
  BuildResult result = tryBuild(context_, device_, R"(
    kernel void k(global int *out) {
      out[0] = kiln_undeclared_identifier;
    })");
  EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE, result.error);
  EXPECT_NE(std::string::npos, result.log.find("kiln_undeclared_identifier")) << result.log;
  EXPECT_EQ(CL_BUILD_ERROR, status(result.program));
  size_t count = 0;
  EXPECT_CL_ERROR(
      CL_INVALID_PROGRAM_EXECUTABLE,
      clGetProgramInfo(result.program, CL_PROGRAM_NUM_KERNELS, sizeof count, &count, nullptr));
}

TEST_F(ProgramTest, GarbageSourceFailsWithoutCrashing) {
  for (const char *source :
       {"this is not OpenCL C {{{ ]]", "kernel void k(", "}", "kernel void k() { int x = ; }",
        "#include <no_such_header.h>\n", "kernel void k(global int *o) { o[0] = 1 }"}) {
    BuildResult result = tryBuild(context_, device_, source);
    EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE, result.error) << source;
    EXPECT_FALSE(result.log.empty()) << source;
  }
}

TEST_F(ProgramTest, FailedBuildCanBeRebuiltAfterward) {
  // A program whose build failed keeps its source: a later build with the missing macro works.
  Program program = fromSource("kernel void k(global int *out) { out[0] = VALUE; }");
  EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE,
                  clBuildProgram(program, 1, &device_, "", nullptr, nullptr));
  EXPECT_CL_SUCCESS(clBuildProgram(program, 1, &device_, "-DVALUE=3", nullptr, nullptr))
      << buildLog(program, device_);
  EXPECT_EQ(CL_BUILD_SUCCESS, status(program));
}

struct IllegalKernel {
  const char *name;
  const char *source;
  const char *options;
};

class IllegalKernelTest : public ProgramTest,
                          public ::testing::WithParamInterface<IllegalKernel> {};

TEST_P(IllegalKernelTest, FailsToBuildWithALog) {
  const IllegalKernel &c = GetParam();
  BuildResult result = tryBuild(context_, device_, c.source, c.options);
  EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE, result.error) << c.source;
  EXPECT_FALSE(result.log.empty());
  EXPECT_EQ(CL_BUILD_ERROR, status(result.program));
}

// Each breaks a rule of the OpenCL C specification that compilers must diagnose.
INSTANTIATE_TEST_SUITE_P(
    Seeds, IllegalKernelTest,
    ::testing::Values(
        // "A kernel function must have a void return type."
        IllegalKernel{"KernelReturningInt", "kernel int f(global int *p) { return p[0]; }", ""},
        // Pointer arguments of kernels point to global, constant or local memory (OpenCL C 1.2:
        // an unqualified pointer points to private memory).
        IllegalKernel{"PointerToPrivateByDefault", "kernel void f(int *p) { p[0] = 1; }", ""},
        IllegalKernel{"PointerToPrivate", "kernel void f(private int *p) { p[0] = 1; }", ""},
        // "Variables allocated in the local address space inside a kernel function cannot be
        // initialized."
        IllegalKernel{"InitializedLocal",
                      "kernel void f(global int *o) { local int x = 1; o[0] = x; }", ""},
        // Local variables "must be declared at kernel function scope".
        IllegalKernel{"LocalInNestedBlock",
                      "kernel void f(global int *o) {\n"
                      "  if (o[0] > 0) { local int x; x = o[0]; o[1] = x; }\n"
                      "}",
                      ""},
        // OpenCL C 1.2 program scope variables must be in the constant address space.
        IllegalKernel{"ProgramScopeGlobalIn12",
                      "global float x[] = {1, 2};\n"
                      "kernel void f(global float *o) { o[0] = x[0]; }",
                      "-cl-std=CL1.2"},
        // The constant address space is read-only.
        IllegalKernel{"WriteThroughConstant", "kernel void f(constant int *c) { c[0] = 1; }", ""}),
    [](const auto &info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------------------------
// Binaries

TEST_F(ProgramTest, BinariesRoundTrip) {
  Program original = build(kTwoKernels);
  ASSERT_NE(nullptr, original.get());
  std::vector<unsigned char> binary = binaryOf(original);
  ASSERT_FALSE(binary.empty());
  cl_int error = CL_SUCCESS, binaryStatus = 0;
  Program loaded = fromBinary(binary, error, binaryStatus);
  ASSERT_CL_SUCCESS(error);
  EXPECT_CL_SUCCESS(binaryStatus);
  EXPECT_EQ(cl_program_binary_type{CL_PROGRAM_BINARY_TYPE_EXECUTABLE}, binaryType(loaded));
  ASSERT_CL_SUCCESS(clBuildProgram(loaded, 1, &device_, nullptr, nullptr, nullptr))
      << buildLog(loaded, device_);
  EXPECT_EQ(CL_BUILD_SUCCESS, status(loaded));
  EXPECT_EQ(2u, programInfo<size_t>(loaded, CL_PROGRAM_NUM_KERNELS));
  std::vector<int> expected(64);
  for (int index = 0; index < 64; ++index)
    expected[index] = index + 1;
  EXPECT_TRUE(equalArrays(expected, runIntKernel(loaded, "first", 64)));
  // The binary of the program built from a binary is usable again.
  EXPECT_FALSE(binaryOf(loaded).empty());
}

TEST_F(ProgramTest, ProgramFromABinaryHasNoOptionsOrLogBeforeItsBuild) {
  Program original = build(kTwoKernels, "-DKILN_OPTION=1 -cl-mad-enable");
  ASSERT_NE(nullptr, original.get());
  cl_int error = CL_SUCCESS, binaryStatus = 0;
  Program loaded = fromBinary(binaryOf(original), error, binaryStatus);
  ASSERT_CL_SUCCESS(error);
  // "If build status of the specified program for device is CL_BUILD_NONE, an empty string is
  // returned" (CL_PROGRAM_BUILD_OPTIONS and CL_PROGRAM_BUILD_LOG alike).
  EXPECT_EQ(CL_BUILD_NONE, status(loaded));
  EXPECT_EQ("", options(loaded));
  EXPECT_EQ("", buildLog(loaded, device_));
  // Kernels exist only once the program is built.
  size_t kernels = 0;
  EXPECT_CL_ERROR(
      CL_INVALID_PROGRAM_EXECUTABLE,
      clGetProgramInfo(loaded, CL_PROGRAM_NUM_KERNELS, sizeof kernels, &kernels, nullptr));
  // The binary it was created with is available: "the binary returned can be the binary
  // specified for the device when program is created with clCreateProgramWithBinary" (PoCL 3.1:
  // CL_INVALID_PROGRAM).
  EXPECT_GT(programInfo<size_t>(loaded, CL_PROGRAM_BINARY_SIZES), 0u);
  // After clBuildProgram: the options of that call.
  ASSERT_CL_SUCCESS(clBuildProgram(loaded, 1, &device_, "-cl-opt-disable", nullptr, nullptr));
  EXPECT_EQ("-cl-opt-disable", options(loaded));
}

TEST_F(ProgramTest, BinaryQueryWithTooSmallArrayIsInvalidValue) {
  Program program = build(kTwoKernels);
  ASSERT_NE(nullptr, program.get());
  unsigned char *pointer = nullptr;
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetProgramInfo(program, CL_PROGRAM_BINARIES,
                                                     sizeof pointer - 1, &pointer, nullptr));
  size_t size = 0;
  EXPECT_CL_SUCCESS(clGetProgramInfo(program, CL_PROGRAM_BINARIES, 0, nullptr, &size));
  EXPECT_EQ(sizeof(unsigned char *), size) << "one pointer per device";
}

TEST_F(ProgramTest, CorruptedBinariesAreInvalidBinary) {
  SKIP_ON_POCL("aborts on a truncated binary (assertion in pocl_binary.c)");
  Program original = build(kTwoKernels);
  ASSERT_NE(nullptr, original.get());
  std::vector<unsigned char> binary = binaryOf(original);
  ASSERT_GT(binary.size(), 64u);
  struct Corruption {
    const char *name;
    std::vector<unsigned char> bytes;
  };
  std::vector<Corruption> cases;
  auto flipped = [&](std::vector<size_t> positions) {
    std::vector<unsigned char> copy = binary;
    for (size_t position : positions)
      copy[position] ^= 0xFF;
    return copy;
  };
  cases.push_back({"first bytes flipped", flipped({0, 1, 2, 3})});
  cases.push_back({"truncated to 8 bytes", {binary.begin(), binary.begin() + 8}});
  cases.push_back({"truncated to half", {binary.begin(), binary.begin() + binary.size() / 2}});
  cases.push_back({"random bytes", Random(99).values<unsigned char>(binary.size())});
  cases.push_back({"text", {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'}});
  for (const Corruption &c : cases) {
    cl_int error = CL_SUCCESS, binaryStatus = 0;
    Program program = fromBinary(c.bytes, error, binaryStatus);
    // "CL_INVALID_BINARY if an invalid program binary was encountered for any device.
    // binary_status will return specific status for each device."
    EXPECT_CL_ERROR(CL_INVALID_BINARY, error) << c.name;
    EXPECT_CL_ERROR(CL_INVALID_BINARY, binaryStatus) << c.name;
    EXPECT_EQ(nullptr, program.get()) << c.name;
  }
}

TEST_F(ProgramTest, BinaryWithAFlippedByteInsideNeverCrashes) {
  // Whether a flipped byte deep inside makes a binary detectably invalid depends on the binary
  // format: everywhere the result must be an error code or a program, never a crash. Kiln's
  // binaries carry a checksum, so there creation must fail with CL_INVALID_BINARY.
  Program original = build(kTwoKernels);
  ASSERT_NE(nullptr, original.get());
  std::vector<unsigned char> binary = binaryOf(original);
  for (size_t position : {binary.size() / 3, binary.size() / 2, binary.size() - 1}) {
    std::vector<unsigned char> copy = binary;
    copy[position] ^= 0x5A;
    cl_int error = CL_SUCCESS, binaryStatus = 0;
    Program program = fromBinary(copy, error, binaryStatus);
    if (error == CL_SUCCESS) {
      EXPECT_FALSE(isKiln()) << "the flip at " << position << " was not detected";
      clBuildProgram(program, 1, &device_, nullptr, nullptr, nullptr);
    } else {
      EXPECT_CL_ERROR(CL_INVALID_BINARY, error);
      EXPECT_CL_ERROR(CL_INVALID_BINARY, binaryStatus);
    }
  }
}

TEST_F(ProgramTest, CreateWithBinaryErrors) {
  unsigned char bytes[16] = {1, 2, 3};
  const unsigned char *pointer = bytes;
  const unsigned char *nullBinary = nullptr;
  size_t length = sizeof bytes, zero = 0;
  cl_int error = CL_SUCCESS, binaryStatus = 0;
  // "CL_INVALID_VALUE if device_list is NULL or num_devices is zero."
  EXPECT_EQ(nullptr,
            clCreateProgramWithBinary(context_, 0, &device_, &length, &pointer, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  EXPECT_EQ(nullptr,
            clCreateProgramWithBinary(context_, 1, nullptr, &length, &pointer, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  // "CL_INVALID_VALUE if lengths or binaries are NULL or if any entry in lengths[i] is zero or
  // binaries[i] is NULL", with CL_INVALID_VALUE in binary_status[i] for the latter (PoCL 3.1
  // leaves binary_status at CL_SUCCESS).
  EXPECT_EQ(nullptr,
            clCreateProgramWithBinary(context_, 1, &device_, nullptr, &pointer, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  if (!isPocl()) { // PoCL 3.1 crashes on a NULL binaries array
    EXPECT_EQ(nullptr,
              clCreateProgramWithBinary(context_, 1, &device_, &length, nullptr, nullptr, &error));
    EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  }
  EXPECT_EQ(nullptr, clCreateProgramWithBinary(context_, 1, &device_, &zero, &pointer,
                                               &binaryStatus, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  EXPECT_CL_ERROR(CL_INVALID_VALUE, binaryStatus);
  EXPECT_EQ(nullptr, clCreateProgramWithBinary(context_, 1, &device_, &length, &nullBinary,
                                               &binaryStatus, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  EXPECT_CL_ERROR(CL_INVALID_VALUE, binaryStatus);
  EXPECT_EQ(nullptr,
            clCreateProgramWithBinary(nullptr, 1, &device_, &length, &pointer, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, error);
}

TEST_F(ProgramTest, BinaryForAForeignDeviceIsInvalidDevice) {
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  ForeignObject foreign;
  cl_device_id other = foreign.as<cl_device_id>(device_);
  unsigned char bytes[16] = {};
  const unsigned char *pointer = bytes;
  size_t length = sizeof bytes;
  cl_int error = CL_SUCCESS;
  // "CL_INVALID_DEVICE if any device in device_list is not in the list of devices associated
  // with context."
  EXPECT_EQ(nullptr,
            clCreateProgramWithBinary(context_, 1, &other, &length, &pointer, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_DEVICE, error);
}

TEST_F(ProgramTest, BuiltInKernelsAndIL) {
  cl_int error = CL_SUCCESS;
  if (deviceString(device_, CL_DEVICE_BUILT_IN_KERNELS).empty()) {
    // "CL_INVALID_VALUE if kernel_names is NULL or kernel_names contains a kernel name that is
    // not supported by any of the devices in device_list."
    EXPECT_EQ(nullptr, clCreateProgramWithBuiltInKernels(context_, 1, &device_,
                                                         "kiln_no_such_kernel", &error));
    EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  }
  EXPECT_EQ(nullptr, clCreateProgramWithBuiltInKernels(context_, 1, &device_, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  if (deviceString(device_, CL_DEVICE_IL_VERSION).empty()) {
    // "CL_INVALID_OPERATION if no devices in context support intermediate language programs."
    // (PoCL 3.1: CL_INVALID_VALUE.)
    unsigned char il[16] = {0x03, 0x02, 0x23, 0x07};
    EXPECT_EQ(nullptr, clCreateProgramWithIL(context_, il, sizeof il, &error));
    EXPECT_CL_ERROR(CL_INVALID_OPERATION, error);
  }
}

// ---------------------------------------------------------------------------------------------
// Separate compilation and linking

namespace {

const char *kHeader = "int helper(int x);\n#define MAGIC 42\n";
const char *kUser = R"(
  #include "kiln/helper.h"
  kernel void uses(global int *out) {
    int i = (int)get_global_id(0);
    out[i] = helper(i) + MAGIC;
  })";
const char *kHelper = "int helper(int x) { return x * 3; }\n";

} // namespace

class LinkTest : public ProgramTest {
protected:
  /// clCompileProgram of `source` with the embedded header kiln/helper.h.
  Program compiled(const char *source, const std::string &options = "") {
    Program program = fromSource(source);
    Program header = fromSource(kHeader);
    cl_program headers[] = {header};
    const char *names[] = {"kiln/helper.h"};
    cl_int error = clCompileProgram(program, 1, &device_, options.c_str(), 1, headers, names,
                                    nullptr, nullptr);
    EXPECT_CL_SUCCESS(error) << buildLog(program, device_);
    return error == CL_SUCCESS ? program : Program();
  }
  Program link(std::vector<cl_program> inputs, const char *options, cl_int &error) {
    return Program(clLinkProgram(context_, 1, &device_, options,
                                 static_cast<cl_uint>(inputs.size()), inputs.data(), nullptr,
                                 nullptr, &error));
  }
  std::vector<int> expected(size_t count) {
    std::vector<int> values(count);
    for (size_t index = 0; index < count; ++index)
      values[index] = static_cast<int>(index) * 3 + 42;
    return values;
  }
};

TEST_F(LinkTest, CompileWithEmbeddedHeadersThenLinkAndRun) {
  Program user = compiled(kUser), helper = compiled(kHelper);
  ASSERT_NE(nullptr, user.get());
  ASSERT_NE(nullptr, helper.get());
  EXPECT_EQ(cl_program_binary_type{CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT}, binaryType(user));
  EXPECT_EQ(CL_BUILD_SUCCESS, status(user));
  cl_int error = CL_SUCCESS;
  Program linked = link({user, helper}, "", error);
  ASSERT_CL_SUCCESS(error) << (linked != nullptr ? buildLog(linked, device_) : "");
  EXPECT_EQ(cl_program_binary_type{CL_PROGRAM_BINARY_TYPE_EXECUTABLE}, binaryType(linked));
  EXPECT_EQ(CL_BUILD_SUCCESS, status(linked));
  EXPECT_EQ(1u, programInfo<size_t>(linked, CL_PROGRAM_NUM_KERNELS));
  EXPECT_EQ("uses", programString(linked, CL_PROGRAM_KERNEL_NAMES));
  EXPECT_TRUE(equalArrays(expected(128), runIntKernel(linked, "uses", 128)));
}

TEST_F(LinkTest, CreateLibraryThenLinkItIntoAnExecutable) {
  Program helper = compiled(kHelper);
  ASSERT_NE(nullptr, helper.get());
  cl_int error = CL_SUCCESS;
  Program library = link({helper}, "-create-library", error);
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(cl_program_binary_type{CL_PROGRAM_BINARY_TYPE_LIBRARY}, binaryType(library));
  Program user = compiled(kUser);
  ASSERT_NE(nullptr, user.get());
  Program linked = link({user, library}, "", error);
  ASSERT_CL_SUCCESS(error) << (linked != nullptr ? buildLog(linked, device_) : "");
  EXPECT_TRUE(equalArrays(expected(32), runIntKernel(linked, "uses", 32)));
}

TEST_F(LinkTest, CompiledObjectBinaryRoundTrip) {
  Program helper = compiled(kHelper);
  ASSERT_NE(nullptr, helper.get());
  std::vector<unsigned char> binary = binaryOf(helper);
  ASSERT_FALSE(binary.empty());
  cl_int error = CL_SUCCESS, binaryStatus = 0;
  Program loaded = fromBinary(binary, error, binaryStatus);
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(cl_program_binary_type{CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT}, binaryType(loaded));
  Program user = compiled(kUser);
  Program linked = link({user, loaded}, "", error);
  ASSERT_CL_SUCCESS(error);
  EXPECT_TRUE(equalArrays(expected(16), runIntKernel(linked, "uses", 16)));
}

TEST_F(LinkTest, MissingDefinitionIsLinkProgramFailure) {
  Program user = compiled(kUser);
  ASSERT_NE(nullptr, user.get());
  cl_int error = CL_SUCCESS;
  Program linked = link({user}, "", error);
  // "CL_LINK_PROGRAM_FAILURE if there is a failure to link the compiled binaries and/or
  // libraries." The program may be returned, so that its log can be read.
  EXPECT_CL_ERROR(CL_LINK_PROGRAM_FAILURE, error);
  if (linked != nullptr) {
    EXPECT_EQ(CL_BUILD_ERROR, status(linked));
    EXPECT_FALSE(buildLog(linked, device_).empty());
  }
}

TEST_F(LinkTest, CompileErrors) {
  Program program = fromSource(kUser);
  Program header = fromSource(kHeader);
  cl_program headers[] = {header};
  const char *names[] = {"kiln/helper.h"};
  // (PoCL 3.1 compiles instead of rejecting the first.)
  // "CL_INVALID_VALUE if num_input_headers is zero and header_include_names or input_headers
  // are not NULL or if num_input_headers is not zero and header_include_names or input_headers
  // are NULL."
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clCompileProgram(program, 1, &device_, "", 0, headers, names, nullptr, nullptr));
  if (!isPocl()) { // PoCL 3.1 crashes on these NULL arrays
    EXPECT_CL_ERROR(CL_INVALID_VALUE, clCompileProgram(program, 1, &device_, "", 1, nullptr, names,
                                                       nullptr, nullptr));
    EXPECT_CL_ERROR(CL_INVALID_VALUE, clCompileProgram(program, 1, &device_, "", 1, headers,
                                                       nullptr, nullptr, nullptr));
  }
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clCompileProgram(program, 0, &device_, "", 0, nullptr, nullptr,
                                                     nullptr, nullptr));
  int data = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clCompileProgram(program, 1, &device_, "", 0, nullptr, nullptr, nullptr, &data));
  // "CL_INVALID_COMPILER_OPTIONS if the compiler options specified by options are invalid."
  EXPECT_CL_ERROR(CL_INVALID_COMPILER_OPTIONS,
                  clCompileProgram(program, 1, &device_, "-fkiln-no-such-option", 1, headers, names,
                                   nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM, clCompileProgram(nullptr, 1, &device_, "", 0, nullptr,
                                                       nullptr, nullptr, nullptr));
  // Without the header, the include fails: a compile failure with a log.
  EXPECT_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE, clCompileProgram(program, 1, &device_, "", 0, nullptr,
                                                               nullptr, nullptr, nullptr));
  EXPECT_EQ(CL_BUILD_ERROR, status(program));
  EXPECT_FALSE(buildLog(program, device_).empty());
}

TEST_F(LinkTest, CompileOfABinaryProgramIsInvalidOperation) {
  Program helper = compiled(kHelper);
  ASSERT_NE(nullptr, helper.get());
  std::vector<unsigned char> binary = binaryOf(helper);
  cl_int error = CL_SUCCESS, binaryStatus = 0;
  Program loaded = fromBinary(binary, error, binaryStatus);
  ASSERT_CL_SUCCESS(error);
  // "CL_INVALID_OPERATION if program has no source or IL available, i.e. it has not been created
  // with clCreateProgramWithSource or clCreateProgramWithIL."
  EXPECT_CL_ERROR(CL_INVALID_OPERATION,
                  clCompileProgram(loaded, 1, &device_, "", 0, nullptr, nullptr, nullptr, nullptr));
}

TEST_F(LinkTest, LinkErrors) {
  Program helper = compiled(kHelper);
  ASSERT_NE(nullptr, helper.get());
  cl_program inputs[] = {helper};
  cl_int error = CL_SUCCESS;
  // "CL_INVALID_VALUE if num_input_programs is zero and input_programs is NULL or if
  // num_input_programs is zero and input_programs is not NULL or if num_input_programs is not
  // zero and input_programs is NULL."
  EXPECT_EQ(nullptr,
            clLinkProgram(context_, 1, &device_, "", 0, nullptr, nullptr, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  EXPECT_EQ(nullptr, clLinkProgram(context_, 1, &device_, "", 0, inputs, nullptr, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  EXPECT_EQ(nullptr,
            clLinkProgram(context_, 1, &device_, "", 1, nullptr, nullptr, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  EXPECT_EQ(nullptr, clLinkProgram(context_, 1, nullptr, "", 1, inputs, nullptr, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  // "CL_INVALID_LINKER_OPTIONS if the linker options specified by options are invalid."
  EXPECT_EQ(nullptr, clLinkProgram(context_, 1, &device_, "-fkiln-no-such-option", 1, inputs,
                                   nullptr, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_LINKER_OPTIONS, error);
  // "CL_INVALID_OPERATION if the rules for devices containing compiled binaries or libraries as
  // described in input_programs argument above are not followed": an input that was never
  // compiled has no compiled binary for the device.
  Program raw = fromSource(kHelper);
  cl_program uncompiled[] = {raw};
  EXPECT_EQ(nullptr,
            clLinkProgram(context_, 1, &device_, "", 1, uncompiled, nullptr, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, error);
  cl_program withNull[] = {helper, nullptr};
  if (!isPocl()) { // PoCL 3.1 crashes on a NULL input program
    EXPECT_EQ(nullptr,
              clLinkProgram(context_, 1, &device_, "", 2, withNull, nullptr, nullptr, &error));
    EXPECT_CL_ERROR(CL_INVALID_PROGRAM, error);
  }
}

TEST_F(LinkTest, BuildOfALinkedProgramIsInvalidOperation) {
  Program user = compiled(kUser), helper = compiled(kHelper);
  ASSERT_NE(nullptr, user.get());
  cl_int error = CL_SUCCESS;
  Program linked = link({user, helper}, "", error);
  ASSERT_CL_SUCCESS(error);
  // "CL_INVALID_OPERATION if program was not created with clCreateProgramWithSource,
  // clCreateProgramWithIL or clCreateProgramWithBinary." (PoCL 3.1 builds it again.)
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, clBuildProgram(linked, 1, &device_, "", nullptr, nullptr));
}

TEST_F(LinkTest, LinkCallbackIsCalled) {
  Program user = compiled(kUser), helper = compiled(kHelper);
  ASSERT_NE(nullptr, user.get());
  std::atomic<int> calls{0};
  cl_program inputs[] = {user, helper};
  cl_int error = CL_SUCCESS;
  Program linked(clLinkProgram(
      context_, 1, &device_, "", 2, inputs,
      [](cl_program, void *data) { static_cast<std::atomic<int> *>(data)->fetch_add(1); }, &calls,
      &error));
  ASSERT_CL_SUCCESS(error);
  EXPECT_TRUE(eventually([&] { return calls == 1; }));
  EXPECT_TRUE(eventually([&] { return status(linked) == CL_BUILD_SUCCESS; }));
}

TEST_F(ProgramTest, BuildWithKernelsAttachedIsInvalidOperation) {
  Program program = build(kTwoKernels);
  ASSERT_NE(nullptr, program.get());
  Kernel kernel = createKernel(program, "first");
  ASSERT_NE(nullptr, kernel.get());
  // "CL_INVALID_OPERATION if there are kernel objects attached to program."
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, clBuildProgram(program, 1, &device_, "", nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, clCompileProgram(program, 1, &device_, "", 0, nullptr,
                                                         nullptr, nullptr, nullptr));
  kernel.reset();
  EXPECT_CL_SUCCESS(clBuildProgram(program, 1, &device_, "", nullptr, nullptr));
}

namespace {

/// A kernel that takes a while (so its command is still running when the application lets go
/// of it) and writes a value the build options choose.
const char *kSlowMarker = R"(
  kernel void mark(global int *out, int rounds, int mask) {
    size_t i = get_global_id(0);
    int value = (int)i;
    for (int round = 0; round < rounds; ++round)
      value = value * 1103515245 + 12345;
    out[i] = MARK + (value & mask);
  })";

} // namespace

// "Kernels attached to the program" are the kernels the application holds: a kernel it has
// released no longer blocks a rebuild, even while a command enqueued with it is still running,
// and that command still runs the code it was enqueued with. (PoCL 3.1 counts the kernel until
// the command is done with it and returns CL_INVALID_OPERATION.)
TEST_F(ProgramTest, RebuildRightAfterReleasingAKernelInUseSucceeds) {
  constexpr size_t kItems = 4096;
  Program program = build(kSlowMarker, "-DMARK=1");
  ASSERT_NE(nullptr, program.get());
  Mem out = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_int));
  {
    Kernel kernel = createKernel(program, "mark");
    ASSERT_NE(nullptr, kernel.get());
    ASSERT_TRUE(setArgs(kernel, out, cl_int{200000}, cl_int{0}));
    ASSERT_CL_SUCCESS(
        clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &kItems, nullptr, 0, nullptr, nullptr));
  } // the application's last reference to the kernel goes here
  ASSERT_CL_SUCCESS(clBuildProgram(program, 1, &device_, "-DMARK=2", nullptr, nullptr));
  EXPECT_EQ(std::vector<cl_int>(kItems, 1), read<cl_int>(out, kItems))
      << "the pending command runs the kernel as it was built when enqueued";

  Kernel rebuilt = createKernel(program, "mark");
  ASSERT_NE(nullptr, rebuilt.get());
  ASSERT_TRUE(setArgs(rebuilt, out, cl_int{1}, cl_int{0}));
  ASSERT_TRUE(run1D(rebuilt, kItems));
  EXPECT_EQ(std::vector<cl_int>(kItems, 2), read<cl_int>(out, kItems));
}

// The same cycle many times in a row while the device is busy: every rebuild succeeds.
TEST_F(ProgramTest, RebuildAfterReleaseSucceedsUnderLoad) {
  constexpr size_t kItems = 1024;
  Program program = build(kSlowMarker, "-DMARK=0");
  ASSERT_NE(nullptr, program.get());
  Mem out = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_int));
  for (int round = 1; round <= 20; ++round) {
    Kernel kernel = createKernel(program, "mark");
    ASSERT_NE(nullptr, kernel.get());
    ASSERT_TRUE(setArgs(kernel, out, cl_int{2000}, cl_int{0}));
    for (int launch = 0; launch < 4; ++launch)
      ASSERT_CL_SUCCESS(clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &kItems, nullptr, 0,
                                               nullptr, nullptr));
    kernel.reset();
    std::string options = "-DMARK=" + std::to_string(round);
    ASSERT_CL_SUCCESS(clBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr))
        << "round " << round;
  }
  ASSERT_CL_SUCCESS(clFinish(queue_));
  EXPECT_EQ(std::vector<cl_int>(kItems, 19), read<cl_int>(out, kItems));
}

// Builtins from every part of the library in one program, where the functions linked for one
// call need functions of a part already linked for another (cbrt(double) needs fabs and fma).
TEST_F(ProgramTest, BuiltinsFromManyPartsOfTheLibraryLinkTogether) {
  Kernel kernel = buildKernel(R"(
    kernel void k(global const double *x, global double *out) {
      size_t i = get_global_id(0);
      float f = (float)x[i];
      out[i * 6 + 0] = exp(f);
      out[i * 6 + 1] = tgamma(f);
      out[i * 6 + 2] = cbrt(x[i] * 8.0);
      out[i * 6 + 3] = clamp(x[i], 0.75, 2.5);
      out[i * 6 + 4] = length((double2)(x[i], 1.0));
      out[i * 6 + 5] = (double)popcount((uint)(x[i] * 4.0)) + sign(x[i] - 1.0);
    })",
                              "k");
  ASSERT_NE(nullptr, kernel.get());
  std::vector<cl_double> x = {0.5, 1.0, 2.0, 3.0};
  Mem in = bufferWith(x), out = createBuffer(CL_MEM_READ_WRITE, x.size() * 6 * sizeof(double));
  ASSERT_TRUE(setArgs(kernel, in, out));
  ASSERT_TRUE(run1D(kernel, x.size()));
  std::vector<cl_double> expected;
  for (double v : x) {
    float f = static_cast<float>(v);
    expected.insert(expected.end(),
                    {std::exp(f), std::tgamma(f), std::cbrt(v * 8.0), std::clamp(v, 0.75, 2.5),
                     std::hypot(v, 1.0),
                     static_cast<double>(__builtin_popcount(static_cast<unsigned>(v * 4.0))) +
                         (v > 1.0   ? 1.0
                          : v < 1.0 ? -1.0
                                    : 0.0)});
  }
  EXPECT_TRUE(nearArrays(expected, read<cl_double>(out, expected.size()), 0, 1e-5));
}
