// Programs from SPIR-V (clCreateProgramWithIL): modules that Clang's SPIR-V back end made from
// OpenCL C at build time (tests/spirv/*.cl) and hand-written ones (tests/spirv/*.spvasm), built,
// linked with source and run against host references; specialization constants; and the modules
// Kiln must refuse.
#include "cl_test.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

using namespace cltest;

namespace {

/// The path of a module the build made (see tests/CMakeLists.txt), in the build's folder or,
/// where the tests run on another machine, in the one KILN_TEST_SPIRV_DIR names.
std::string spirvPath(const std::string &name) {
  const char *folder = std::getenv("KILN_TEST_SPIRV_DIR");
  return std::string(folder != nullptr ? folder : KILN_TEST_SPIRV_DIR) + "/" + name + ".spv";
}

std::vector<unsigned char> spirvModule(const std::string &name) {
  std::ifstream in(spirvPath(name), std::ios::binary);
  EXPECT_TRUE(in) << name;
  return {std::istreambuf_iterator<char>(in), {}};
}

class IlProgramTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (deviceString(device_, CL_DEVICE_IL_VERSION).empty())
      GTEST_SKIP() << "the device reads no IL";
  }

  Program fromIl(const std::vector<unsigned char> &il) {
    cl_int error = CL_SUCCESS;
    Program program(clCreateProgramWithIL(context_, il.data(), il.size(), &error));
    EXPECT_CL_SUCCESS(error);
    return program;
  }
  /// The module `name`, built; null, with a failure recorded, when the build fails.
  Program builtIl(const std::string &name, const char *options = "") {
    Program program = fromIl(spirvModule(name));
    if (program.get() == nullptr)
      return program;
    cl_int error = clBuildProgram(program, 1, &device_, options, nullptr, nullptr);
    EXPECT_CL_SUCCESS(error) << buildLog(program, device_);
    return error == CL_SUCCESS ? std::move(program) : Program();
  }
  /// Runs `program`'s saxpy kernel (tests/spirv/kernels.cl) against the host.
  void expectSaxpy(cl_program program) {
    const int n = 1000;
    Random random;
    std::vector<float> x = random.values<float>(n), y = random.values<float>(n);
    Mem xBuffer = bufferWith(x), yBuffer = bufferWith(y);
    Kernel saxpy = createKernel(program, "saxpy");
    ASSERT_TRUE(setArgs(saxpy, 2.5f, xBuffer, yBuffer, n));
    ASSERT_TRUE(run1D(saxpy, 1024));
    std::vector<float> result = read<float>(yBuffer, n);
    for (int i = 0; i < n; ++i) {
      float expected = 2.5f * x[i] + y[i];
      EXPECT_NEAR(expected, result[i], 1e-4f * std::fabs(expected) + 1e-6f) << i;
    }
  }
  /// Builds `name` expecting failure; returns the log.
  std::string failedBuildLog(const std::string &name) {
    Program program = fromIl(spirvModule(name));
    if (program.get() == nullptr)
      return {};
    EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE,
                    clBuildProgram(program, 1, &device_, "", nullptr, nullptr));
    EXPECT_EQ(CL_BUILD_ERROR,
              buildInfo<cl_build_status>(program, device_, CL_PROGRAM_BUILD_STATUS));
    return buildLog(program, device_);
  }
};

TEST_F(IlProgramTest, DeviceListsSpirvVersionsInBothQueries) {
  std::string text = deviceString(device_, CL_DEVICE_IL_VERSION);
  std::vector<std::string> names = split(text, ' ');
  auto versioned = deviceArray<cl_name_version>(device_, CL_DEVICE_ILS_WITH_VERSION);
  ASSERT_EQ(names.size(), versioned.size());
  for (size_t index = 0; index < names.size(); ++index) {
    EXPECT_STREQ("SPIR-V", versioned[index].name);
    EXPECT_EQ("SPIR-V_" + std::to_string(CL_VERSION_MAJOR(versioned[index].version)) + "." +
                  std::to_string(CL_VERSION_MINOR(versioned[index].version)),
              names[index]);
  }
  EXPECT_EQ("SPIR-V_1.0", names.front());
  EXPECT_TRUE(hasExtension(device_, "cl_khr_il_program"));
}

TEST_F(IlProgramTest, KernelsFromClangsSpirvRunLikeTheirSource) {
  Program program = builtIl("kernels");
  ASSERT_NE(nullptr, program.get());
  EXPECT_EQ(3u, programInfo<size_t>(program, CL_PROGRAM_NUM_KERNELS));
  expectSaxpy(program);
}

// kilnc --spirv writes SPIR-V with LLVM 22's own back end; Kiln reads it back.
TEST_F(IlProgramTest, KilncsSpirvOutputReadsBack) {
  if (!std::ifstream(spirvPath("kilnc_kernels")))
    GTEST_SKIP() << "kilnc's SPIR-V is made by the builds without sanitizers";
  Program program = builtIl("kilnc_kernels");
  ASSERT_NE(nullptr, program.get());
  EXPECT_EQ(3u, programInfo<size_t>(program, CL_PROGRAM_NUM_KERNELS));
  expectSaxpy(program);
}

TEST_F(IlProgramTest, ScalarNullConstantsLocalMemoryAndAtomicsWork) {
  Program program = builtIl("kernels");
  ASSERT_NE(nullptr, program.get());
  const size_t n = 4096;
  std::vector<cl_int> values(n);
  cl_int zeros = 0;
  for (size_t i = 0; i < n; ++i) {
    values[i] = static_cast<cl_int>(i % 7 == 0 ? 0 : i);
    zeros += values[i] == 0;
  }
  Mem valueBuffer = bufferWith(values), count = bufferWith(std::vector<cl_int>{0});
  Kernel kernel = createKernel(program, "count_zeros");
  ASSERT_TRUE(setArgs(kernel, valueBuffer, count, LocalSize{64 * sizeof(cl_int)}));
  ASSERT_TRUE(run1D(kernel, n, 64));
  EXPECT_EQ(zeros, read<cl_int>(count, 1)[0]);
}

TEST_F(IlProgramTest, RequiredWorkGroupSizeComesFromTheModule) {
  Program program = builtIl("kernels");
  ASSERT_NE(nullptr, program.get());
  Kernel kernel = createKernel(program, "fixed_size");
  size_t compiled[3] = {};
  ASSERT_CL_SUCCESS(clGetKernelWorkGroupInfo(kernel, device_, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                             sizeof compiled, compiled, nullptr));
  EXPECT_EQ(16u, compiled[0]);
  EXPECT_EQ(1u, compiled[1]);
  EXPECT_EQ(1u, compiled[2]);
  Mem out = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(cl_uint));
  ASSERT_TRUE(setArgs(kernel, out));
  size_t global = 64, wrongLocal = 8;
  EXPECT_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE,
                  clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, &wrongLocal, 0,
                                         nullptr, nullptr));
  ASSERT_TRUE(run1D(kernel, 64, 16));
  std::vector<cl_uint> result = read<cl_uint>(out, 64);
  for (cl_uint i = 0; i < 64; ++i)
    EXPECT_EQ(i % 16 * 100 + i / 16, result[i]) << i;
}

TEST_F(IlProgramTest, ProgramIlReturnsTheModuleAndSourceProgramsHaveNone) {
  std::vector<unsigned char> il = spirvModule("kernels");
  Program program = fromIl(il);
  auto returned = queryArray<unsigned char>([&](size_t s, void *v, size_t *r) {
    return clGetProgramInfo(program, CL_PROGRAM_IL, s, v, r);
  });
  EXPECT_EQ(il, returned);
  EXPECT_EQ("", queryString([&](size_t s, void *v, size_t *r) {
              return clGetProgramInfo(program, CL_PROGRAM_SOURCE, s, v, r);
            }));

  const char *source = "kernel void k(global int *p) { *p = 1; }";
  cl_int error = CL_SUCCESS;
  Program fromSource(clCreateProgramWithSource(context_, 1, &source, nullptr, &error));
  size_t size = 1;
  EXPECT_CL_SUCCESS(clGetProgramInfo(fromSource, CL_PROGRAM_IL, 0, nullptr, &size));
  EXPECT_EQ(0u, size);
}

TEST_F(IlProgramTest, TheKhrEntryPointCreatesTheSameProgram) {
  auto create = reinterpret_cast<clCreateProgramWithILKHR_fn>(
      clGetExtensionFunctionAddressForPlatform(platform_, "clCreateProgramWithILKHR"));
  ASSERT_NE(nullptr, create);
  std::vector<unsigned char> il = spirvModule("kernels");
  cl_int error = CL_SUCCESS;
  Program program(create(context_, il.data(), il.size(), &error));
  ASSERT_CL_SUCCESS(error);
  EXPECT_CL_SUCCESS(clBuildProgram(program, 1, &device_, "", nullptr, nullptr));
  EXPECT_EQ(3u, programInfo<size_t>(program, CL_PROGRAM_NUM_KERNELS));
}

TEST_F(IlProgramTest, CompiledIlLinksWithSourceThatDefinesWhatItImports) {
  Program il = fromIl(spirvModule("imports_helper"));
  ASSERT_CL_SUCCESS(clCompileProgram(il, 1, &device_, "", 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(static_cast<cl_program_binary_type>(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT),
            buildInfo<cl_program_binary_type>(il, device_, CL_PROGRAM_BINARY_TYPE));
  const char *helperSource = "int helper(int value) { return value * 3 + 1; }";
  cl_int error = CL_SUCCESS;
  Program helper(clCreateProgramWithSource(context_, 1, &helperSource, nullptr, &error));
  ASSERT_CL_SUCCESS(
      clCompileProgram(helper, 1, &device_, "", 0, nullptr, nullptr, nullptr, nullptr));
  cl_program inputs[] = {il, helper};
  Program linked(clLinkProgram(context_, 1, &device_, "", 2, inputs, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  std::vector<cl_int> values(256);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<cl_int>(i) - 100;
  Mem buffer = bufferWith(values);
  Kernel kernel = createKernel(linked, "call_helper");
  ASSERT_TRUE(setArgs(kernel, buffer));
  ASSERT_TRUE(run1D(kernel, values.size()));
  std::vector<cl_int> result = read<cl_int>(buffer, values.size());
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_EQ(values[i] * 3 + 1, result[i]) << i;
}

TEST_F(IlProgramTest, UnresolvedImportFailsTheBuildWithALog) {
  std::string log = failedBuildLog("imports_helper");
  EXPECT_NE(std::string::npos, log.find("helper")) << log;
}

TEST_F(IlProgramTest, Spirv14ConstructsTheTranslatorLacksWork) {
  Program program = builtIl("spirv14_constructs");
  ASSERT_NE(nullptr, program.get());
  Mem out = bufferWith(std::vector<cl_uint>(4, 0xdeadbeef));
  struct Record {
    cl_uint integer;
    cl_float real;
  };
  Mem record = createBuffer(CL_MEM_READ_WRITE, sizeof(Record));
  Kernel kernel = createKernel(program, "spirv14_constructs");
  ASSERT_TRUE(setArgs(kernel, out, record));
  ASSERT_TRUE(run1D(kernel, 1));
  EXPECT_EQ((std::vector<cl_uint>{1, 1, 3, 77}), read<cl_uint>(out, 4));
  std::vector<Record> copied = read<Record>(record, 1);
  EXPECT_EQ(1024u, copied[0].integer);
  EXPECT_EQ(2.5f, copied[0].real);
}

// ---------------------------------------------------------------------------------------------
// Specialization constants

class SpecializationConstantTest : public IlProgramTest {
protected:
  struct Values {
    cl_uint integer;
    cl_ulong wide;
    cl_float real;
  };
  Values runSpecConstants(cl_program program) {
    Mem outInt = createBuffer(CL_MEM_READ_WRITE, sizeof(cl_uint));
    Mem outLong = createBuffer(CL_MEM_READ_WRITE, sizeof(cl_ulong));
    Mem outFloat = createBuffer(CL_MEM_READ_WRITE, sizeof(cl_float));
    Kernel kernel = createKernel(program, "spec_constants");
    EXPECT_TRUE(setArgs(kernel, outInt, outLong, outFloat));
    EXPECT_TRUE(run1D(kernel, 1));
    return {read<cl_uint>(outInt, 1)[0], read<cl_ulong>(outLong, 1)[0],
            read<cl_float>(outFloat, 1)[0]};
  }
};

TEST_F(SpecializationConstantTest, DefaultsApplyWhenNothingIsSet) {
  Program program = builtIl("spec_constants");
  ASSERT_NE(nullptr, program.get());
  Values values = runSpecConstants(program);
  EXPECT_EQ(7u, values.integer);
  EXPECT_EQ(5000000000ull, values.wide);
  EXPECT_EQ(1.5f, values.real);
}

TEST_F(SpecializationConstantTest, SetValuesOfEveryTypeReachTheKernel) {
  Program program = fromIl(spirvModule("spec_constants"));
  cl_uint integer = 0xfffffff0u;
  cl_uchar yes = 1;
  cl_ulong wide = 0x8000000000000123ull;
  cl_float real = -0.375f;
  ASSERT_CL_SUCCESS(clSetProgramSpecializationConstant(program, 0, sizeof integer, &integer));
  ASSERT_CL_SUCCESS(clSetProgramSpecializationConstant(program, 1, sizeof yes, &yes));
  ASSERT_CL_SUCCESS(clSetProgramSpecializationConstant(program, 2, sizeof wide, &wide));
  ASSERT_CL_SUCCESS(clSetProgramSpecializationConstant(program, 3, sizeof real, &real));
  ASSERT_CL_SUCCESS(clBuildProgram(program, 1, &device_, "", nullptr, nullptr))
      << buildLog(program, device_);
  Values values = runSpecConstants(program);
  EXPECT_EQ(integer + 1000u, values.integer);
  EXPECT_EQ(wide, values.wide);
  EXPECT_EQ(real, values.real);

  // A later value replaces the earlier one at the next build.
  cl_uchar no = 0;
  ASSERT_CL_SUCCESS(clSetProgramSpecializationConstant(program, 1, sizeof no, &no));
  ASSERT_CL_SUCCESS(clBuildProgram(program, 1, &device_, "", nullptr, nullptr));
  EXPECT_EQ(integer, runSpecConstants(program).integer);
}

TEST_F(SpecializationConstantTest, WrongIdsSizesAndProgramsAreRefused) {
  Program program = fromIl(spirvModule("spec_constants"));
  cl_uint integer = 1;
  cl_ulong wide = 1;
  EXPECT_CL_ERROR(CL_INVALID_SPEC_ID,
                  clSetProgramSpecializationConstant(program, 9, sizeof integer, &integer));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clSetProgramSpecializationConstant(program, 0, sizeof wide, &wide));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clSetProgramSpecializationConstant(program, 1, sizeof integer, &integer));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clSetProgramSpecializationConstant(program, 0, sizeof integer, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM,
                  clSetProgramSpecializationConstant(nullptr, 0, sizeof integer, &integer));

  // "CL_INVALID_PROGRAM if program is not a valid program object created from an intermediate
  // language."
  const char *source = "kernel void k(global int *p) { *p = 1; }";
  cl_int error = CL_SUCCESS;
  Program fromSource(clCreateProgramWithSource(context_, 1, &source, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM,
                  clSetProgramSpecializationConstant(fromSource, 0, sizeof integer, &integer));
}

// ---------------------------------------------------------------------------------------------
// Modules Kiln refuses

TEST_F(IlProgramTest, MalformedModulesAreInvalidValues) {
  std::vector<unsigned char> good = spirvModule("kernels");
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateProgramWithIL(context_, nullptr, good.size(), &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  EXPECT_EQ(nullptr, clCreateProgramWithIL(context_, good.data(), 0, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  EXPECT_EQ(nullptr, clCreateProgramWithIL(nullptr, good.data(), good.size(), &error));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, error);

  std::vector<unsigned char> notSpirv(64, 0x5a);
  EXPECT_EQ(nullptr, clCreateProgramWithIL(context_, notSpirv.data(), notSpirv.size(), &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  // Cut inside an instruction, and cut off the word boundary.
  EXPECT_EQ(nullptr, clCreateProgramWithIL(context_, good.data(), good.size() - 6, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  std::vector<unsigned char> truncated(good.begin(), good.begin() + good.size() / 2);
  while (truncated.size() % 4 != 0)
    truncated.pop_back();
  Program half(clCreateProgramWithIL(context_, truncated.data(), truncated.size(), &error));
  if (error == CL_SUCCESS) // cut at an instruction boundary: well-formed words, invalid module
    EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE,
                    clBuildProgram(half, 1, &device_, "", nullptr, nullptr));
  else
    EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
}

TEST_F(IlProgramTest, ModulesOfTheOtherByteOrderAreRead) {
  std::vector<unsigned char> il = spirvModule("spec_constants");
  for (size_t at = 0; at + 4 <= il.size(); at += 4)
    std::swap(il[at], il[at + 3]), std::swap(il[at + 1], il[at + 2]);
  Program program = fromIl(il);
  ASSERT_CL_SUCCESS(clBuildProgram(program, 1, &device_, "", nullptr, nullptr))
      << buildLog(program, device_);
  EXPECT_EQ(1u, programInfo<size_t>(program, CL_PROGRAM_NUM_KERNELS));
}

TEST_F(IlProgramTest, AVersionNoDeviceReadsIsAnInvalidValue) {
  std::vector<unsigned char> il = spirvModule("spec_constants_1_6");
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateProgramWithIL(context_, il.data(), il.size(), &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
}

TEST_F(IlProgramTest, InvalidSpirvFailsTheBuildWithTheValidatorsReason) {
  std::string log = failedBuildLog("invalid_types");
  EXPECT_NE(std::string::npos, log.find("not valid")) << log;
  EXPECT_NE(std::string::npos, log.find("IAdd")) << log;
}

TEST_F(IlProgramTest, HalfArithmeticRunsWhereTheDeviceHasHalf) {
  if (!hasExtension(device_, "cl_khr_fp16"))
    GTEST_SKIP() << "no cl_khr_fp16";
  Program program = builtIl("half_arithmetic");
  ASSERT_NE(nullptr, program.get());
  Mem out = createBuffer(CL_MEM_READ_WRITE, sizeof(cl_half));
  Kernel kernel = createKernel(program, "half_arithmetic");
  ASSERT_TRUE(setArgs(kernel, out));
  ASSERT_TRUE(run1D(kernel, 1));
  EXPECT_EQ(0x4000, read<cl_half>(out, 1)[0]); // 1 + 1
}

TEST_F(IlProgramTest, ACapabilityTheDeviceLacksFailsTheBuild) {
  if (hasExtension(device_, "cl_khr_mipmap_image"))
    GTEST_SKIP() << "the device has mipmapped images";
  std::string log = failedBuildLog("mipmap_capability");
  EXPECT_NE(std::string::npos, log.find("ImageMipmap")) << log;
  EXPECT_NE(std::string::npos, log.find("cl_khr_mipmap_image")) << log;
}

// Run by CTest with KILN_SPIRV_TRANSLATOR naming no file (KilnTests.WithoutSpirvTranslator): a
// platform started without a translator lists no IL and refuses IL programs.
TEST(IlAbsenceTest, WithoutATranslatorNoDeviceListsSpirv) {
  const char *translator = std::getenv("KILN_SPIRV_TRANSLATOR");
  if (!isKiln() || translator == nullptr || std::ifstream(translator))
    GTEST_SKIP() << "needs KILN_SPIRV_TRANSLATOR naming no file at the platform's start";
  cl_device_id dev = device();
  EXPECT_EQ("", deviceString(dev, CL_DEVICE_IL_VERSION));
  EXPECT_TRUE(deviceArray<cl_name_version>(dev, CL_DEVICE_ILS_WITH_VERSION).empty());
  EXPECT_FALSE(hasExtension(dev, "cl_khr_il_program"));
  EXPECT_EQ(std::string::npos,
            platformString(platform(), CL_PLATFORM_EXTENSIONS).find("cl_khr_il_program"));
  cl_int error = CL_SUCCESS;
  Context context(clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  std::vector<unsigned char> il = spirvModule("kernels");
  EXPECT_EQ(nullptr, clCreateProgramWithIL(context, il.data(), il.size(), &error));
  EXPECT_CL_ERROR(CL_INVALID_OPERATION, error);
}

TEST_F(IlProgramTest, AMissingTranslatorFailsTheBuildWithALog) {
  ScopedEnvironment translator("KILN_SPIRV_TRANSLATOR", "/nonexistent/llvm-spirv");
  std::string log = failedBuildLog("kernels");
  EXPECT_NE(std::string::npos, log.find("/nonexistent/llvm-spirv")) << log;
}

} // namespace
