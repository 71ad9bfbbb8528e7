// An inclusive prefix sum of ints in three passes: each work-group scans its block and writes its
// total; one work-group scans the totals; every block then adds the total of the blocks before
// it. Three versions of the work-group scan the first two passes use: in local memory
// (Hillis-Steele steps between barriers), with sub-groups (sub_group_scan_inclusive_add, then
// the first sub-group scans the sub-groups' totals through local memory), and with the
// work-group collective work_group_scan_inclusive_add.
#include "../workload.hpp"

#include <numeric>
#include <omp.h>
#include <random>

namespace bench {
namespace {

// The kernels both versions share.
const char *kCommonSource = R"(
  #define GROUP 256
  kernel void add_totals(global int *data, global const int *totals) {
    int group = get_group_id(0);
    if (group > 0)
      data[get_global_id(0)] += totals[group - 1];
  }
  kernel void copy(global const int *from, global int *to) {
    to[get_global_id(0)] = from[get_global_id(0)];
  })";

const char *kLocalScanSource = R"(
  void scan_group(local int *values) {
    int id = get_local_id(0);
    for (int offset = 1; offset < GROUP; offset *= 2) {
      int before = id >= offset ? values[id - offset] : 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      values[id] += before;
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  kernel void scan_totals(global int *totals, int count) {
    local int values[GROUP];
    int id = get_local_id(0);
    int carry = 0;
    for (int start = 0; start < count; start += GROUP) {
      values[id] = start + id < count ? totals[start + id] : 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      scan_group(values);
      if (start + id < count)
        totals[start + id] = values[id] + carry;
      carry += values[GROUP - 1];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  kernel void scan_blocks(global int *data, global int *totals) {
    local int values[GROUP];
    int id = get_local_id(0);
    values[id] = data[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    scan_group(values);
    data[get_global_id(0)] = values[id];
    if (id == GROUP - 1)
      totals[get_group_id(0)] = values[id];
  })";

const char *kSubGroupScanSource = R"(
  // The inclusive scan of x over the work-group: each sub-group scans its values, the first
  // sub-group scans the sub-groups' totals a sub-group's width at a time, and every work-item
  // adds its sub-group's offset. offsets[] holds one value per sub-group and then the work-group's
  // total, which *total receives. Two barriers; the caller waits before using offsets again.
  int scan_group(int x, local int *offsets, int *total) {
    int scanned = sub_group_scan_inclusive_add(x);
    uint group = get_sub_group_id(), lane = get_sub_group_local_id();
    uint width = get_sub_group_size(), count = get_num_sub_groups();
    if (lane == width - 1)
      offsets[group] = scanned;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (group == 0) {
      int carry = 0;
      for (uint start = 0; start < count; start += width) {
        int sum = start + lane < count ? offsets[start + lane] : 0;
        int before = sub_group_scan_exclusive_add(sum);
        if (start + lane < count)
          offsets[start + lane] = before + carry;
        carry += sub_group_broadcast(before + sum, width - 1);
      }
      if (lane == 0)
        offsets[count] = carry;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    *total = offsets[count];
    return scanned + offsets[group];
  }
  kernel void scan_totals(global int *totals, int count) {
    local int offsets[GROUP + 1];
    int id = get_local_id(0);
    int carry = 0;
    for (int start = 0; start < count; start += GROUP) {
      int total;
      int scanned = scan_group(start + id < count ? totals[start + id] : 0, offsets, &total);
      if (start + id < count)
        totals[start + id] = scanned + carry;
      carry += total;
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  kernel void scan_blocks(global int *data, global int *totals) {
    local int offsets[GROUP + 1];
    int total;
    int scanned = scan_group(data[get_global_id(0)], offsets, &total);
    data[get_global_id(0)] = scanned;
    if (get_local_id(0) == GROUP - 1)
      totals[get_group_id(0)] = scanned;
  })";

const char *kWorkGroupScanSource = R"(
  kernel void scan_totals(global int *totals, int count) {
    int id = get_local_id(0);
    int carry = 0;
    for (int start = 0; start < count; start += GROUP) {
      int value = start + id < count ? totals[start + id] : 0;
      int scanned = work_group_scan_inclusive_add(value);
      if (start + id < count)
        totals[start + id] = scanned + carry;
      carry += work_group_broadcast(scanned, GROUP - 1);
    }
  }
  kernel void scan_blocks(global int *data, global int *totals) {
    int scanned = work_group_scan_inclusive_add(data[get_global_id(0)]);
    data[get_global_id(0)] = scanned;
    if (get_local_id(0) == GROUP - 1)
      totals[get_group_id(0)] = scanned;
  })";

/// How a work-group scans its block.
enum class GroupScan { LocalMemory, SubGroups, WorkGroupCollective };

constexpr size_t kGroupSize = 256;

class PrefixScan final : public Workload {
public:
  explicit PrefixScan(GroupScan groupScan) : groupScan_(groupScan) {}
  std::string name() const override {
    switch (groupScan_) {
    case GroupScan::SubGroups:
      return "prefix scan (sub-groups)";
    case GroupScan::WorkGroupCollective:
      return "prefix scan (work-group)";
    default:
      return "prefix scan";
    }
  }
  std::string unit() const override { return "Gelement/s"; }
  double work() const override { return input_.size() / 1e9; }

  void prepare(Scale scale) override {
    input_.resize(scale == Scale::Tiny ? kGroupSize * 300 : kGroupSize * 65536);
    std::mt19937 random(9);
    std::uniform_int_distribution<int> value(-100, 100);
    for (int &x : input_)
      x = value(random);
    output_.assign(input_.size(), 0);
  }

  /// Each core sums its share, the shares' offsets are added, then each core scans its share.
  void runNative() override {
    const long n = static_cast<long>(input_.size());
    std::vector<int> totals;
#pragma omp parallel
    {
#pragma omp single
      totals.assign(omp_get_num_threads() + 1, 0);
      int thread = omp_get_thread_num(), threads = omp_get_num_threads();
      long begin = n * thread / threads, end = n * (thread + 1) / threads;
      int sum = 0;
      for (long i = begin; i < end; ++i)
        output_[i] = sum += input_[i];
      totals[thread + 1] = sum;
#pragma omp barrier
      int offset = std::accumulate(totals.begin(), totals.begin() + thread + 1, 0);
#pragma omp simd
      for (long i = begin; i < end; ++i)
        output_[i] += offset;
    }
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<PrefixScan> {
    Run(ClSession &session, const PrefixScan &workload)
        : RunOf(session, workload),
          source_(std::string(kCommonSource) + scanSource(workload.groupScan_)),
          options_(workload.groupScan_ != GroupScan::LocalMemory ? "-cl-std=CL3.0" : ""),
          blocks_(session.kernel(source_, "scan_blocks", options_)),
          totals_(session.kernel(source_, "scan_totals", options_)),
          add_(session.kernel(source_, "add_totals", options_)),
          copy_(session.kernel(source_, "copy", options_)), input_(session.buffer(workload.input_)),
          data_(session.buffer(workload.input_.size() * sizeof(int))),
          blockTotals_(session.buffer(groups() * sizeof(int))) {
      setArgs(copy_.get(), input_, data_);
      setArgs(blocks_.get(), data_, blockTotals_);
      setArgs(totals_.get(), blockTotals_, static_cast<cl_int>(groups()));
      setArgs(add_.get(), data_, blockTotals_);
    }
    size_t groups() const { return workload_.input_.size() / kGroupSize; }
    /// The copy restores the input (the scan works in place); it is part of the timed run.
    void enqueue() override {
      size_t global = workload_.input_.size(), local = kGroupSize;
      session_.launch(copy_.get(), 1, &global);
      session_.launch(blocks_.get(), 1, &global, &local);
      session_.launch(totals_.get(), 1, &local, &local);
      session_.launch(add_.get(), 1, &global, &local);
    }
    std::string mismatch() override {
      return compareExactly(session_.read<int>(data_.get(), workload_.input_.size()),
                            workload_.output_);
    }
    static const char *scanSource(GroupScan groupScan) {
      switch (groupScan) {
      case GroupScan::SubGroups:
        return kSubGroupScanSource;
      case GroupScan::WorkGroupCollective:
        return kWorkGroupScanSource;
      default:
        return kLocalScanSource;
      }
    }
    std::string source_, options_;
    ClKernel blocks_, totals_, add_, copy_;
    ClBuffer input_, data_, blockTotals_;
  };

  GroupScan groupScan_;
  std::vector<int> input_, output_;
};

} // namespace

std::unique_ptr<Workload> makePrefixScan() {
  return std::make_unique<PrefixScan>(GroupScan::LocalMemory);
}

std::unique_ptr<Workload> makeWorkGroupPrefixScan() {
  return std::make_unique<PrefixScan>(GroupScan::WorkGroupCollective);
}

std::unique_ptr<Workload> makeSubGroupPrefixScan() {
  return std::make_unique<PrefixScan>(GroupScan::SubGroups);
}

} // namespace bench
