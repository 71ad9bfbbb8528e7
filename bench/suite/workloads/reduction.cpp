// A sum of floats: each work-group reduces its share and writes one partial sum; the host adds
// the partial sums. Three versions: in local memory by halving steps separated by barriers, with
// sub-groups (sub_group_reduce_add, then one step through local memory for the sub-groups'
// sums), and with the work-group collective work_group_reduce_add.
#include "../workload.hpp"

#include <cmath>
#include <numeric>
#include <random>

namespace bench {
namespace {

const char *kSource = R"(
  #define GROUP 256
  kernel void reduce(global const float *data, uint length, global float *partials) {
    local float sums[GROUP];
    uint id = get_local_id(0);
    float sum = 0.0f;
    for (uint i = get_global_id(0); i < length; i += get_global_size(0))
      sum += data[i];
    sums[id] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = GROUP / 2; step > 0; step /= 2) {
      if (id < step)
        sums[id] += sums[id + step];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (id == 0)
      partials[get_group_id(0)] = sums[0];
  })";

const char *kSubGroupSource = R"(
  #define GROUP 256
  kernel void reduce(global const float *data, uint length, global float *partials) {
    local float sums[GROUP]; // one per sub-group
    float sum = 0.0f;
    for (uint i = get_global_id(0); i < length; i += get_global_size(0))
      sum += data[i];
    sum = sub_group_reduce_add(sum);
    if (get_sub_group_local_id() == 0)
      sums[get_sub_group_id()] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
      float total = 0.0f;
      for (uint s = 0; s < get_num_sub_groups(); ++s)
        total += sums[s];
      partials[get_group_id(0)] = total;
    }
  })";

const char *kWorkGroupSource = R"(
  kernel void reduce(global const float *data, uint length, global float *partials) {
    float sum = 0.0f;
    for (uint i = get_global_id(0); i < length; i += get_global_size(0))
      sum += data[i];
    sum = work_group_reduce_add(sum);
    if (get_local_id(0) == 0)
      partials[get_group_id(0)] = sum;
  })";

/// How a work-group adds up its work-items' sums.
enum class GroupSum { LocalMemory, SubGroups, WorkGroupCollective };

constexpr size_t kGroupSize = 256;
constexpr size_t kGroups = 64;

class Reduction final : public Workload {
public:
  explicit Reduction(GroupSum groupSum) : groupSum_(groupSum) {}
  std::string name() const override {
    switch (groupSum_) {
    case GroupSum::SubGroups:
      return "reduction (sub-groups)";
    case GroupSum::WorkGroupCollective:
      return "reduction (work-group)";
    default:
      return "reduction";
    }
  }
  std::string unit() const override { return "GB/s"; }
  double work() const override { return data_.size() * sizeof(float) / 1e9; }

  void prepare(Scale scale) override {
    data_.resize(scale == Scale::Tiny ? 50000 : size_t{1} << 26);
    std::mt19937 random(4);
    std::uniform_real_distribution<float> value(0, 1);
    for (float &x : data_)
      x = value(random);
  }

  /// Blocks summed in 16 float lanes (as a vectorized device does), added up in double.
  void runNative() override {
    constexpr long kBlock = 4096, kLanes = 16;
    const long n = static_cast<long>(data_.size()), blocks = n / kBlock;
    const float *data = data_.data();
    double sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (long block = 0; block < blocks; ++block) {
      float lanes[kLanes] = {};
      for (long i = block * kBlock; i < (block + 1) * kBlock; i += kLanes)
#pragma omp simd
        for (long lane = 0; lane < kLanes; ++lane)
          lanes[lane] += data[i + lane];
      for (float lane : lanes)
        sum += lane;
    }
    for (long i = blocks * kBlock; i < n; ++i)
      sum += data[i];
    sum_ = sum;
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<Reduction> {
    Run(ClSession &session, const Reduction &workload)
        : RunOf(session, workload), kernel_(kernelFor(session, workload.groupSum_)),
          data_(session.buffer(workload.data_)),
          partials_(session.buffer(kGroups * sizeof(float))) {
      setArgs(kernel_.get(), data_, static_cast<cl_uint>(workload.data_.size()), partials_);
    }
    void enqueue() override {
      size_t global = kGroups * kGroupSize, local = kGroupSize;
      session_.launch(kernel_.get(), 1, &global, &local);
    }
    std::string mismatch() override {
      std::vector<float> partials = session_.read<float>(partials_.get(), kGroups);
      double sum = std::accumulate(partials.begin(), partials.end(), 0.0);
      // Each work-item adds its share in float: allow float rounding over the shares' lengths.
      double allowed = 1e-5 * workload_.sum_ + 1e-3;
      if (std::fabs(sum - workload_.sum_) > allowed)
        return "sum " + std::to_string(sum) + " instead of " + std::to_string(workload_.sum_);
      return "";
    }
    static ClKernel kernelFor(ClSession &session, GroupSum groupSum) {
      switch (groupSum) {
      case GroupSum::SubGroups:
        return session.kernel(kSubGroupSource, "reduce", "-cl-std=CL3.0");
      case GroupSum::WorkGroupCollective:
        return session.kernel(kWorkGroupSource, "reduce", "-cl-std=CL3.0");
      default:
        return session.kernel(kSource, "reduce");
      }
    }
    ClKernel kernel_;
    ClBuffer data_, partials_;
  };

  GroupSum groupSum_;
  std::vector<float> data_;
  double sum_ = 0;
};

} // namespace

std::unique_ptr<Workload> makeReduction() {
  return std::make_unique<Reduction>(GroupSum::LocalMemory);
}

std::unique_ptr<Workload> makeSubGroupReduction() {
  return std::make_unique<Reduction>(GroupSum::SubGroups);
}

std::unique_ptr<Workload> makeWorkGroupReduction() {
  return std::make_unique<Reduction>(GroupSum::WorkGroupCollective);
}

} // namespace bench
