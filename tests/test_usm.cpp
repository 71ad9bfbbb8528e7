// cl_intel_unified_shared_memory on the device under test, through the functions the platform
// hands out by name (as SYCL runtimes and chipStar find them): host, device and shared
// allocations and their errors, the allocation queries, copies, fills, migrations and advice,
// USM pointers as kernel arguments and reached indirectly, and the blocking free.
#include "cl_test.hpp"

using namespace cltest;

namespace {

struct UsmFunctions {
  clHostMemAllocINTEL_fn hostAlloc = nullptr;
  clDeviceMemAllocINTEL_fn deviceAlloc = nullptr;
  clSharedMemAllocINTEL_fn sharedAlloc = nullptr;
  clMemFreeINTEL_fn free = nullptr;
  clMemBlockingFreeINTEL_fn blockingFree = nullptr;
  clGetMemAllocInfoINTEL_fn info = nullptr;
  clSetKernelArgMemPointerINTEL_fn setArg = nullptr;
  clEnqueueMemFillINTEL_fn fill = nullptr;
  clEnqueueMemcpyINTEL_fn copy = nullptr;
  clEnqueueMigrateMemINTEL_fn migrate = nullptr;
  clEnqueueMemAdviseINTEL_fn advise = nullptr;
};

class UsmTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (!hasExtension(device_, "cl_intel_unified_shared_memory"))
      GTEST_SKIP() << "no cl_intel_unified_shared_memory";
    auto find = [&](auto &function, const char *name) {
      function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
          clGetExtensionFunctionAddressForPlatform(platform_, name));
      ASSERT_NE(nullptr, reinterpret_cast<void *>(function)) << name;
    };
    find(usm_.hostAlloc, "clHostMemAllocINTEL");
    find(usm_.deviceAlloc, "clDeviceMemAllocINTEL");
    find(usm_.sharedAlloc, "clSharedMemAllocINTEL");
    find(usm_.free, "clMemFreeINTEL");
    find(usm_.blockingFree, "clMemBlockingFreeINTEL");
    find(usm_.info, "clGetMemAllocInfoINTEL");
    find(usm_.setArg, "clSetKernelArgMemPointerINTEL");
    find(usm_.fill, "clEnqueueMemFillINTEL");
    find(usm_.copy, "clEnqueueMemcpyINTEL");
    find(usm_.migrate, "clEnqueueMigrateMemINTEL");
    find(usm_.advise, "clEnqueueMemAdviseINTEL");
  }

  /// An allocation of each kind that the device can use, by the function that makes it.
  std::vector<std::pair<const char *, void *>> allocateEach(size_t bytes) {
    std::vector<std::pair<const char *, void *>> made;
    cl_int error = CL_SUCCESS;
    if (capabilities(CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL) != 0)
      made.emplace_back("host", usm_.hostAlloc(context_, nullptr, bytes, 0, &error));
    EXPECT_CL_SUCCESS(error);
    made.emplace_back("device", usm_.deviceAlloc(context_, device_, nullptr, bytes, 0, &error));
    EXPECT_CL_SUCCESS(error);
    made.emplace_back("shared", usm_.sharedAlloc(context_, device_, nullptr, bytes, 0, &error));
    EXPECT_CL_SUCCESS(error);
    return made;
  }

  cl_bitfield capabilities(cl_device_info query) { return deviceInfo<cl_bitfield>(device_, query); }

  template <typename T> T allocInfo(const void *pointer, cl_mem_info_intel query) {
    T value{};
    size_t size = 0;
    EXPECT_CL_SUCCESS(usm_.info(context_, pointer, query, sizeof value, &value, &size));
    EXPECT_EQ(sizeof value, size);
    return value;
  }

  UsmFunctions usm_;
};

const char *kSource = R"(
  kernel void scale(global int *data, int factor) {
    size_t i = get_global_id(0);
    data[i] *= factor;
  }
  // `table` holds pointers to other USM memory, reached without being arguments.
  kernel void gather(global int *global *table, global int *out) {
    size_t i = get_global_id(0);
    out[i] = *table[i];
  }
)";

TEST_F(UsmTest, DevicesReportWhatTheyDoWithEachKind) {
  cl_bitfield device = capabilities(CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL);
  cl_bitfield shared = capabilities(CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL);
  EXPECT_NE(0u, device & CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL);
  EXPECT_NE(0u, shared & CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL);
  capabilities(CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL);
  capabilities(CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL);
  capabilities(CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL);
}

TEST_F(UsmTest, AllocationsRejectWhatTheExtensionRejects) {
  cl_int error = CL_SUCCESS;
  EXPECT_EQ(nullptr, usm_.hostAlloc(nullptr, nullptr, 64, 0, &error));
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, error);
  EXPECT_EQ(nullptr, usm_.deviceAlloc(context_, nullptr, nullptr, 64, 0, &error));
  EXPECT_CL_ERROR(CL_INVALID_DEVICE, error);
  EXPECT_EQ(nullptr, usm_.sharedAlloc(context_, device_, nullptr, 0, 0, &error));
  EXPECT_CL_ERROR(CL_INVALID_BUFFER_SIZE, error);
  EXPECT_EQ(nullptr, usm_.sharedAlloc(context_, device_, nullptr, 64, 3, &error));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, error);
  cl_mem_properties_intel unknown[] = {0x1234, 0, 0};
  EXPECT_EQ(nullptr, usm_.sharedAlloc(context_, device_, unknown, 64, 0, &error));
  EXPECT_CL_ERROR(CL_INVALID_PROPERTY, error);
  cl_mem_properties_intel bothPlacements[] = {
      CL_MEM_ALLOC_FLAGS_INTEL,
      CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL | CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL, 0};
  EXPECT_EQ(nullptr, usm_.sharedAlloc(context_, device_, bothPlacements, 64, 0, &error));
  EXPECT_CL_ERROR(CL_INVALID_PROPERTY, error);
  int local = 0;
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, usm_.free(nullptr, &local));
  EXPECT_CL_SUCCESS(usm_.free(context_, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, usm_.free(context_, &local));
}

TEST_F(UsmTest, QueriesDescribeEachAllocation) {
  cl_mem_properties_intel combined[] = {CL_MEM_ALLOC_FLAGS_INTEL, CL_MEM_ALLOC_WRITE_COMBINED_INTEL,
                                        0};
  cl_int error = CL_SUCCESS;
  auto *shared =
      static_cast<char *>(usm_.sharedAlloc(context_, device_, combined, 4096, 64, &error));
  ASSERT_CL_SUCCESS(error);
  void *onDevice = usm_.deviceAlloc(context_, device_, nullptr, 100, 0, &error);
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(CL_MEM_TYPE_SHARED_INTEL,
            allocInfo<cl_unified_shared_memory_type_intel>(shared + 100, CL_MEM_ALLOC_TYPE_INTEL));
  EXPECT_EQ(CL_MEM_TYPE_DEVICE_INTEL,
            allocInfo<cl_unified_shared_memory_type_intel>(onDevice, CL_MEM_ALLOC_TYPE_INTEL));
  EXPECT_EQ(static_cast<void *>(shared),
            allocInfo<void *>(shared + 4095, CL_MEM_ALLOC_BASE_PTR_INTEL));
  EXPECT_EQ(4096u, allocInfo<size_t>(shared + 10, CL_MEM_ALLOC_SIZE_INTEL));
  EXPECT_EQ(device_, allocInfo<cl_device_id>(shared, CL_MEM_ALLOC_DEVICE_INTEL));
  EXPECT_EQ(static_cast<cl_mem_alloc_flags_intel>(CL_MEM_ALLOC_WRITE_COMBINED_INTEL),
            allocInfo<cl_mem_alloc_flags_intel>(shared, CL_MEM_ALLOC_FLAGS_INTEL));
  int local = 0;
  EXPECT_EQ(CL_MEM_TYPE_UNKNOWN_INTEL,
            allocInfo<cl_unified_shared_memory_type_intel>(&local, CL_MEM_ALLOC_TYPE_INTEL));
  // Just past the end is another allocation's, or none.
  EXPECT_NE(static_cast<void *>(shared),
            allocInfo<void *>(shared + 4096, CL_MEM_ALLOC_BASE_PTR_INTEL));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, usm_.info(context_, shared, 0x1234, 0, nullptr, nullptr));
  EXPECT_CL_SUCCESS(usm_.free(context_, shared));
  EXPECT_CL_SUCCESS(usm_.blockingFree(context_, onDevice));
  EXPECT_EQ(CL_MEM_TYPE_UNKNOWN_INTEL,
            allocInfo<cl_unified_shared_memory_type_intel>(shared, CL_MEM_ALLOC_TYPE_INTEL));
}

TEST_F(UsmTest, KernelsUseEveryKindThroughCopiesFillsAndArguments) {
  Program program = build(kSource, "-cl-std=CL3.0");
  Kernel kernel = createKernel(program, "scale");
  constexpr size_t kCount = 1 << 14;
  for (auto [kind, data] : allocateEach(kCount * sizeof(int))) {
    SCOPED_TRACE(kind);
    ASSERT_NE(nullptr, data);
    int seven = 7;
    Event filled, copied;
    ASSERT_CL_SUCCESS(usm_.fill(queue_, data, &seven, sizeof seven, kCount * sizeof(int), 0,
                                nullptr, filled.out()));
    EXPECT_EQ(static_cast<cl_command_type>(CL_COMMAND_MEMFILL_INTEL),
              eventInfo<cl_command_type>(filled, CL_EVENT_COMMAND_TYPE));
    ASSERT_CL_SUCCESS(usm_.migrate(queue_, data, kCount * sizeof(int), 0, 0, nullptr, nullptr));
    ASSERT_CL_SUCCESS(usm_.advise(queue_, data, kCount * sizeof(int), 0, 0, nullptr, nullptr));
    ASSERT_CL_SUCCESS(usm_.setArg(kernel, 0, static_cast<int *>(data) + 16));
    int factor = 3;
    ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 1, sizeof factor, &factor));
    ASSERT_TRUE(run1D(kernel, kCount - 16));
    std::vector<int> back(kCount);
    ASSERT_CL_SUCCESS(usm_.copy(queue_, CL_TRUE, back.data(), data, kCount * sizeof(int), 0,
                                nullptr, copied.out()));
    EXPECT_EQ(static_cast<cl_command_type>(CL_COMMAND_MEMCPY_INTEL),
              eventInfo<cl_command_type>(copied, CL_EVENT_COMMAND_TYPE));
    for (size_t i = 0; i < kCount; ++i)
      ASSERT_EQ(i < 16 ? 7 : 21, back[i]) << i;
    EXPECT_CL_SUCCESS(usm_.blockingFree(context_, data));
  }
}

TEST_F(UsmTest, KernelsReachAllocationsIndirectlyWhenTold) {
  Program program = build(kSource, "-cl-std=CL3.0");
  Kernel kernel = createKernel(program, "gather");
  constexpr size_t kItems = 6;
  cl_int error = CL_SUCCESS;
  auto **table = static_cast<int **>(
      usm_.sharedAlloc(context_, device_, nullptr, kItems * sizeof(int *), 0, &error));
  ASSERT_CL_SUCCESS(error);
  std::vector<void *> targets;
  for (size_t i = 0; i < kItems; ++i) {
    void *target = usm_.deviceAlloc(context_, device_, nullptr, sizeof(int), 0, &error);
    ASSERT_CL_SUCCESS(error);
    int value = static_cast<int>(100 + i);
    ASSERT_CL_SUCCESS(
        usm_.copy(queue_, CL_TRUE, target, &value, sizeof value, 0, nullptr, nullptr));
    table[i] = static_cast<int *>(target); // shared memory: the host writes it directly
    targets.push_back(target);
  }
  auto *out = static_cast<int *>(
      usm_.sharedAlloc(context_, device_, nullptr, kItems * sizeof(int), 0, &error));
  ASSERT_CL_SUCCESS(error);
  cl_bool yes = CL_TRUE;
  ASSERT_CL_SUCCESS(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL,
                                        sizeof yes, &yes));
  EXPECT_CL_ERROR(
      CL_INVALID_VALUE,
      clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL, 1, &yes));
  ASSERT_CL_SUCCESS(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL,
                                        targets.size() * sizeof(void *), targets.data()));
  ASSERT_CL_SUCCESS(usm_.setArg(kernel, 0, table));
  ASSERT_CL_SUCCESS(usm_.setArg(kernel, 1, out));
  ASSERT_TRUE(run1D(kernel, kItems));
  for (size_t i = 0; i < kItems; ++i)
    EXPECT_EQ(static_cast<int>(100 + i), out[i]);
  for (void *target : targets)
    EXPECT_CL_SUCCESS(usm_.free(context_, target));
  EXPECT_CL_SUCCESS(usm_.free(context_, table));
  EXPECT_CL_SUCCESS(usm_.free(context_, out));
}

TEST_F(UsmTest, CommandErrors) {
  cl_int error = CL_SUCCESS;
  void *data = usm_.sharedAlloc(context_, device_, nullptr, 256, 0, &error);
  ASSERT_CL_SUCCESS(error);
  int pattern = 0;
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE,
                  usm_.copy(nullptr, CL_TRUE, data, &pattern, 4, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(
      CL_MEM_COPY_OVERLAP,
      usm_.copy(queue_, CL_TRUE, data, static_cast<char *>(data) + 2, 8, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, usm_.fill(queue_, data, &pattern, 3, 12, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, usm_.migrate(queue_, nullptr, 4, 0, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, usm_.advise(queue_, data, 256, 0x9999, 0, nullptr, nullptr));
  EXPECT_CL_SUCCESS(usm_.free(context_, data));
}

} // namespace
