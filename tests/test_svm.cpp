// Shared virtual memory on the device under test: clSVMAlloc and clSVMFree with every argument
// error, the SVM commands (copy, fill, map, unmap, migrate, free) and their errors, SVM pointers
// as kernel arguments (anywhere inside an allocation) and through CL_KERNEL_EXEC_INFO_SVM_PTRS,
// pointer-linked structures built by the host and walked by kernels, buffers over SVM memory,
// fine-grained SVM and its atomics shared with host threads while the kernel runs, and
// fine-grained system SVM (ordinary host memory). Every result is checked against the host.
#include "cl_test.hpp"

#include <atomic>
#include <cstdlib>
#include <thread>

using namespace cltest;

namespace {

class SvmTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    capabilities_ = deviceInfo<cl_device_svm_capabilities>(device_, CL_DEVICE_SVM_CAPABILITIES);
    if (capabilities_ == 0)
      GTEST_SKIP() << "the device has no shared virtual memory";
  }
  void TearDown() override {
    for (void *pointer : allocations_)
      clSVMFree(context_, pointer);
  }

  bool has(cl_device_svm_capabilities capability) const {
    return (capabilities_ & capability) == capability;
  }

  /// clSVMAlloc, freed at the end of the test.
  template <typename T>
  T *allocate(size_t count, cl_svm_mem_flags flags = CL_MEM_READ_WRITE, cl_uint alignment = 0) {
    void *pointer = clSVMAlloc(context_, flags, count * sizeof(T), alignment);
    EXPECT_NE(nullptr, pointer);
    if (pointer != nullptr)
      allocations_.push_back(pointer);
    return static_cast<T *>(pointer);
  }

  void map(void *pointer, size_t bytes, cl_map_flags flags = CL_MAP_READ | CL_MAP_WRITE) {
    EXPECT_CL_SUCCESS(clEnqueueSVMMap(queue_, CL_TRUE, flags, pointer, bytes, 0, nullptr, nullptr));
  }
  void unmap(void *pointer) {
    EXPECT_CL_SUCCESS(clEnqueueSVMUnmap(queue_, pointer, 0, nullptr, nullptr));
    EXPECT_CL_SUCCESS(clFinish(queue_));
  }

  cl_device_svm_capabilities capabilities_ = 0;
  std::vector<void *> allocations_;
};

const char *kSource = R"(
  kernel void scale(global int *data, int factor) {
    size_t i = get_global_id(0);
    data[i] *= factor;
  }
  typedef struct Node {
    global struct Node *next;
    int value;
  } Node;
  // Sums the list from `head`, once per work-item, adding the work-item's id.
  kernel void walk(global Node *head, global int *sums) {
    int sum = 0;
    for (global Node *node = head; node; node = node->next)
      sum += node->value;
    sums[get_global_id(0)] = sum + (int)get_global_id(0);
  }
  typedef struct Tree {
    global struct Tree *left, *right;
    int key, payload;
  } Tree;
  kernel void search(global Tree *root, global const int *keys, global int *found) {
    size_t i = get_global_id(0);
    int key = keys[i];
    global Tree *node = root;
    while (node && node->key != key)
      node = key < node->key ? node->left : node->right;
    found[i] = node ? node->payload : -1;
  }
  // `pointers` is SVM memory holding pointers to other SVM memory (named through exec info).
  kernel void gather(global int *global *pointers, global int *out) {
    size_t i = get_global_id(0);
    out[i] = *pointers[i];
  }
  kernel void count(global atomic_int *counter, int perItem) {
    for (int k = 0; k < perItem; ++k)
      atomic_fetch_add_explicit(counter, 1, memory_order_relaxed, memory_scope_all_svm_devices);
  }
)";

TEST_F(SvmTest, SvmAllocRejectsWhatTheSpecificationRejects) {
  EXPECT_EQ(nullptr, clSVMAlloc(nullptr, CL_MEM_READ_WRITE, 64, 0));
  EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_READ_WRITE, 0, 0));
  cl_ulong maxAlloc = deviceInfo<cl_ulong>(device_, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_READ_WRITE, maxAlloc + 1, 0));
  EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, 0));
  EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_USE_HOST_PTR, 64, 0));
  EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_SVM_ATOMICS, 64, 0));  // needs fine grain
  EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_READ_WRITE, 64, 3));   // not a power of two
  EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_READ_WRITE, 64, 256)); // beyond long16
  if (!has(CL_DEVICE_SVM_FINE_GRAIN_BUFFER))
    EXPECT_EQ(nullptr, clSVMAlloc(context_, CL_MEM_SVM_FINE_GRAIN_BUFFER, 64, 0));
  // Freeing NULL, or with a bad context, does nothing.
  clSVMFree(context_, nullptr);
  clSVMFree(nullptr, nullptr);
}

TEST_F(SvmTest, AllocationsAreAlignedAndHoldWhatTheHostWrites) {
  for (cl_uint alignment : {0u, 1u, 8u, 64u, 128u}) {
    auto *data = allocate<int>(1000, CL_MEM_READ_WRITE, alignment);
    ASSERT_NE(nullptr, data);
    EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(data) % 128) << alignment;
    map(data, 1000 * sizeof(int), CL_MAP_WRITE_INVALIDATE_REGION);
    for (int i = 0; i < 1000; ++i)
      data[i] = i * 7;
    unmap(data);
    map(data, 1000 * sizeof(int), CL_MAP_READ);
    for (int i = 0; i < 1000; ++i)
      ASSERT_EQ(i * 7, data[i]);
    unmap(data);
  }
}

TEST_F(SvmTest, KernelArgumentsPointAnywhereInsideAnAllocation) {
  Program program = build(kSource, "-cl-std=CL3.0");
  Kernel kernel = createKernel(program, "scale");
  constexpr size_t kCount = 4096, kOffset = 100, kItems = 1000;
  auto *data = allocate<int>(kCount);
  map(data, kCount * sizeof(int), CL_MAP_WRITE);
  for (size_t i = 0; i < kCount; ++i)
    data[i] = static_cast<int>(i);
  unmap(data);
  ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(kernel, 0, data + kOffset));
  int factor = 3;
  ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 1, sizeof factor, &factor));
  ASSERT_TRUE(run1D(kernel, kItems));
  map(data, kCount * sizeof(int), CL_MAP_READ);
  for (size_t i = 0; i < kCount; ++i) {
    bool scaled = i >= kOffset && i < kOffset + kItems;
    ASSERT_EQ(static_cast<int>(i) * (scaled ? 3 : 1), data[i]) << i;
  }
  unmap(data);

  // A clone keeps the SVM argument.
  Kernel clone(clCloneKernel(kernel, nullptr));
  ASSERT_NE(nullptr, clone.get());
  ASSERT_TRUE(run1D(clone, kItems));
  map(data, kCount * sizeof(int), CL_MAP_READ);
  EXPECT_EQ(static_cast<int>(kOffset) * 9, data[kOffset]);
  EXPECT_EQ(static_cast<int>(kOffset) - 1, data[kOffset - 1]);
  unmap(data);
}

TEST_F(SvmTest, ArgumentAndExecInfoErrors) {
  Program program = build(kSource, "-cl-std=CL3.0");
  Kernel kernel = createKernel(program, "scale");
  auto *data = allocate<int>(16);
  EXPECT_CL_ERROR(CL_INVALID_KERNEL, clSetKernelArgSVMPointer(nullptr, 0, data));
  EXPECT_CL_ERROR(CL_INVALID_ARG_INDEX, clSetKernelArgSVMPointer(kernel, 2, data));
  EXPECT_CL_ERROR(CL_INVALID_ARG_VALUE, clSetKernelArgSVMPointer(kernel, 1, data)); // an int
  EXPECT_CL_SUCCESS(clSetKernelArgSVMPointer(kernel, 0, nullptr));

  void *pointers[] = {data};
  EXPECT_CL_ERROR(CL_INVALID_KERNEL, clSetKernelExecInfo(nullptr, CL_KERNEL_EXEC_INFO_SVM_PTRS,
                                                         sizeof pointers, pointers));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, 3, pointers));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, 8, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clSetKernelExecInfo(kernel, 0x7777, sizeof pointers, pointers));
  EXPECT_CL_SUCCESS(
      clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof pointers, pointers));
  EXPECT_CL_SUCCESS(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, nullptr));
  cl_bool yes = CL_TRUE, no = CL_FALSE;
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 1, &yes));
  EXPECT_CL_SUCCESS(
      clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof no, &no));
  EXPECT_EQ(
      has(CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) ? CL_SUCCESS : CL_INVALID_OPERATION,
      clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof yes, &yes));
}

TEST_F(SvmTest, CopiesAndFillsBetweenAllocationsAndHostMemory) {
  constexpr size_t kCount = 1 << 16;
  auto *first = allocate<uint32_t>(kCount);
  auto *second = allocate<uint32_t>(kCount);
  for (size_t patternSize : {1u, 2u, 4u, 16u, 128u}) {
    std::vector<uint8_t> pattern(patternSize);
    for (size_t i = 0; i < patternSize; ++i)
      pattern[i] = static_cast<uint8_t>(i * 37 + patternSize);
    Event filled;
    ASSERT_CL_SUCCESS(clEnqueueSVMMemFill(queue_, first, pattern.data(), patternSize,
                                          kCount * sizeof(uint32_t), 0, nullptr, filled.out()));
    EXPECT_EQ(CL_COMMAND_SVM_MEMFILL, eventInfo<cl_command_type>(filled, CL_EVENT_COMMAND_TYPE));
    std::vector<uint8_t> host(kCount * sizeof(uint32_t));
    Event copied;
    ASSERT_CL_SUCCESS(clEnqueueSVMMemcpy(queue_, CL_TRUE, host.data(), first, host.size(), 0,
                                         nullptr, copied.out()));
    EXPECT_EQ(CL_COMMAND_SVM_MEMCPY, eventInfo<cl_command_type>(copied, CL_EVENT_COMMAND_TYPE));
    for (size_t i = 0; i < host.size(); ++i)
      ASSERT_EQ(pattern[i % patternSize], host[i]) << "pattern " << patternSize << " at " << i;
  }
  std::vector<uint32_t> source(kCount), back(kCount);
  for (size_t i = 0; i < kCount; ++i)
    source[i] = static_cast<uint32_t>(i * 2654435761u);
  ASSERT_CL_SUCCESS(clEnqueueSVMMemcpy(queue_, CL_FALSE, first, source.data(),
                                       kCount * sizeof(uint32_t), 0, nullptr, nullptr));
  // Between allocations, and part of one into the middle of the other.
  ASSERT_CL_SUCCESS(clEnqueueSVMMemcpy(queue_, CL_FALSE, second, first, kCount * sizeof(uint32_t),
                                       0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clEnqueueSVMMemcpy(queue_, CL_FALSE, second + 10, first + 1000,
                                       100 * sizeof(uint32_t), 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clEnqueueSVMMemcpy(queue_, CL_TRUE, back.data(), second,
                                       kCount * sizeof(uint32_t), 0, nullptr, nullptr));
  for (size_t i = 0; i < kCount; ++i) {
    uint32_t expected = i >= 10 && i < 110 ? source[i - 10 + 1000] : source[i];
    ASSERT_EQ(expected, back[i]) << i;
  }
}

TEST_F(SvmTest, CommandErrors) {
  auto *data = allocate<uint32_t>(256);
  uint32_t pattern = 5;
  EXPECT_CL_ERROR(CL_INVALID_COMMAND_QUEUE,
                  clEnqueueSVMMemcpy(nullptr, CL_TRUE, data, data + 128, 16, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMemcpy(queue_, CL_TRUE, nullptr, data, 16, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMemcpy(queue_, CL_TRUE, data, nullptr, 16, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_MEM_COPY_OVERLAP,
                  clEnqueueSVMMemcpy(queue_, CL_TRUE, data, data + 2, 16, 0, nullptr, nullptr));
  // Past the end of the allocation.
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMemcpy(queue_, CL_TRUE, data + 250, data, 64, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST,
                  clEnqueueSVMMemcpy(queue_, CL_TRUE, data, data + 128, 16, 1, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMemFill(queue_, nullptr, &pattern, 4, 16, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMemFill(queue_, data, nullptr, 4, 16, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMemFill(queue_, data, &pattern, 3, 15, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMemFill(queue_, data, &pattern, 256, 256, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clEnqueueSVMMemFill(queue_, reinterpret_cast<char *>(data) + 2,
                                                        &pattern, 4, 16, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMemFill(queue_, data, &pattern, 4, 14, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMap(queue_, CL_TRUE, CL_MAP_READ, nullptr, 16, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMap(queue_, CL_TRUE, CL_MAP_READ, data, 0, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMap(queue_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
                                  data, 16, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clEnqueueSVMUnmap(queue_, nullptr, 0, nullptr, nullptr));
  const void *pointers[] = {data};
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMigrateMem(queue_, 0, pointers, nullptr, 0, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMigrateMem(queue_, 1, nullptr, nullptr, 0, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMigrateMem(queue_, 1, pointers, nullptr, 0x100, 0, nullptr, nullptr));
  size_t tooLarge[] = {4096};
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMMigrateMem(queue_, 1, pointers, tooLarge, 0, 0, nullptr, nullptr));
  void *none[] = {nullptr};
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMFree(queue_, 1, none, nullptr, nullptr, 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clEnqueueSVMFree(queue_, 1, nullptr, nullptr, nullptr, 0, nullptr, nullptr));
}

TEST_F(SvmTest, MigrationsAndMapsAreOrderedCommands) {
  Program program = build(kSource, "-cl-std=CL3.0");
  Kernel kernel = createKernel(program, "scale");
  constexpr size_t kCount = 1 << 14;
  auto *data = allocate<int>(kCount);
  std::vector<int> source(kCount, 5);
  ASSERT_CL_SUCCESS(clEnqueueSVMMemcpy(queue_, CL_FALSE, data, source.data(), kCount * sizeof(int),
                                       0, nullptr, nullptr));
  const void *pointers[] = {data};
  Event toDevice, toHost;
  ASSERT_CL_SUCCESS(
      clEnqueueSVMMigrateMem(queue_, 1, pointers, nullptr, 0, 0, nullptr, toDevice.out()));
  EXPECT_EQ(CL_COMMAND_SVM_MIGRATE_MEM,
            eventInfo<cl_command_type>(toDevice, CL_EVENT_COMMAND_TYPE));
  ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(kernel, 0, data));
  int factor = -2;
  ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 1, sizeof factor, &factor));
  ASSERT_TRUE(run1D(kernel, kCount));
  size_t sizes[] = {kCount * sizeof(int)};
  ASSERT_CL_SUCCESS(clEnqueueSVMMigrateMem(queue_, 1, pointers, sizes, CL_MIGRATE_MEM_OBJECT_HOST,
                                           0, nullptr, toHost.out()));
  Event mapped, unmapped;
  ASSERT_CL_SUCCESS(clEnqueueSVMMap(queue_, CL_TRUE, CL_MAP_READ, data, kCount * sizeof(int), 0,
                                    nullptr, mapped.out()));
  EXPECT_EQ(CL_COMMAND_SVM_MAP, eventInfo<cl_command_type>(mapped, CL_EVENT_COMMAND_TYPE));
  for (size_t i = 0; i < kCount; ++i)
    ASSERT_EQ(-10, data[i]) << i;
  ASSERT_CL_SUCCESS(clEnqueueSVMUnmap(queue_, data, 0, nullptr, unmapped.out()));
  EXPECT_EQ(CL_COMMAND_SVM_UNMAP, eventInfo<cl_command_type>(unmapped, CL_EVENT_COMMAND_TYPE));
  ASSERT_CL_SUCCESS(clFinish(queue_));
}

struct FreeRecord {
  std::vector<void *> pointers;
  cl_command_queue queue = nullptr;
};

void CL_CALLBACK recordFree(cl_command_queue queue, cl_uint count, void *pointers[], void *user) {
  auto *record = static_cast<FreeRecord *>(user);
  record->queue = queue;
  record->pointers.assign(pointers, pointers + count);
}

TEST_F(SvmTest, EnqueuedFreeCallsTheCallbackOrFrees) {
  void *first = clSVMAlloc(context_, CL_MEM_READ_WRITE, 1024, 0);
  void *second = clSVMAlloc(context_, CL_MEM_READ_WRITE, 4096, 0);
  ASSERT_NE(nullptr, first);
  ASSERT_NE(nullptr, second);
  FreeRecord record;
  void *both[] = {first, second};
  Event freed;
  ASSERT_CL_SUCCESS(
      clEnqueueSVMFree(queue_, 2, both, recordFree, &record, 0, nullptr, freed.out()));
  ASSERT_CL_SUCCESS(clFinish(queue_));
  EXPECT_EQ(CL_COMMAND_SVM_FREE, eventInfo<cl_command_type>(freed, CL_EVENT_COMMAND_TYPE));
  EXPECT_EQ(queue_.get(), record.queue);
  EXPECT_EQ((std::vector<void *>{first, second}), record.pointers);
  // The callback freed nothing: the allocations are still there to free.
  ASSERT_CL_SUCCESS(clEnqueueSVMFree(queue_, 2, both, nullptr, nullptr, 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
}

/// A list of `count` nodes spread over several allocations, built by the host through maps:
/// every node but the first lives in an allocation that only other nodes point to.
TEST_F(SvmTest, HostBuiltListIsWalkedByAKernel) {
  struct Node {
    Node *next;
    int value;
  };
  Program program = build(kSource, "-cl-std=CL3.0");
  Kernel kernel = createKernel(program, "walk");
  constexpr int kNodes = 200, kPerAllocation = 16;
  std::vector<Node *> blocks;
  for (int first = 0; first < kNodes; first += kPerAllocation)
    blocks.push_back(allocate<Node>(kPerAllocation));
  for (Node *block : blocks)
    map(block, kPerAllocation * sizeof(Node), CL_MAP_WRITE);
  int expected = 0;
  Node *previous = nullptr;
  // Linked backwards through the blocks so that no node's successor is its neighbour.
  for (int index = kNodes - 1; index >= 0; --index) {
    Node *node = &blocks[index / kPerAllocation][index % kPerAllocation];
    node->value = index * 3 + 1;
    node->next = previous;
    previous = node;
    expected += node->value;
  }
  for (Node *block : blocks)
    unmap(block);
  constexpr size_t kItems = 64;
  auto *sums = allocate<int>(kItems);
  ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(kernel, 0, blocks[0]));
  ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(kernel, 1, sums));
  ASSERT_CL_SUCCESS(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS,
                                        blocks.size() * sizeof(void *), blocks.data()));
  ASSERT_TRUE(run1D(kernel, kItems));
  map(sums, kItems * sizeof(int), CL_MAP_READ);
  for (size_t i = 0; i < kItems; ++i)
    ASSERT_EQ(expected + static_cast<int>(i), sums[i]);
  unmap(sums);
}

TEST_F(SvmTest, HostBuiltTreeIsSearchedByAKernel) {
  struct Tree {
    Tree *left, *right;
    int key, payload;
  };
  Program program = build(kSource, "-cl-std=CL3.0");
  Kernel kernel = createKernel(program, "search");
  constexpr int kKeys = 1000;
  auto *nodes = allocate<Tree>(kKeys);
  map(nodes, kKeys * sizeof(Tree), CL_MAP_WRITE);
  // Keys inserted in a scrambled order, so the tree is not a list.
  Tree *root = nullptr;
  for (int n = 0; n < kKeys; ++n) {
    int key = (n * 7919) % kKeys * 2; // even keys only
    Tree *node = &nodes[n];
    *node = {nullptr, nullptr, key, key * 5 + 1};
    Tree **slot = &root;
    while (*slot != nullptr)
      slot = key < (*slot)->key ? &(*slot)->left : &(*slot)->right;
    *slot = node;
  }
  unmap(nodes);
  constexpr size_t kQueries = 2 * kKeys;
  auto *keys = allocate<int>(kQueries);
  auto *found = allocate<int>(kQueries);
  map(keys, kQueries * sizeof(int), CL_MAP_WRITE);
  for (size_t i = 0; i < kQueries; ++i)
    keys[i] = static_cast<int>(i); // odd ones are missing
  unmap(keys);
  ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(kernel, 0, root));
  ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(kernel, 1, keys));
  ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(kernel, 2, found));
  ASSERT_TRUE(run1D(kernel, kQueries));
  map(found, kQueries * sizeof(int), CL_MAP_READ);
  for (size_t i = 0; i < kQueries; ++i)
    ASSERT_EQ(i % 2 == 0 ? static_cast<int>(i) * 5 + 1 : -1, found[i]) << i;
  unmap(found);
}

TEST_F(SvmTest, PointersStoredInSvmReachAllocationsNamedByExecInfo) {
  Program program = build(kSource, "-cl-std=CL3.0");
  Kernel kernel = createKernel(program, "gather");
  constexpr size_t kItems = 8;
  auto **pointers = allocate<int *>(kItems);
  std::vector<int *> targets;
  for (size_t i = 0; i < kItems; ++i) {
    int *target = allocate<int>(4);
    std::vector<int> value(4, static_cast<int>(i * i + 3));
    ASSERT_CL_SUCCESS(clEnqueueSVMMemcpy(queue_, CL_TRUE, target, value.data(), sizeof(int) * 4, 0,
                                         nullptr, nullptr));
    targets.push_back(target);
  }
  map(pointers, kItems * sizeof(int *), CL_MAP_WRITE);
  for (size_t i = 0; i < kItems; ++i)
    pointers[i] = targets[i] + i % 4;
  unmap(pointers);
  auto *out = allocate<int>(kItems);
  ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(kernel, 0, pointers));
  ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(kernel, 1, out));
  ASSERT_CL_SUCCESS(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS,
                                        targets.size() * sizeof(int *), targets.data()));
  Kernel clone(clCloneKernel(kernel, nullptr)); // keeps the arguments and the exec info
  ASSERT_NE(nullptr, clone.get());
  ASSERT_TRUE(run1D(clone, kItems));
  map(out, kItems * sizeof(int), CL_MAP_READ);
  for (size_t i = 0; i < kItems; ++i)
    EXPECT_EQ(static_cast<int>(i * i + 3), out[i]);
  unmap(out);
}

TEST_F(SvmTest, BuffersOverSvmMemoryUseItInPlace) {
  Program program = build(kSource, "-cl-std=CL3.0");
  Kernel kernel = createKernel(program, "scale");
  constexpr size_t kCount = 1024;
  auto *data = allocate<int>(kCount);
  std::vector<int> ones(kCount, 1);
  ASSERT_CL_SUCCESS(clEnqueueSVMMemcpy(queue_, CL_TRUE, data, ones.data(), kCount * sizeof(int), 0,
                                       nullptr, nullptr));
  cl_int error = CL_SUCCESS;
  Mem tooLarge(
      clCreateBuffer(context_, CL_MEM_USE_HOST_PTR, kCount * sizeof(int), data + 1, &error));
  EXPECT_CL_ERROR(CL_INVALID_BUFFER_SIZE, error);
  Mem buffer(clCreateBuffer(context_, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, 512 * sizeof(int),
                            data + 256, &error));
  ASSERT_CL_SUCCESS(error);
  EXPECT_EQ(CL_TRUE, memInfo<cl_bool>(buffer, CL_MEM_USES_SVM_POINTER));
  Mem plain = createBuffer(CL_MEM_READ_WRITE, 64);
  EXPECT_EQ(CL_FALSE, memInfo<cl_bool>(plain, CL_MEM_USES_SVM_POINTER));
  int factor = 4;
  ASSERT_TRUE(setArgs(kernel, buffer, factor));
  ASSERT_TRUE(run1D(kernel, 512));
  std::vector<int> back(kCount);
  ASSERT_CL_SUCCESS(clEnqueueSVMMemcpy(queue_, CL_TRUE, back.data(), data, kCount * sizeof(int), 0,
                                       nullptr, nullptr));
  for (size_t i = 0; i < kCount; ++i)
    ASSERT_EQ(i >= 256 && i < 768 ? 4 : 1, back[i]) << i;
}

TEST_F(SvmTest, FineGrainedBuffersNeedNoMaps) {
  if (!has(CL_DEVICE_SVM_FINE_GRAIN_BUFFER))
    GTEST_SKIP() << "no fine-grained buffers";
  Program program = build(kSource, "-cl-std=CL3.0");
  Kernel kernel = createKernel(program, "scale");
  constexpr size_t kCount = 1 << 15;
  auto *data = allocate<int>(kCount, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER);
  for (int round = 1; round <= 3; ++round) {
    for (size_t i = 0; i < kCount; ++i)
      data[i] = static_cast<int>(i) + round;
    ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(kernel, 0, data));
    int factor = round + 1;
    ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 1, sizeof factor, &factor));
    ASSERT_TRUE(run1D(kernel, kCount));
    for (size_t i = 0; i < kCount; ++i)
      ASSERT_EQ((static_cast<int>(i) + round) * (round + 1), data[i]) << i;
  }
}

// A host thread adds to the counter while the kernel does: no increment may be lost.
TEST_F(SvmTest, FineGrainedAtomicsAreAtomicWithHostThreads) {
  if (!has(CL_DEVICE_SVM_FINE_GRAIN_BUFFER | CL_DEVICE_SVM_ATOMICS))
    GTEST_SKIP() << "no SVM atomics";
  Program program = build(kSource, "-cl-std=CL3.0");
  Kernel kernel = createKernel(program, "count");
  auto *counter =
      allocate<int>(1, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS);
  *counter = 0;
  constexpr int kPerItem = 200, kHostAdds = 200000;
  constexpr size_t kItems = 4096;
  ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(kernel, 0, counter));
  ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 1, sizeof kPerItem, &kPerItem));
  size_t global = kItems;
  Event done;
  ASSERT_CL_SUCCESS(
      clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, nullptr, 0, nullptr, done.out()));
  ASSERT_CL_SUCCESS(clFlush(queue_));
  std::thread host([counter] {
    std::atomic_ref<int> shared(*counter);
    for (int k = 0; k < kHostAdds; ++k)
      shared.fetch_add(1, std::memory_order_relaxed);
  });
  host.join();
  cl_event finished = done.get();
  ASSERT_CL_SUCCESS(clWaitForEvents(1, &finished));
  EXPECT_EQ(static_cast<int>(kItems) * kPerItem + kHostAdds, std::atomic_ref<int>(*counter).load());
}

TEST_F(SvmTest, FineGrainedSystemSvmIsAnyHostMemory) {
  if (!has(CL_DEVICE_SVM_FINE_GRAIN_SYSTEM))
    GTEST_SKIP() << "no fine-grained system SVM";
  Program program = build(kSource, "-cl-std=CL3.0");
  Kernel kernel = createKernel(program, "scale");
  constexpr size_t kCount = 10000;
  std::vector<int> data(kCount);
  for (size_t i = 0; i < kCount; ++i)
    data[i] = static_cast<int>(i);
  cl_bool yes = CL_TRUE;
  ASSERT_CL_SUCCESS(
      clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof yes, &yes));
  ASSERT_CL_SUCCESS(clSetKernelArgSVMPointer(kernel, 0, data.data()));
  int factor = 7;
  ASSERT_CL_SUCCESS(clSetKernelArg(kernel, 1, sizeof factor, &factor));
  ASSERT_TRUE(run1D(kernel, kCount));
  for (size_t i = 0; i < kCount; ++i)
    ASSERT_EQ(static_cast<int>(i) * 7, data[i]);
  // The SVM commands take host memory too.
  std::vector<int> copy(kCount);
  int pattern = -1;
  ASSERT_CL_SUCCESS(clEnqueueSVMMemcpy(queue_, CL_TRUE, copy.data(), data.data(),
                                       kCount * sizeof(int), 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clEnqueueSVMMemFill(queue_, data.data(), &pattern, sizeof pattern,
                                        kCount * sizeof(int), 0, nullptr, nullptr));
  ASSERT_CL_SUCCESS(clFinish(queue_));
  for (size_t i = 0; i < kCount; ++i) {
    ASSERT_EQ(static_cast<int>(i) * 7, copy[i]);
    ASSERT_EQ(-1, data[i]);
  }
}

} // namespace
