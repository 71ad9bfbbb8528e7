// A kind of device is a folder under src/devices/ and a row in the device list: the test-only
// stream device (devices/stream/) has nothing else, and kiln_runtime_tests, which links it,
// sees it through the OpenCL API beside the devices every build has, and runs commands on it.
#include "devices/stream/stream_driver.hpp"

#include <CL/cl.h>
#include <gtest/gtest.h>

#include <array>
#include <numeric>
#include <string>
#include <vector>

namespace kiln {
namespace {

std::string deviceName(cl_device_id device) {
  size_t size = 0;
  EXPECT_EQ(CL_SUCCESS, clGetDeviceInfo(device, CL_DEVICE_NAME, 0, nullptr, &size));
  std::string name(size, '\0');
  EXPECT_EQ(CL_SUCCESS, clGetDeviceInfo(device, CL_DEVICE_NAME, size, name.data(), nullptr));
  name.resize(name.empty() ? 0 : size - 1);
  return name;
}

cl_platform_id kilnPlatform() {
  cl_platform_id platform = nullptr;
  EXPECT_EQ(CL_SUCCESS, clGetPlatformIDs(1, &platform, nullptr));
  return platform;
}

TEST(DeviceListTest, TheStreamDeviceIsListedLastAsAnAccelerator) {
  cl_platform_id platform = kilnPlatform();
  cl_uint count = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count));
  ASSERT_GE(count, 2u); // the CPU, the GPUs of this machine if any, the stream
  std::vector<cl_device_id> all(count);
  ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, all.data(), nullptr));
  EXPECT_EQ(stream::StreamDriver::kName, deviceName(all.back()));
  cl_device_type type = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(all.front(), CL_DEVICE_TYPE, sizeof(type), &type, nullptr));
  EXPECT_EQ(cl_device_type{CL_DEVICE_TYPE_CPU}, type);

  cl_device_id accelerator = nullptr;
  ASSERT_EQ(CL_SUCCESS,
            clGetDeviceIDs(platform, CL_DEVICE_TYPE_ACCELERATOR, 1, &accelerator, nullptr));
  EXPECT_EQ(all.back(), accelerator);
}

TEST(DeviceListTest, TheStreamDeviceCarriesOutMemoryCommandsAndRefusesKernels) {
  cl_device_id device = nullptr;
  ASSERT_EQ(CL_SUCCESS,
            clGetDeviceIDs(kilnPlatform(), CL_DEVICE_TYPE_ACCELERATOR, 1, &device, nullptr));
  cl_int error = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &error);
  ASSERT_EQ(CL_SUCCESS, error);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, nullptr, &error);
  ASSERT_EQ(CL_SUCCESS, error);

  std::array<int, 1024> input, output{};
  std::iota(input.begin(), input.end(), 7);
  cl_mem first = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(input), nullptr, &error);
  ASSERT_EQ(CL_SUCCESS, error);
  cl_mem second = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(input), nullptr, &error);
  ASSERT_EQ(CL_SUCCESS, error);
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(queue, first, CL_FALSE, 0, sizeof(input), input.data(),
                                             0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS,
            clEnqueueCopyBuffer(queue, first, second, 0, 0, sizeof(input), 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue, second, CL_TRUE, 0, sizeof(output),
                                            output.data(), 0, nullptr, nullptr));
  EXPECT_EQ(input, output);

  const char *source = "kernel void k(global int *p) { p[0] = 1; }";
  cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &error);
  ASSERT_EQ(CL_SUCCESS, error);
  EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(program, 1, &device, "", nullptr, nullptr));

  clReleaseProgram(program);
  clReleaseMemObject(second);
  clReleaseMemObject(first);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
}

} // namespace
} // namespace kiln
