// Kernels: clCreateKernel, clCreateKernelsInProgram, clCloneKernel, kernel and work-group
// queries, attributes, argument information, clSetKernelArg and its error paths.
#include "cl_test.hpp"

#include <set>

using namespace cltest;

namespace {

const char *kArgsSource = R"(
  typedef struct { int a; float b; } Pair;
  kernel void args(global const float *restrict in, global volatile int *out, constant int *table,
                   local float4 *scratch, int n, unsigned int count, Pair pair,
                   global int const *readOnly) {
    size_t i = get_global_id(0);
    scratch[get_local_id(0)] = (float4)(in[i]);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = n + (int)count + table[0] + pair.a + (int)pair.b + readOnly[0] +
             (int)scratch[get_local_id(0)].x;
  }
  __attribute__((reqd_work_group_size(4,2,1))) __attribute__((vec_type_hint(float4)))
  kernel void attributed(global int *out) { out[get_global_id(0)] = 1; }
  __attribute__((work_group_size_hint(8,1,1)))
  kernel void hinted(global int *out) { out[get_global_id(0)] = 2; }
  kernel void plain(global int *out) {
    local int tile[64];
    tile[get_local_id(0) % 64] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[0];
  }
)";

class KernelTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    program_ = build(kArgsSource, "-cl-kernel-arg-info");
  }

  std::string kernelString(cl_kernel kernel, cl_kernel_info param) {
    return queryString(
        [&](size_t s, void *v, size_t *r) { return clGetKernelInfo(kernel, param, s, v, r); });
  }
  std::string argString(cl_kernel kernel, cl_uint index, cl_kernel_arg_info param) {
    return queryString([&](size_t s, void *v, size_t *r) {
      return clGetKernelArgInfo(kernel, index, param, s, v, r);
    });
  }
  template <typename T> T argValue(cl_kernel kernel, cl_uint index, cl_kernel_arg_info param) {
    return queryValue<T>([&](size_t s, void *v, size_t *r) {
      return clGetKernelArgInfo(kernel, index, param, s, v, r);
    });
  }

  Program program_;
};

} // namespace

TEST_F(KernelTest, CreateKernelReportsItsInfo) {
  ASSERT_NE(nullptr, program_.get());
  Kernel kernel = createKernel(program_, "args");
  ASSERT_NE(nullptr, kernel.get());
  EXPECT_EQ("args", kernelString(kernel, CL_KERNEL_FUNCTION_NAME));
  EXPECT_EQ(8u, kernelInfo<cl_uint>(kernel, CL_KERNEL_NUM_ARGS));
  EXPECT_GE(refCount(kernel.get()), 1u);
  EXPECT_EQ(context_.get(), kernelInfo<cl_context>(kernel, CL_KERNEL_CONTEXT));
  EXPECT_EQ(program_.get(), kernelInfo<cl_program>(kernel, CL_KERNEL_PROGRAM));
  EXPECT_EQ("", kernelString(kernel, CL_KERNEL_ATTRIBUTES));
}

TEST_F(KernelTest, CreateKernelErrors) {
  ASSERT_NE(nullptr, program_.get());
  cl_int error = CL_SUCCESS;
  // "CL_INVALID_KERNEL_NAME if kernel_name is not found in program."
  EXPECT_EQ(nullptr, clCreateKernel(program_, "no_such_kernel", &error));
  EXPECT_CL_ERROR(CL_INVALID_KERNEL_NAME, error);
  // "CL_INVALID_VALUE if kernel_name is NULL."
  EXPECT_EQ(nullptr, clCreateKernel(program_, nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  EXPECT_EQ(nullptr, clCreateKernel(nullptr, "args", &error));
  EXPECT_CL_ERROR(CL_INVALID_PROGRAM, error);
}

TEST_F(KernelTest, AttributesAreReportedAsWritten) {
  ASSERT_NE(nullptr, program_.get());
  // "Attributes are returned as they were declared inside __attribute__((...)), with any
  // surrounding whitespace and embedded newlines removed. When multiple attributes are present,
  // they are returned as a single, space delimited string." (PoCL 3.1 returns the whole
  // __attribute__((...)) text with spaces.)
  Kernel attributed = createKernel(program_, "attributed");
  ASSERT_NE(nullptr, attributed.get());
  std::vector<std::string> attributes = split(kernelString(attributed, CL_KERNEL_ATTRIBUTES), ' ');
  std::set<std::string> set(attributes.begin(), attributes.end());
  EXPECT_EQ((std::set<std::string>{"reqd_work_group_size(4,2,1)", "vec_type_hint(float4)"}), set);
  Kernel hinted = createKernel(program_, "hinted");
  ASSERT_NE(nullptr, hinted.get());
  EXPECT_EQ("work_group_size_hint(8,1,1)", kernelString(hinted, CL_KERNEL_ATTRIBUTES));
}

TEST_F(KernelTest, WorkGroupInfo) {
  ASSERT_NE(nullptr, program_.get());
  Kernel attributed = createKernel(program_, "attributed");
  Kernel plain = createKernel(program_, "plain");
  ASSERT_NE(nullptr, plain.get());
  using Sizes = std::array<size_t, 3>;
  // CL_KERNEL_COMPILE_WORK_GROUP_SIZE: the reqd_work_group_size, or (0, 0, 0).
  EXPECT_EQ((Sizes{4, 2, 1}),
            workGroupInfo<Sizes>(attributed, device_, CL_KERNEL_COMPILE_WORK_GROUP_SIZE));
  EXPECT_EQ((Sizes{0, 0, 0}),
            workGroupInfo<Sizes>(plain, device_, CL_KERNEL_COMPILE_WORK_GROUP_SIZE));
  size_t maxGroup = workGroupInfo<size_t>(plain, device_, CL_KERNEL_WORK_GROUP_SIZE);
  EXPECT_GE(maxGroup, 1u);
  EXPECT_LE(maxGroup, deviceInfo<size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  // The local memory of `plain`: its 64 ints at least.
  EXPECT_GE(workGroupInfo<cl_ulong>(plain, device_, CL_KERNEL_LOCAL_MEM_SIZE), 64 * sizeof(int));
  EXPECT_GE(workGroupInfo<size_t>(plain, device_, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE),
            1u);
  workGroupInfo<cl_ulong>(plain, device_, CL_KERNEL_PRIVATE_MEM_SIZE);
  // CL_KERNEL_LOCAL_MEM_SIZE includes "local memory to be allocated for arguments to the kernel
  // declared as pointers with the __local address qualifier and whose size is specified with
  // clSetKernelArg".
  Kernel args = createKernel(program_, "args");
  ASSERT_NE(nullptr, args.get());
  ASSERT_CL_SUCCESS(clSetKernelArg(args, 3, 4096, nullptr));
  EXPECT_GE(workGroupInfo<cl_ulong>(args, device_, CL_KERNEL_LOCAL_MEM_SIZE), 4096u);
  // NULL names the only device of the kernel's program.
  EXPECT_EQ(maxGroup, workGroupInfo<size_t>(plain, nullptr, CL_KERNEL_WORK_GROUP_SIZE));
}

TEST_F(KernelTest, WorkGroupInfoErrors) {
  ASSERT_NE(nullptr, program_.get());
  Kernel plain = createKernel(program_, "plain");
  ASSERT_NE(nullptr, plain.get());
  size_t sizes[3];
  // "CL_INVALID_VALUE if param_name is CL_KERNEL_GLOBAL_WORK_SIZE and device is not a custom
  // device and kernel is not a built-in kernel."
  if (deviceInfo<cl_device_type>(device_, CL_DEVICE_TYPE) != CL_DEVICE_TYPE_CUSTOM)
    EXPECT_CL_ERROR(CL_INVALID_VALUE,
                    clGetKernelWorkGroupInfo(plain, device_, CL_KERNEL_GLOBAL_WORK_SIZE,
                                             sizeof sizes, sizes, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetKernelWorkGroupInfo(plain, device_, 0x7FFF, sizeof sizes, sizes, nullptr));
  EXPECT_CL_ERROR(
      CL_INVALID_VALUE,
      clGetKernelWorkGroupInfo(plain, device_, CL_KERNEL_WORK_GROUP_SIZE, 1, sizes, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_KERNEL,
                  clGetKernelWorkGroupInfo(nullptr, device_, CL_KERNEL_WORK_GROUP_SIZE,
                                           sizeof sizes, sizes, nullptr));
}

TEST_F(KernelTest, ArgumentInfoWithKernelArgInfo) {
  ASSERT_NE(nullptr, program_.get());
  Kernel kernel = createKernel(program_, "args");
  ASSERT_NE(nullptr, kernel.get());
  struct Expected {
    const char *name, *type;
    cl_kernel_arg_address_qualifier address;
    cl_kernel_arg_type_qualifier qualifiers;
  };
  const Expected expected[] = {
      {"in", "float*", CL_KERNEL_ARG_ADDRESS_GLOBAL,
       CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT},
      {"out", "int*", CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_TYPE_VOLATILE},
      // "CL_KERNEL_ARG_TYPE_CONST is returned if the kernel argument is declared with the
      // constant address space qualifier."
      {"table", "int*", CL_KERNEL_ARG_ADDRESS_CONSTANT, CL_KERNEL_ARG_TYPE_CONST},
      {"scratch", "float4*", CL_KERNEL_ARG_ADDRESS_LOCAL, CL_KERNEL_ARG_TYPE_NONE},
      {"n", "int", CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_TYPE_NONE},
      // "If argument type name is an unsigned scalar type (i.e. unsigned char, unsigned short,
      // unsigned int, unsigned long), uchar, ushort, uint and ulong will be returned."
      {"count", "uint", CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_TYPE_NONE},
      {"pair", "Pair", CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_TYPE_NONE},
      {"readOnly", "int*", CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_TYPE_CONST},
  };
  for (cl_uint index = 0; index < 8; ++index) {
    SCOPED_TRACE(expected[index].name);
    EXPECT_EQ(expected[index].name, argString(kernel, index, CL_KERNEL_ARG_NAME));
    EXPECT_EQ(expected[index].type, argString(kernel, index, CL_KERNEL_ARG_TYPE_NAME));
    EXPECT_EQ(expected[index].address, argValue<cl_kernel_arg_address_qualifier>(
                                           kernel, index, CL_KERNEL_ARG_ADDRESS_QUALIFIER));
    // "If argument is not an image type and is not declared with the pipe qualifier,
    // CL_KERNEL_ARG_ACCESS_NONE is returned."
    EXPECT_EQ(
        cl_kernel_arg_access_qualifier{CL_KERNEL_ARG_ACCESS_NONE},
        argValue<cl_kernel_arg_access_qualifier>(kernel, index, CL_KERNEL_ARG_ACCESS_QUALIFIER));
    EXPECT_EQ(expected[index].qualifiers,
              argValue<cl_kernel_arg_type_qualifier>(kernel, index, CL_KERNEL_ARG_TYPE_QUALIFIER));
  }
}

TEST_F(KernelTest, ArgumentInfoErrors) {
  ASSERT_NE(nullptr, program_.get());
  Kernel kernel = createKernel(program_, "args");
  ASSERT_NE(nullptr, kernel.get());
  char name[64];
  // "CL_INVALID_ARG_INDEX if arg_index is not a valid argument index."
  EXPECT_CL_ERROR(CL_INVALID_ARG_INDEX,
                  clGetKernelArgInfo(kernel, 8, CL_KERNEL_ARG_NAME, sizeof name, name, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetKernelArgInfo(kernel, 0, 0x7FFF, sizeof name, name, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_NAME, 1, name, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_KERNEL,
                  clGetKernelArgInfo(nullptr, 0, CL_KERNEL_ARG_NAME, sizeof name, name, nullptr));
}

TEST_F(KernelTest, ArgumentInfoWithoutKernelArgInfoIsNotAvailable) {
  // "Kernel argument information is only available if the program object associated with
  // kernel ... is created with clCreateProgramWithSource and the program executable is built
  // with the -cl-kernel-arg-info option"; otherwise "CL_KERNEL_ARG_INFO_NOT_AVAILABLE if the
  // argument information is not available for kernel".
  Kernel kernel = buildKernel(kArgsSource, "args");
  ASSERT_NE(nullptr, kernel.get());
  char name[64];
  EXPECT_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
                  clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_NAME, sizeof name, name, nullptr));
}

// ---------------------------------------------------------------------------------------------
// clSetKernelArg

TEST_F(KernelTest, SetKernelArgErrors) {
  ASSERT_NE(nullptr, program_.get());
  Kernel kernel = createKernel(program_, "args");
  ASSERT_NE(nullptr, kernel.get());
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 64);
  cl_mem handle = buffer;
  int value = 1;
  // "CL_INVALID_ARG_INDEX if arg_index is not a valid argument index."
  EXPECT_CL_ERROR(CL_INVALID_ARG_INDEX, clSetKernelArg(kernel, 8, sizeof value, &value));
  // "CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type for an argument
  // that is not a memory object or if the argument is a memory object and arg_size !=
  // sizeof(cl_mem) or if arg_size is zero and the argument is declared with the local
  // qualifier".
  cl_long wide = 1;
  EXPECT_CL_ERROR(CL_INVALID_ARG_SIZE, clSetKernelArg(kernel, 4, sizeof wide, &wide));
  EXPECT_CL_ERROR(CL_INVALID_ARG_SIZE, clSetKernelArg(kernel, 4, 2, &value));
  EXPECT_CL_ERROR(CL_INVALID_ARG_SIZE, clSetKernelArg(kernel, 0, 4, &handle));
  EXPECT_CL_ERROR(CL_INVALID_ARG_SIZE, clSetKernelArg(kernel, 3, 0, nullptr));
  // "CL_INVALID_ARG_VALUE if arg_value specified is not a valid value" (NULL for an argument
  // passed by value), and "if the argument is declared with the local qualifier and arg_value
  // is not NULL".
  EXPECT_CL_ERROR(CL_INVALID_ARG_VALUE, clSetKernelArg(kernel, 4, sizeof value, nullptr));
  cl_float4 local{};
  EXPECT_CL_ERROR(CL_INVALID_ARG_VALUE, clSetKernelArg(kernel, 3, sizeof local, &local));
  // A NULL buffer is a valid value for a global or constant pointer.
  cl_mem none = nullptr;
  EXPECT_CL_SUCCESS(clSetKernelArg(kernel, 0, sizeof none, &none));
  EXPECT_CL_SUCCESS(clSetKernelArg(kernel, 0, sizeof none, nullptr));
  EXPECT_CL_SUCCESS(clSetKernelArg(kernel, 1, sizeof handle, &handle));
  EXPECT_CL_SUCCESS(clSetKernelArg(kernel, 3, 256, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_KERNEL, clSetKernelArg(nullptr, 0, sizeof handle, &handle));
}

TEST_F(KernelTest, InvalidMemObjectArgumentIsInvalidMemObject) {
  ASSERT_NE(nullptr, program_.get());
  Kernel kernel = createKernel(program_, "args");
  ASSERT_NE(nullptr, kernel.get());
  // "CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when the specified
  // arg_value is not a valid memory object": here a queue handle.
  SKIP_UNLESS_FOREIGN_HANDLES_VALIDATED();
  cl_mem notAMem = reinterpret_cast<cl_mem>(queue_.get());
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, clSetKernelArg(kernel, 0, sizeof notAMem, &notAMem));
  ForeignObject foreign;
  cl_mem foreignMem = foreign.as<cl_mem>(queue_.get());
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, clSetKernelArg(kernel, 1, sizeof foreignMem, &foreignMem));
}

TEST_F(KernelTest, EnqueueWithUnsetArgumentsIsInvalidKernelArgs) {
  ASSERT_NE(nullptr, program_.get());
  Kernel kernel = createKernel(program_, "plain");
  ASSERT_NE(nullptr, kernel.get());
  size_t global = 64;
  // "CL_INVALID_KERNEL_ARGS if any kernel arguments for kernel have not been set."
  EXPECT_CL_ERROR(
      CL_INVALID_KERNEL_ARGS,
      clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_KERNEL_ARGS, clEnqueueTask(queue_, kernel, 0, nullptr, nullptr));
}

TEST_F(KernelTest, ReleasedBufferArgumentIsDestroyedAndRejectedAtEnqueue) {
  ASSERT_NE(nullptr, program_.get());
  Kernel kernel = createKernel(program_, "plain");
  ASSERT_NE(nullptr, kernel.get());
  cl_int error = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(context_, CL_MEM_READ_WRITE, 64 * sizeof(int), nullptr, &error);
  ASSERT_CL_SUCCESS(error);
  bool destroyed = false;
  ASSERT_CL_SUCCESS(clSetMemObjectDestructorCallback(
      buffer, [](cl_mem, void *flag) { *static_cast<bool *>(flag) = true; }, &destroyed));
  ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
  // A kernel argument does not keep the buffer: its last release destroys it.
  ASSERT_CL_SUCCESS(clReleaseMemObject(buffer));
  EXPECT_TRUE(destroyed);
  // The kernel still names the destroyed buffer; enqueueing it must fail cleanly, not touch
  // freed memory (the sanitizer builds check the latter).
  size_t global = 64;
  EXPECT_CL_ERROR(
      CL_INVALID_KERNEL_ARGS,
      clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  // Setting a live buffer makes the kernel usable again.
  Mem replacement = createBuffer(CL_MEM_READ_WRITE, 64 * sizeof(int));
  cl_mem handle = replacement.get();
  ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 0, sizeof handle, &handle));
  EXPECT_CL_SUCCESS(
      clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  EXPECT_CL_SUCCESS(clFinish(queue_));
}

// ---------------------------------------------------------------------------------------------
// clCreateKernelsInProgram, clCloneKernel, reference counts

TEST_F(KernelTest, CreateKernelsInProgramCreatesEveryKernel) {
  ASSERT_NE(nullptr, program_.get());
  cl_uint count = 0;
  ASSERT_CL_SUCCESS(clCreateKernelsInProgram(program_, 0, nullptr, &count));
  EXPECT_EQ(4u, count);
  // "CL_INVALID_VALUE if kernels is not NULL and num_kernels is less than the number of kernels
  // in program."
  std::vector<cl_kernel> kernels(count);
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clCreateKernelsInProgram(program_, count - 1, kernels.data(), nullptr));
  ASSERT_CL_SUCCESS(clCreateKernelsInProgram(program_, count, kernels.data(), nullptr));
  std::set<std::string> names;
  for (cl_kernel kernel : kernels) {
    names.insert(kernelString(kernel, CL_KERNEL_FUNCTION_NAME));
    EXPECT_CL_SUCCESS(clReleaseKernel(kernel));
  }
  EXPECT_EQ((std::set<std::string>{"args", "attributed", "hinted", "plain"}), names);
}

TEST_F(KernelTest, CloneKeepsArgumentsAndIsIndependent) {
  Kernel kernel = buildKernel(R"(
    kernel void scale(global int *out, int factor) {
      out[get_global_id(0)] = (int)get_global_id(0) * factor;
    })",
                              "scale");
  ASSERT_NE(nullptr, kernel.get());
  const size_t count = 32;
  Mem first = createBuffer(CL_MEM_READ_WRITE, count * sizeof(int));
  Mem second = createBuffer(CL_MEM_READ_WRITE, count * sizeof(int));
  ASSERT_TRUE(setArgs(kernel, first, 3));
  cl_int error = CL_SUCCESS;
  Kernel clone(clCloneKernel(kernel, &error));
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ("scale", kernelString(clone, CL_KERNEL_FUNCTION_NAME));
  EXPECT_EQ(kernelInfo<cl_program>(kernel, CL_KERNEL_PROGRAM),
            kernelInfo<cl_program>(clone, CL_KERNEL_PROGRAM));
  // The clone starts with the same arguments; changing it leaves the original alone.
  ASSERT_TRUE(setArgs(clone, second));
  ASSERT_TRUE(run1D(kernel, count));
  ASSERT_TRUE(run1D(clone, count));
  ASSERT_CL_SUCCESS(setArg(clone, 1, 5));
  ASSERT_TRUE(run1D(clone, count));
  ASSERT_TRUE(run1D(kernel, count));
  std::vector<int> times3(count), times5(count);
  for (size_t index = 0; index < count; ++index) {
    times3[index] = static_cast<int>(index) * 3;
    times5[index] = static_cast<int>(index) * 5;
  }
  EXPECT_TRUE(equalArrays(times3, read<int>(first, count)));
  EXPECT_TRUE(equalArrays(times5, read<int>(second, count)));
  EXPECT_EQ(nullptr, clCloneKernel(nullptr, &error));
  EXPECT_CL_ERROR(CL_INVALID_KERNEL, error);
}

TEST_F(KernelTest, RetainAndReleaseMoveTheReferenceCount) {
  ASSERT_NE(nullptr, program_.get());
  Kernel kernel = createKernel(program_, "plain");
  ASSERT_NE(nullptr, kernel.get());
  cl_uint initial = refCount(kernel.get());
  ASSERT_CL_SUCCESS(clRetainKernel(kernel));
  EXPECT_EQ(initial + 1, refCount(kernel.get()));
  ASSERT_CL_SUCCESS(clReleaseKernel(kernel));
  EXPECT_EQ(initial, refCount(kernel.get()));
  EXPECT_CL_ERROR(CL_INVALID_KERNEL, clRetainKernel(nullptr));
  EXPECT_CL_ERROR(CL_INVALID_KERNEL, clReleaseKernel(nullptr));
}

TEST_F(KernelTest, KernelKeepsItsProgramAlive) {
  // A kernel holds its program: releasing the application's program reference first is fine.
  cl_int error = CL_SUCCESS;
  Program program = build("kernel void k(global int *o) { o[get_global_id(0)] = 9; }");
  ASSERT_NE(nullptr, program.get());
  Kernel kernel(clCreateKernel(program, "k", &error));
  ASSERT_CL_SUCCESS(error);
  cl_program raw = program.get();
  program.reset(); // the application's last reference: the handle must not be used again
  Mem out = createBuffer(CL_MEM_READ_WRITE, 8 * sizeof(int));
  ASSERT_TRUE(setArgs(kernel, out));
  ASSERT_TRUE(run1D(kernel, 8));
  EXPECT_TRUE(equalArrays(std::vector<int>(8, 9), read<int>(out, 8)));
  EXPECT_EQ(raw, kernelInfo<cl_program>(kernel, CL_KERNEL_PROGRAM));
}

TEST_F(KernelTest, InfoErrors) {
  ASSERT_NE(nullptr, program_.get());
  Kernel kernel = createKernel(program_, "plain");
  ASSERT_NE(nullptr, kernel.get());
  cl_uint value = 0;
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetKernelInfo(kernel, 0x7FFF, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof value - 1, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_KERNEL,
                  clGetKernelInfo(nullptr, CL_KERNEL_NUM_ARGS, sizeof value, &value, nullptr));
}
