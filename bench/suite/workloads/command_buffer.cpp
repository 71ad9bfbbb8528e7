// A hundred small kernels in a row (one work-group each, every one updating the buffer the one
// before it wrote), the way an application steps a simulation or a solver: enqueued one by one,
// and recorded once in a command buffer (cl_khr_command_buffer) and replayed. The kernels do
// little, so the rate measures what it costs to start a kernel after the one before it. The
// native reference steps as an OpenMP program does, one parallel loop (a fork and join of every
// core) per step, as the kernel launch workload's reference does per launch: a loop on one core
// would measure no start at all.
#include "../workload.hpp"

#include <CL/cl_ext.h>

#include <cstring>

namespace bench {
namespace {

const char *kSource = R"(kernel void advance(global int *a) {
  size_t i = get_global_id(0);
  a[i] = a[i] * 3 + (int)i;
})";

constexpr int kKernels = 100;

// The entry points used here have the same signatures in every version from 0.9.4 on (PoCL 5.0
// has 0.9.4, Kiln 0.9.8); Debian's headers declare an older one, so they are declared here.
using CreateFn = cl_command_buffer_khr(CL_API_CALL *)(cl_uint, const cl_command_queue *,
                                                      const cl_properties *, cl_int *);
using RecordKernelFn = cl_int(CL_API_CALL *)(cl_command_buffer_khr, cl_command_queue,
                                             const cl_properties *, cl_kernel, cl_uint,
                                             const size_t *, const size_t *, const size_t *,
                                             cl_uint, const cl_sync_point_khr *,
                                             cl_sync_point_khr *, void *);
using BufferFn = cl_int(CL_API_CALL *)(cl_command_buffer_khr);
using EnqueueFn = cl_int(CL_API_CALL *)(cl_uint, cl_command_queue *, cl_command_buffer_khr, cl_uint,
                                        const cl_event *, cl_event *);

/// The device's version of cl_khr_command_buffer, 0 without it.
cl_version commandBufferVersion(cl_device_id device) {
  size_t size = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, nullptr, &size) != CL_SUCCESS)
    return 0;
  std::vector<cl_name_version> entries(size / sizeof(cl_name_version));
  clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS_WITH_VERSION, size, entries.data(), nullptr);
  for (const cl_name_version &entry : entries)
    if (std::strcmp(entry.name, "cl_khr_command_buffer") == 0)
      return entry.version;
  return 0;
}

class KernelSequence final : public Workload {
public:
  explicit KernelSequence(bool recorded) : recorded_(recorded) {}

  std::string name() const override {
    return recorded_ ? "100 kernels, command buffer" : "100 kernels, enqueued";
  }
  std::string unit() const override { return "k kernels/s"; }
  double work() const override { return kKernels / 1e3; }

  void prepare(Scale) override {
    initial_.resize(kItems);
    for (size_t i = 0; i < kItems; ++i)
      initial_[i] = static_cast<int>(i % 7);
  }

  void runNative() override {
    expected_ = initial_;
    int *data = expected_.data();
    for (int kernel = 0; kernel < kKernels; ++kernel) {
#pragma omp parallel for schedule(static)
      for (long i = 0; i < static_cast<long>(kItems); ++i)
        data[i] = data[i] * 3 + static_cast<int>(i);
    }
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  static constexpr size_t kItems = 256;

  struct Run final : RunOf<KernelSequence> {
    Run(ClSession &session, const KernelSequence &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSource, "advance")),
          data_(session.buffer(workload.initial_)) {
      setArgs(kernel_.get(), data_);
      if (workload.recorded_)
        record();
    }
    ~Run() override {
      if (commandBuffer_ != nullptr)
        release_(commandBuffer_);
    }

    void enqueue() override {
      // Each run starts from the inputs, so every run's output can be checked.
      if (clEnqueueWriteBuffer(session_.queue(), data_.get(), CL_FALSE, 0, kItems * sizeof(int),
                               workload_.initial_.data(), 0, nullptr, nullptr) != CL_SUCCESS)
        throw ClFailure("clEnqueueWriteBuffer failed");
      if (commandBuffer_ != nullptr) {
        check(enqueue_(0, nullptr, commandBuffer_, 0, nullptr, nullptr), "enqueue");
        return;
      }
      for (int kernel = 0; kernel < kKernels; ++kernel)
        session_.launch(kernel_.get(), 1, &kItems, &kItems);
    }

    std::string mismatch() override {
      return compareExactly(session_.read<int>(data_.get(), kItems), workload_.expected_);
    }

  private:
    static void check(cl_int error, const char *what) {
      if (error != CL_SUCCESS)
        throw ClFailure(std::string("command buffer ") + what +
                        " failed: " + std::to_string(error));
    }
    template <typename Fn> Fn find(const char *name) {
      auto function = reinterpret_cast<Fn>(
          clGetExtensionFunctionAddressForPlatform(session_.device().platform, name));
      if (function == nullptr)
        throw ClFailure(std::string("no ") + name);
      return function;
    }

    void record() {
      if (commandBufferVersion(session_.device().device) < CL_MAKE_VERSION(0, 9, 4))
        throw ClFailure("no cl_khr_command_buffer 0.9.4 or later");
      auto create = find<CreateFn>("clCreateCommandBufferKHR");
      auto recordKernel = find<RecordKernelFn>("clCommandNDRangeKernelKHR");
      auto finalize = find<BufferFn>("clFinalizeCommandBufferKHR");
      release_ = find<BufferFn>("clReleaseCommandBufferKHR");
      enqueue_ = find<EnqueueFn>("clEnqueueCommandBufferKHR");
      cl_command_queue queue = session_.queue();
      cl_int error = CL_SUCCESS;
      commandBuffer_ = create(1, &queue, nullptr, &error);
      check(error, "creation");
      for (int kernel = 0; kernel < kKernels; ++kernel)
        check(recordKernel(commandBuffer_, nullptr, nullptr, kernel_.get(), 1, nullptr, &kItems,
                           &kItems, 0, nullptr, nullptr, nullptr),
              "recording");
      check(finalize(commandBuffer_), "finalization");
    }

    ClKernel kernel_;
    ClBuffer data_;
    cl_command_buffer_khr commandBuffer_ = nullptr;
    BufferFn release_ = nullptr;
    EnqueueFn enqueue_ = nullptr;
  };

  bool recorded_;
  std::vector<int> initial_, expected_;
};

} // namespace

std::unique_ptr<Workload> makeKernelSequenceEnqueued() {
  return std::make_unique<KernelSequence>(false);
}

std::unique_ptr<Workload> makeKernelSequenceRecorded() {
  return std::make_unique<KernelSequence>(true);
}

} // namespace bench
