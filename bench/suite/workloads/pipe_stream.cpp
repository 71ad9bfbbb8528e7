// Packets through a pipe (OpenCL C 2.0): a producer kernel writes one int4 packet per work-item,
// a consumer kernel reads them all and adds them up. What it measures is the pipe's
// reservations and commits, every work-item against every other; the native reference adds up
// the same packets from an array.
#include "../workload.hpp"

namespace bench {
namespace {

const char *kSource = R"(
  kernel void produce(global const int4 *in, write_only pipe int4 out) {
    int4 packet = in[get_global_id(0)];
    while (write_pipe(out, &packet) != 0)
      ;
  }
  kernel void consume(read_only pipe int4 in, global long *total) {
    int4 packet;
    while (read_pipe(in, &packet) != 0)
      ;
    long sum = (long)packet.x + packet.y + packet.z + packet.w;
    sum = work_group_reduce_add(sum);
    if (get_local_id(0) == 0)
      atom_add(total, sum);
  }
)";

class PipeStream final : public Workload {
public:
  std::string name() const override { return "pipe stream"; }
  std::string unit() const override { return "Gpacket/s"; }
  double work() const override { return packets_.size() / 4 / 1e9; }

  void prepare(Scale scale) override {
    size_t count = scale == Scale::Tiny ? 4096 : 1 << 22;
    packets_.resize(count * 4);
    for (size_t i = 0; i < packets_.size(); ++i)
      packets_[i] = static_cast<int>((i * 2654435761u) % 2001) - 1000;
  }

  void runNative() override {
    int64_t sum = 0;
    const long n = static_cast<long>(packets_.size());
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (long i = 0; i < n; ++i)
      sum += packets_[i];
    total_ = sum;
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    return std::make_unique<Run>(session, *this);
  }

private:
  struct Run final : RunOf<PipeStream> {
    Run(ClSession &session, const PipeStream &workload)
        : RunOf(session, workload), produce_(session.kernel(kSource, "produce", "-cl-std=CL2.0")),
          consume_(session.kernel(kSource, "consume", "-cl-std=CL2.0")),
          in_(session.buffer(workload.packets_)), total_(session.buffer(sizeof(int64_t))) {
      cl_int error = CL_SUCCESS;
      pipe_.reset(
          clCreatePipe(session.context(), 0, 4 * sizeof(int), packetCount(), nullptr, &error));
      if (error != CL_SUCCESS)
        throw ClFailure("clCreatePipe failed: " + std::to_string(error));
      setArgs(produce_.get(), in_, pipe_);
      setArgs(consume_.get(), pipe_, total_);
    }
    cl_uint packetCount() const { return static_cast<cl_uint>(workload_.packets_.size() / 4); }
    void enqueue() override {
      int64_t zero = 0;
      if (clEnqueueFillBuffer(session_.queue(), total_.get(), &zero, sizeof zero, 0, sizeof zero, 0,
                              nullptr, nullptr) != CL_SUCCESS)
        throw ClFailure("clEnqueueFillBuffer failed");
      size_t global = packetCount(), local = 256;
      session_.launch(produce_.get(), 1, &global, &local);
      session_.launch(consume_.get(), 1, &global, &local);
    }
    std::string mismatch() override {
      int64_t total = session_.read<int64_t>(total_.get(), 1)[0];
      return total == workload_.total_ ? ""
                                       : "the sum is " + std::to_string(total) + " instead of " +
                                             std::to_string(workload_.total_);
    }
    ClKernel produce_, consume_;
    ClBuffer in_, total_, pipe_;
  };

  std::vector<int> packets_;
  int64_t total_ = 0;
};

} // namespace

std::unique_ptr<Workload> makePipeStream() {
  return std::make_unique<PipeStream>();
}

} // namespace bench
