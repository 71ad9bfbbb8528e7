// A sum computed by recursive subdivision: a range splits in two until it is short, and each
// short range is summed by one work-group. Two forms of the same recursion: kernels enqueue
// their children themselves (device-side enqueue, OpenCL C 2.0), and the host drives it, one
// launch per level of the tree and one for the leaves, as a program must without device-side
// enqueue.
#include "../workload.hpp"

#include <numeric>

namespace bench {
namespace {

constexpr int kLeafItems = 1 << 16;
constexpr size_t kLeafGroup = 256;

const char *kLeafFunction = R"(
  void sumRange(global const int *in, global long *total, int begin, int end) {
    long part = 0;
    for (int i = begin + (int)get_local_id(0); i < end; i += (int)get_local_size(0))
      part += in[i];
    part = work_group_reduce_add(part);
    if (get_local_id(0) == 0)
      atom_add(total, part);
  }
)";

const char *kDeviceSource = R"(
  void node(global const int *in, global long *total, int begin, int end, int leaf) {
    queue_t queue = get_default_queue();
    if (end - begin <= leaf) {
      enqueue_kernel(queue, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(256, 256),
                     ^{ sumRange(in, total, begin, end); });
      return;
    }
    int middle = begin + (end - begin) / 2;
    enqueue_kernel(queue, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(2), ^{
      if (get_global_id(0) == 0)
        node(in, total, begin, middle, leaf);
      else
        node(in, total, middle, end, leaf);
    });
  }
  kernel void subdivide(global const int *in, global long *total, int n, int leaf) {
    node(in, total, 0, n, leaf);
  }
)";

const char *kHostSource = R"(
  // One level: range k of `ranges` becomes ranges 2k and 2k + 1 of `halves`.
  kernel void split(global const int2 *ranges, global int2 *halves) {
    size_t k = get_global_id(0);
    int2 range = ranges[k];
    int middle = range.x + (range.y - range.x) / 2;
    halves[2 * k] = (int2)(range.x, middle);
    halves[2 * k + 1] = (int2)(middle, range.y);
  }
  kernel void leaves(global const int *in, global long *total, global const int2 *ranges) {
    int2 range = ranges[get_group_id(0)];
    sumRange(in, total, range.x, range.y);
  }
)";

class RecursiveSubdivision final : public Workload {
public:
  explicit RecursiveSubdivision(bool onDevice) : onDevice_(onDevice) {}

  std::string name() const override {
    return onDevice_ ? "subdivision device enqueue" : "subdivision host driven";
  }
  std::string unit() const override { return "Gint/s"; }
  double work() const override { return input_.size() / 1e9; }

  void prepare(Scale scale) override {
    levels_ = scale == Scale::Tiny ? 3 : 10;
    input_.resize(size_t{kLeafItems} << levels_);
    for (size_t i = 0; i < input_.size(); ++i)
      input_[i] = static_cast<int>((i * 7919) % 1000) - 500;
  }

  void runNative() override {
    int64_t sum = 0;
    const long n = static_cast<long>(input_.size());
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (long i = 0; i < n; ++i)
      sum += input_[i];
    total_ = sum;
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    if (onDevice_)
      return std::make_unique<DeviceEnqueueRun>(session, *this);
    return std::make_unique<HostDrivenRun>(session, *this);
  }

private:
  /// What both forms share: the input and the total, zeroed before each run.
  struct SumRun : RunOf<RecursiveSubdivision> {
    SumRun(ClSession &session, const RecursiveSubdivision &workload)
        : RunOf(session, workload), in_(session.buffer(workload.input_)),
          total_(session.buffer(sizeof(int64_t))) {}
    void clearTotal() {
      int64_t zero = 0;
      if (clEnqueueFillBuffer(session_.queue(), total_.get(), &zero, sizeof zero, 0, sizeof zero, 0,
                              nullptr, nullptr) != CL_SUCCESS)
        throw ClFailure("clEnqueueFillBuffer failed");
    }
    std::string mismatch() override {
      int64_t total = session_.read<int64_t>(total_.get(), 1)[0];
      return total == workload_.total_ ? ""
                                       : "the sum is " + std::to_string(total) + " instead of " +
                                             std::to_string(workload_.total_);
    }
    ClBuffer in_, total_;
  };

  struct DeviceEnqueueRun final : SumRun {
    DeviceEnqueueRun(ClSession &session, const RecursiveSubdivision &workload)
        : SumRun(session, workload),
          kernel_(session.kernel(std::string(kLeafFunction) + kDeviceSource, "subdivide",
                                 "-cl-std=CL2.0")) {
      cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES,
                                          CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT |
                                              CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                          0};
      cl_int error = CL_SUCCESS;
      deviceQueue_.reset(clCreateCommandQueueWithProperties(
          session.context(), session.device().device, properties, &error));
      if (error != CL_SUCCESS)
        throw ClFailure("no device queue: " + std::to_string(error));
      int n = static_cast<int>(workload.input_.size());
      setArgs(kernel_.get(), in_, total_, n, kLeafItems);
    }
    void enqueue() override {
      clearTotal();
      size_t one = 1;
      session_.launch(kernel_.get(), 1, &one);
    }
    ClKernel kernel_;
    ClQueue deviceQueue_;
  };

  struct HostDrivenRun final : SumRun {
    HostDrivenRun(ClSession &session, const RecursiveSubdivision &workload)
        : SumRun(session, workload), split_(session.kernel(std::string(kLeafFunction) + kHostSource,
                                                           "split", "-cl-std=CL2.0")),
          leaves_(
              session.kernel(std::string(kLeafFunction) + kHostSource, "leaves", "-cl-std=CL2.0")) {
      size_t leafCount = size_t{1} << workload.levels_;
      int root[2] = {0, static_cast<int>(workload.input_.size())};
      root_ = session.buffer(sizeof root, root);
      ranges_[0] = session.buffer(leafCount * 2 * sizeof(int));
      ranges_[1] = session.buffer(leafCount * 2 * sizeof(int));
    }
    void enqueue() override {
      clearTotal();
      int levels = workload_.levels_;
      for (int level = 0; level < levels; ++level) {
        setArgs(split_.get(), level == 0 ? root_ : ranges_[level % 2], ranges_[(level + 1) % 2]);
        size_t nodes = size_t{1} << level;
        session_.launch(split_.get(), 1, &nodes);
      }
      setArgs(leaves_.get(), in_, total_, ranges_[levels % 2]);
      size_t global = (size_t{1} << levels) * kLeafGroup, local = kLeafGroup;
      session_.launch(leaves_.get(), 1, &global, &local);
    }
    ClKernel split_, leaves_;
    ClBuffer root_, ranges_[2];
  };

  bool onDevice_;
  int levels_ = 0;
  std::vector<int> input_;
  int64_t total_ = 0;
};

} // namespace

std::unique_ptr<Workload> makeSubdivisionDeviceEnqueue() {
  return std::make_unique<RecursiveSubdivision>(true);
}
std::unique_ptr<Workload> makeSubdivisionHostDriven() {
  return std::make_unique<RecursiveSubdivision>(false);
}

} // namespace bench
