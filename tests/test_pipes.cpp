// Pipes (__opencl_c_pipes): clCreatePipe and clGetPipeInfo with their errors, pipes as kernel
// arguments, and the pipe builtins: packets of every size written by one kernel and read by
// another, full and empty pipes, reservations by work-items, sub-groups and work-groups, the
// queries, and a producer and a consumer running at the same time through a pipe smaller than
// what passes through it. Every kernel runs with the vectorizer on and off on the CPU device.
#include "cl_test.hpp"

#include <array>
#include <map>

using namespace cltest;

namespace {

class PipeTest : public ClTest {
protected:
  void SetUp() override {
    ClTest::SetUp();
    if (deviceInfo<cl_bool>(device_, CL_DEVICE_PIPE_SUPPORT) != CL_TRUE)
      GTEST_SKIP() << "the device does not support pipes";
  }

  Mem createPipe(cl_uint packetSize, cl_uint maxPackets) {
    cl_int error = CL_SUCCESS;
    Mem pipe(clCreatePipe(context_, 0, packetSize, maxPackets, nullptr, &error));
    EXPECT_CL_SUCCESS(error);
    return pipe;
  }

  Kernel pipeKernel(const std::string &source, const char *name) {
    return buildKernel(source, name, "-cl-std=CL3.0");
  }

  /// The statuses (0 or negative) of a kernel's work-items.
  std::vector<cl_int> statuses(cl_mem buffer, size_t count) { return read<cl_int>(buffer, count); }
};

size_t countOf(const std::vector<cl_int> &values, cl_int value) {
  return static_cast<size_t>(std::count(values.begin(), values.end(), value));
}

// ---------------------------------------------------------------------------------------------
// Objects

TEST_F(PipeTest, DeviceReportsPipeLimits) {
  EXPECT_GE(deviceInfo<cl_uint>(device_, CL_DEVICE_MAX_PIPE_ARGS), 16u);
  EXPECT_GE(deviceInfo<cl_uint>(device_, CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS), 1u);
  EXPECT_GE(deviceInfo<cl_uint>(device_, CL_DEVICE_PIPE_MAX_PACKET_SIZE), 1024u);
  EXPECT_EQ(CL_TRUE, deviceInfo<cl_bool>(device_, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT));
  EXPECT_TRUE(hasOpenClCFeature(device_, "__opencl_c_pipes"));
}

TEST_F(PipeTest, CreateAndQuery) {
  Mem pipe = createPipe(12, 100);
  ASSERT_NE(nullptr, pipe.get());
  EXPECT_EQ(12u, queryValue<cl_uint>([&](size_t s, void *v, size_t *r) {
              return clGetPipeInfo(pipe, CL_PIPE_PACKET_SIZE, s, v, r);
            }));
  EXPECT_EQ(100u, queryValue<cl_uint>([&](size_t s, void *v, size_t *r) {
              return clGetPipeInfo(pipe, CL_PIPE_MAX_PACKETS, s, v, r);
            }));
  size_t propertiesSize = 1;
  EXPECT_CL_SUCCESS(clGetPipeInfo(pipe, CL_PIPE_PROPERTIES, 0, nullptr, &propertiesSize));
  EXPECT_EQ(0u, propertiesSize);
  EXPECT_EQ(static_cast<cl_mem_object_type>(CL_MEM_OBJECT_PIPE),
            memInfo<cl_mem_object_type>(pipe, CL_MEM_TYPE));
  EXPECT_EQ(static_cast<cl_mem_flags>(CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS),
            memInfo<cl_mem_flags>(pipe, CL_MEM_FLAGS));
  EXPECT_GE(memInfo<size_t>(pipe, CL_MEM_SIZE), size_t{12 * 100});
  EXPECT_EQ(static_cast<cl_context>(context_), memInfo<cl_context>(pipe, CL_MEM_CONTEXT));

  cl_int error = CL_SUCCESS;
  Mem explicitFlags(
      clCreatePipe(context_, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, 4, 1, nullptr, &error));
  EXPECT_CL_SUCCESS(error);
}

TEST_F(PipeTest, CreateRejectsBadArguments) {
  cl_uint maxPacket = deviceInfo<cl_uint>(device_, CL_DEVICE_PIPE_MAX_PACKET_SIZE);
  auto creating = [&](cl_context context, cl_mem_flags flags, cl_uint packetSize,
                      cl_uint maxPackets, const cl_pipe_properties *properties) {
    cl_int error = CL_SUCCESS;
    cl_mem pipe = clCreatePipe(context, flags, packetSize, maxPackets, properties, &error);
    EXPECT_EQ(nullptr, pipe);
    if (pipe != nullptr)
      clReleaseMemObject(pipe);
    return error;
  };
  EXPECT_CL_ERROR(CL_INVALID_CONTEXT, creating(nullptr, 0, 4, 4, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, creating(context_, CL_MEM_READ_ONLY, 4, 4, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, creating(context_, CL_MEM_WRITE_ONLY, 4, 4, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, creating(context_, CL_MEM_HOST_READ_ONLY, 4, 4, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, creating(context_, CL_MEM_COPY_HOST_PTR, 4, 4, nullptr));
  cl_pipe_properties none[] = {0};
  EXPECT_CL_ERROR(CL_INVALID_VALUE, creating(context_, 0, 4, 4, none));
  EXPECT_CL_ERROR(CL_INVALID_PIPE_SIZE, creating(context_, 0, 0, 4, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_PIPE_SIZE, creating(context_, 0, maxPacket + 1, 4, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_PIPE_SIZE, creating(context_, 0, 4, 0, nullptr));
}

TEST_F(PipeTest, InfoRejectsOtherObjectsAndNames) {
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 64);
  cl_uint value = 0;
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clGetPipeInfo(buffer, CL_PIPE_PACKET_SIZE, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clGetPipeInfo(nullptr, CL_PIPE_PACKET_SIZE, sizeof value, &value, nullptr));
  Mem pipe = createPipe(4, 4);
  EXPECT_CL_ERROR(CL_INVALID_VALUE,
                  clGetPipeInfo(pipe, CL_MEM_SIZE, sizeof value, &value, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_VALUE, clGetPipeInfo(pipe, CL_PIPE_PACKET_SIZE, 1, &value, nullptr));
}

TEST_F(PipeTest, HostCannotAccessPipes) {
  Mem pipe = createPipe(4, 16);
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, 64);
  std::array<cl_int, 16> host{};
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, clEnqueueReadBuffer(queue_, pipe, CL_TRUE, 0, 16,
                                                             host.data(), 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, clEnqueueWriteBuffer(queue_, pipe, CL_TRUE, 0, 16,
                                                              host.data(), 0, nullptr, nullptr));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT,
                  clEnqueueCopyBuffer(queue_, buffer, pipe, 0, 0, 16, 0, nullptr, nullptr));
  cl_int pattern = 0;
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, clEnqueueFillBuffer(queue_, pipe, &pattern, sizeof pattern,
                                                             0, 16, 0, nullptr, nullptr));
  cl_int error = CL_SUCCESS;
  void *mapped =
      clEnqueueMapBuffer(queue_, pipe, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr, &error);
  EXPECT_EQ(nullptr, mapped);
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, error);
  cl_buffer_region region{0, 16};
  Mem sub(clCreateSubBuffer(pipe, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &error));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, error);
}

TEST_F(PipeTest, KernelArgumentsCheckTheirKind) {
  Kernel kernel = buildKernel("kernel void k(read_only pipe int p, global int *out) {\n"
                              "  out[0] = get_pipe_max_packets(p);\n"
                              "}\n",
                              "k", "-cl-std=CL3.0 -cl-kernel-arg-info");
  ASSERT_NE(nullptr, kernel.get());
  EXPECT_EQ(static_cast<cl_kernel_arg_type_qualifier>(CL_KERNEL_ARG_TYPE_PIPE),
            queryValue<cl_kernel_arg_type_qualifier>([&](size_t s, void *v, size_t *r) {
              return clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_TYPE_QUALIFIER, s, v, r);
            }));
  Mem pipe = createPipe(4, 8);
  Mem buffer = createBuffer(CL_MEM_READ_WRITE, sizeof(cl_int));
  EXPECT_CL_ERROR(CL_INVALID_ARG_VALUE, setArg(kernel, 0, buffer));
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, setArg(kernel, 1, pipe));
  EXPECT_CL_ERROR(CL_INVALID_ARG_SIZE, clSetKernelArg(kernel, 0, 4, &pipe));
  cl_mem none = nullptr;
  EXPECT_CL_ERROR(CL_INVALID_MEM_OBJECT, clSetKernelArg(kernel, 0, sizeof none, &none));
  ASSERT_TRUE(setArgs(kernel, pipe, buffer));
  ASSERT_TRUE(run1D(kernel, 1));
  EXPECT_EQ(std::vector<cl_int>{8}, read<cl_int>(buffer, 1));
}

// ---------------------------------------------------------------------------------------------
// Packets of every size: a kernel writes one per work-item, another reads them back.

template <size_t Bytes> struct Packet {
  std::array<uint8_t, Bytes> bytes;
  bool operator<(const Packet &other) const { return bytes < other.bytes; }
  bool operator==(const Packet &other) const { return bytes == other.bytes; }
};

std::string roundTripSource(const std::string &type) {
  return "typedef struct { int key; char tag; float value[3]; } Record;\n"
         "typedef struct { uchar red, green, blue; } Rgb;\n"
         "typedef struct { short x, y, z; } ShortTriple;\n"
         "typedef struct { long x, y, z; } LongTriple;\n"
         "kernel void writer(write_only pipe " +
         type + " p, global const " + type +
         " *in, global int *status) {\n"
         "  size_t i = get_global_id(0);\n"
         "  status[i] = write_pipe(p, &in[i]);\n"
         "}\n"
         "kernel void reader(read_only pipe " +
         type + " p, global " + type +
         " *out, global int *status) {\n"
         "  size_t i = get_global_id(0);\n"
         "  status[get_global_size(0) + i] = read_pipe(p, &out[i]);\n"
         "}\n";
}

class PipePackets : public PipeTest {
protected:
  /// Writes `count` packets of `type` (`Bytes` bytes each) through a pipe of as many and reads
  /// them back: every write and read succeeds, and the packets read are those written, once.
  template <size_t Bytes> void roundTrip(cl_kernel writer, cl_kernel reader, size_t count) {
    std::vector<Packet<Bytes>> packets(count);
    Random random(Bytes * 7919 + count);
    for (Packet<Bytes> &packet : packets)
      for (uint8_t &byte : packet.bytes)
        byte = static_cast<uint8_t>(random.next());
    Mem pipe = createPipe(Bytes, static_cast<cl_uint>(count));
    Mem in = bufferWith(packets);
    Mem out = createBuffer(CL_MEM_READ_WRITE, count * Bytes);
    Mem status = createBuffer(CL_MEM_READ_WRITE, 2 * count * sizeof(cl_int));
    ASSERT_TRUE(setArgs(writer, pipe, in, status));
    ASSERT_TRUE(setArgs(reader, pipe, out, status));
    ASSERT_TRUE(run1D(writer, count));
    ASSERT_TRUE(run1D(reader, count));
    std::vector<Packet<Bytes>> received = read<Packet<Bytes>>(out, count);
    EXPECT_EQ(2 * count, countOf(statuses(status, 2 * count), 0))
        << "every write and read succeeds";
    std::sort(packets.begin(), packets.end());
    std::sort(received.begin(), received.end());
    EXPECT_TRUE(packets == received) << "the packets read are those written, each once";
  }

  template <size_t Bytes> void roundTrips(const std::string &type) {
    SCOPED_TRACE(type);
    std::string source = roundTripSource(type);
    Kernel writer = pipeKernel(source, "writer");
    Kernel reader = pipeKernel(source, "reader");
    ASSERT_NE(nullptr, writer.get());
    ASSERT_NE(nullptr, reader.get());
    for (size_t count : {size_t{1}, size_t{100}, size_t{1000}})
      roundTrip<Bytes>(writer, reader, count);
  }

  void allSizes() {
    roundTrips<1>("uchar");
    roundTrips<2>("ushort");
    roundTrips<4>("uint");
    roundTrips<8>("ulong");
    roundTrips<16>("uint4");
    roundTrips<32>("ulong4");
    roundTrips<64>("ulong8");
    roundTrips<128>("ulong16");
    roundTrips<20>("Record");
    // Sizes that are not a multiple of their alignment's power of two, or of 16 bytes.
    roundTrips<3>("Rgb");
    roundTrips<6>("ShortTriple");
    roundTrips<24>("LongTriple");
  }
};

TEST_F(PipePackets, EverySizeArrivesOnce) {
  allSizes();
}

class PipePacketsScalar : public PipePackets {
protected:
  ScopedEnvironment scalar_{"KILN_VECTORIZE", "0"};
};

TEST_F(PipePacketsScalar, EverySizeArrivesOnce) {
  allSizes();
}

// ---------------------------------------------------------------------------------------------
// Full and empty pipes, reservations, queries, and a producer beside a consumer.

const char *kKernels = R"(
kernel void fill(write_only pipe int p, global int *status) {
  int value = (int)get_global_id(0);
  status[get_global_id(0)] = write_pipe(p, &value);
}

kernel void drain(read_only pipe int p, global int *out, global int *status) {
  int value = -1;
  status[get_global_id(0)] = read_pipe(p, &value);
  out[get_global_id(0)] = value;
}

// Only the odd work-items write (their ids): those that call together are not neighbours, and
// on a GPU, where a warp's callers share one reservation, each takes the position of its rank.
kernel void fillOdd(write_only pipe int p, global int *status) {
  int value = (int)get_global_id(0);
  status[get_global_id(0)] = (get_global_id(0) & 1) ? write_pipe(p, &value) : 1;
}

kernel void counts(read_only pipe int in, write_only pipe int out, global uint *result) {
  result[0] = get_pipe_num_packets(in);
  result[1] = get_pipe_max_packets(in);
  result[2] = get_pipe_num_packets(out);
  result[3] = get_pipe_max_packets(out);
}

// Each work-item reserves `per` packets and writes i * per + k; an invalid reservation leaves
// its status 1.
kernel void reserveWrite(write_only pipe int p, uint per, global int *status) {
  uint i = get_global_id(0);
  reserve_id_t id = reserve_write_pipe(p, per);
  status[i] = is_valid_reserve_id(id) ? 0 : 1;
  if (is_valid_reserve_id(id)) {
    for (uint k = 0; k < per; ++k) {
      int value = (int)(i * per + k);
      status[i] |= write_pipe(p, id, k, &value);
    }
    commit_write_pipe(p, id);
  }
}

kernel void reserveRead(read_only pipe int p, uint per, global int *out, global int *status) {
  uint i = get_global_id(0);
  reserve_id_t id = reserve_read_pipe(p, per);
  status[i] = is_valid_reserve_id(id) ? 0 : 1;
  if (is_valid_reserve_id(id)) {
    for (uint k = 0; k < per; ++k)
      status[i] |= read_pipe(p, id, k, &out[i * per + k]);
    commit_read_pipe(p, id);
  }
}

kernel void groupWrite(write_only pipe int p, global int *status) {
  reserve_id_t id = work_group_reserve_write_pipe(p, get_local_size(0));
  int value = (int)get_global_id(0);
  status[get_global_id(0)] = is_valid_reserve_id(id) ? write_pipe(p, id, get_local_id(0), &value)
                                                     : 1;
  work_group_commit_write_pipe(p, id);
}

kernel void groupRead(read_only pipe int p, global int *out, global int *status) {
  reserve_id_t id = work_group_reserve_read_pipe(p, get_local_size(0));
  status[get_global_id(0)] = is_valid_reserve_id(id)
                                 ? read_pipe(p, id, get_local_id(0), &out[get_global_id(0)])
                                 : 1;
  work_group_commit_read_pipe(p, id);
}

kernel void subGroupWrite(write_only pipe int p, global int *status) {
  reserve_id_t id = sub_group_reserve_write_pipe(p, get_sub_group_size());
  int value = (int)get_global_id(0);
  status[get_global_id(0)] =
      is_valid_reserve_id(id) ? write_pipe(p, id, get_sub_group_local_id(), &value) : 1;
  sub_group_commit_write_pipe(p, id);
}

kernel void subGroupRead(read_only pipe int p, global int *out, global int *status) {
  reserve_id_t id = sub_group_reserve_read_pipe(p, get_sub_group_size());
  status[get_global_id(0)] =
      is_valid_reserve_id(id) ? read_pipe(p, id, get_sub_group_local_id(), &out[get_global_id(0)])
                              : 1;
  sub_group_commit_read_pipe(p, id);
}

// A producer and a consumer that wait for room and for packets: each work-item moves `per`
// packets.
kernel void produce(write_only pipe int p, uint per) {
  for (uint k = 0; k < per; ++k) {
    int value = (int)(get_global_id(0) * per + k);
    while (write_pipe(p, &value) != 0)
      ;
  }
}

kernel void consume(read_only pipe int p, uint per, global int *out) {
  for (uint k = 0; k < per; ++k) {
    int value;
    while (read_pipe(p, &value) != 0)
      ;
    out[get_global_id(0) * per + k] = value;
  }
}
)";

std::vector<cl_int> iota(size_t count) {
  std::vector<cl_int> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = static_cast<cl_int>(i);
  return values;
}

std::vector<cl_int> sorted(std::vector<cl_int> values) {
  std::sort(values.begin(), values.end());
  return values;
}

class PipeKernels : public PipeTest {
protected:
  Kernel kernel(const char *name) { return pipeKernel(kKernels, name); }

  /// The four numbers of `counts` for `in` and `out`.
  std::vector<cl_uint> countsOf(cl_mem in, cl_mem out) {
    Kernel counts = kernel("counts");
    Mem result = createBuffer(CL_MEM_READ_WRITE, 4 * sizeof(cl_uint));
    EXPECT_TRUE(setArgs(counts, in, out, result));
    EXPECT_TRUE(run1D(counts, 1));
    return read<cl_uint>(result, 4);
  }

  /// Runs `drain` (its arguments set: `out`, `status`) over `items` work-items: the packets it
  /// read, sorted.
  std::vector<cl_int> drained(cl_kernel drain, cl_mem out, cl_mem status, size_t items) {
    EXPECT_TRUE(run1D(drain, items));
    std::vector<cl_int> reads = statuses(status, items);
    std::vector<cl_int> values = read<cl_int>(out, items);
    std::vector<cl_int> received;
    for (size_t i = 0; i < items; ++i)
      if (reads[i] == 0)
        received.push_back(values[i]);
    return sorted(received);
  }

  void fullAndEmpty() {
    constexpr size_t kCapacity = 8, kItems = 20;
    Mem pipe = createPipe(sizeof(cl_int), kCapacity);
    Mem other = createPipe(sizeof(cl_int), 3);
    EXPECT_EQ((std::vector<cl_uint>{0, kCapacity, 0, 3}), countsOf(pipe, other));

    Kernel drain = kernel("drain");
    Mem out = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_int));
    Mem status = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_int));
    ASSERT_TRUE(setArgs(drain, pipe, out, status));
    ASSERT_TRUE(run1D(drain, kItems));
    std::vector<cl_int> emptyReads = statuses(status, kItems);
    EXPECT_EQ(kItems, static_cast<size_t>(std::count_if(emptyReads.begin(), emptyReads.end(),
                                                        [](cl_int s) { return s < 0; })))
        << "every read of an empty pipe fails";

    Kernel fill = kernel("fill");
    ASSERT_TRUE(setArgs(fill, pipe, status));
    ASSERT_TRUE(run1D(fill, kItems));
    std::vector<cl_int> writes = statuses(status, kItems);
    EXPECT_EQ(kCapacity, countOf(writes, 0)) << "a full pipe takes no more";
    EXPECT_EQ(kItems - kCapacity,
              static_cast<size_t>(
                  std::count_if(writes.begin(), writes.end(), [](cl_int s) { return s < 0; })));
    EXPECT_EQ((std::vector<cl_uint>{kCapacity, kCapacity, 0, 3}), countsOf(pipe, other));

    std::vector<cl_int> written;
    for (size_t i = 0; i < kItems; ++i)
      if (writes[i] == 0)
        written.push_back(static_cast<cl_int>(i));
    EXPECT_EQ(written, drained(drain, out, status, kItems))
        << "the packets written are read, each once";
    EXPECT_EQ((std::vector<cl_uint>{0, kCapacity, 0, 3}), countsOf(pipe, other));
  }

  void workItemsApart() {
    constexpr size_t kItems = 100, kCapacity = 40;
    Mem pipe = createPipe(sizeof(cl_int), kCapacity);
    Kernel fill = kernel("fillOdd");
    Kernel drain = kernel("drain");
    Mem status = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_int));
    Mem out = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_int));
    ASSERT_TRUE(setArgs(fill, pipe, status));
    ASSERT_TRUE(run1D(fill, kItems));
    std::vector<cl_int> writes = statuses(status, kItems);
    EXPECT_EQ(kCapacity, countOf(writes, 0)) << "40 of the 50 odd work-items find room";
    EXPECT_EQ(kItems / 2, countOf(writes, 1)) << "the even ones do not write";
    std::vector<cl_int> written;
    for (size_t i = 0; i < kItems; ++i)
      if (writes[i] == 0) {
        EXPECT_EQ(1u, i % 2);
        written.push_back(static_cast<cl_int>(i));
      }
    ASSERT_TRUE(setArgs(drain, pipe, out, status));
    EXPECT_EQ(written, drained(drain, out, status, kItems)) << "each packet written is read once";
  }

  void workItemReservations() {
    constexpr cl_uint kPer = 4;
    constexpr size_t kItems = 64;
    Mem pipe = createPipe(sizeof(cl_int), kItems * kPer);
    Kernel writer = kernel("reserveWrite");
    Kernel reader = kernel("reserveRead");
    Mem status = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_int));
    Mem out = createBuffer(CL_MEM_READ_WRITE, kItems * kPer * sizeof(cl_int));
    ASSERT_TRUE(setArgs(writer, pipe, kPer, status));
    ASSERT_TRUE(run1D(writer, kItems));
    EXPECT_EQ(kItems, countOf(statuses(status, kItems), 0));
    ASSERT_TRUE(setArgs(reader, pipe, kPer, out, status));
    ASSERT_TRUE(run1D(reader, kItems));
    EXPECT_EQ(kItems, countOf(statuses(status, kItems), 0));
    std::vector<cl_int> values = read<cl_int>(out, kItems * kPer);
    EXPECT_EQ(iota(kItems * kPer), sorted(values));
    // A reservation keeps its packets together, in order.
    for (size_t i = 0; i < kItems; ++i)
      for (cl_uint k = 1; k < kPer; ++k)
        EXPECT_EQ(values[i * kPer] + static_cast<cl_int>(k), values[i * kPer + k]) << i;

    // More than is there, and more than the pipe holds: invalid reserve ids.
    ASSERT_TRUE(setArgs(reader, pipe, kPer, out, status));
    ASSERT_TRUE(run1D(reader, 1));
    EXPECT_EQ(std::vector<cl_int>{1}, statuses(status, 1));
    ASSERT_TRUE(setArgs(writer, pipe, static_cast<cl_uint>(kItems * kPer + 1), status));
    ASSERT_TRUE(run1D(writer, 1));
    EXPECT_EQ(std::vector<cl_int>{1}, statuses(status, 1));
  }

  /// `writerName` and `readerName` reserve per work-group or sub-group, groups of `local`.
  void groupReservations(const char *writerName, const char *readerName, size_t local) {
    constexpr size_t kItems = 256;
    Mem pipe = createPipe(sizeof(cl_int), kItems);
    Kernel writer = kernel(writerName);
    Kernel reader = kernel(readerName);
    ASSERT_NE(nullptr, writer.get());
    ASSERT_NE(nullptr, reader.get());
    Mem status = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_int));
    Mem out = createBuffer(CL_MEM_READ_WRITE, kItems * sizeof(cl_int));
    ASSERT_TRUE(setArgs(writer, pipe, status));
    ASSERT_TRUE(run1D(writer, kItems, local));
    EXPECT_EQ(kItems, countOf(statuses(status, kItems), 0));
    ASSERT_TRUE(setArgs(reader, pipe, out, status));
    ASSERT_TRUE(run1D(reader, kItems, local));
    EXPECT_EQ(kItems, countOf(statuses(status, kItems), 0));
    EXPECT_EQ(iota(kItems), sorted(read<cl_int>(out, kItems)));
    // The pipe is empty again: a group's reservation fails for all its work-items.
    ASSERT_TRUE(run1D(reader, local, local));
    EXPECT_EQ(std::vector<cl_int>(local, 1), statuses(status, local));
  }

  void producerBesideConsumer() {
    constexpr cl_uint kPer = 64;
    constexpr size_t kItems = 64;
    Mem pipe = createPipe(sizeof(cl_int), 16);
    Kernel producer = kernel("produce");
    Kernel consumer = kernel("consume");
    Mem out = createBuffer(CL_MEM_READ_WRITE, kItems * kPer * sizeof(cl_int));
    ASSERT_TRUE(setArgs(producer, pipe, kPer));
    ASSERT_TRUE(setArgs(consumer, pipe, kPer, out));
    cl_int error = CL_SUCCESS;
    Queue other(clCreateCommandQueueWithProperties(context_, device_, nullptr, &error));
    ASSERT_CL_SUCCESS(error);
    size_t global = kItems;
    // One work-group each, so that both run at once on any device with two compute units.
    ASSERT_CL_SUCCESS(
        clEnqueueNDRangeKernel(other, consumer, 1, nullptr, &global, &global, 0, nullptr, nullptr));
    ASSERT_CL_SUCCESS(clFlush(other));
    ASSERT_CL_SUCCESS(clEnqueueNDRangeKernel(queue_, producer, 1, nullptr, &global, &global, 0,
                                             nullptr, nullptr));
    ASSERT_CL_SUCCESS(clFlush(queue_));
    ASSERT_CL_SUCCESS(clFinish(other));
    ASSERT_CL_SUCCESS(clFinish(queue_));
    EXPECT_EQ(iota(kItems * kPer), sorted(read<cl_int>(out, kItems * kPer)));
  }
};

class PipeKernelsScalar : public PipeKernels {
protected:
  ScopedEnvironment scalar_{"KILN_VECTORIZE", "0"};
};

TEST_F(PipeKernels, FullAndEmptyPipes) {
  fullAndEmpty();
}
TEST_F(PipeKernelsScalar, FullAndEmptyPipes) {
  fullAndEmpty();
}
TEST_F(PipeKernels, WorkItemsThatWriteApart) {
  workItemsApart();
}
TEST_F(PipeKernelsScalar, WorkItemsThatWriteApart) {
  workItemsApart();
}
TEST_F(PipeKernels, WorkItemReservations) {
  workItemReservations();
}
TEST_F(PipeKernelsScalar, WorkItemReservations) {
  workItemReservations();
}
TEST_F(PipeKernels, WorkGroupReservations) {
  groupReservations("groupWrite", "groupRead", 64);
  groupReservations("groupWrite", "groupRead", 1);
}
TEST_F(PipeKernelsScalar, WorkGroupReservations) {
  groupReservations("groupWrite", "groupRead", 64);
}
TEST_F(PipeKernels, SubGroupReservations) {
  groupReservations("subGroupWrite", "subGroupRead", 64);
  groupReservations("subGroupWrite", "subGroupRead", 16);
}
TEST_F(PipeKernelsScalar, SubGroupReservations) {
  groupReservations("subGroupWrite", "subGroupRead", 64);
}
TEST_F(PipeKernels, ProducerBesideConsumer) {
  producerBesideConsumer();
}
TEST_F(PipeKernelsScalar, ProducerBesideConsumer) {
  producerBesideConsumer();
}

} // namespace
