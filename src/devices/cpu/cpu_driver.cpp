#include "devices/cpu/cpu_driver.hpp"

#include "devices/cpu/cpu_device_info.hpp"
#include "devices/cpu/cpu_topology.hpp"
#include "devices/cpu/host_cpu.hpp"
#include "devices/cpu/kernel_jit.hpp"
#include "devices/cpu/launch_buffers.hpp"
#include "devices/cpu/prepared_program_serialization.hpp"
#include "devices/cpu/thread_pool.hpp"
#include "devices/cpu/thread_stack.hpp"
#include "devices/cpu/work_group_code_cache.hpp"
#include "runtime/objects/compiler_loader.hpp"
#include "runtime/objects/kernel.hpp"
#include "runtime/objects/kiln_language.hpp"
#include "runtime/objects/memory.hpp"
#include "runtime/printf/printf_output.hpp"
#include "runtime/scheduling/command.hpp"
#include "runtime/scheduling/host_commands.hpp"
#include "runtime/scheduling/work_group_grid.hpp"
#include "support/settings.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace kiln::cpu {
namespace {

class CpuProgram;

class CpuKernel final : public DeviceKernel {
public:
  /// `program` owns the kernel; `printfCalls`: the program's printf call sites, which outlive
  /// the kernel.
  CpuKernel(CpuProgram &program, size_t index, uint32_t preferredMultiple,
            const compiler::KernelInfo &info, size_t maxWorkGroupSize,
            const std::vector<compiler::PrintfCallSite> &printfCalls)
      : program_(program), index_(index), preferredMultiple_(preferredMultiple),
        maxWorkGroupSize_(maxWorkGroupSize),
        printfCalls_(info.usesPrintf ? &printfCalls : nullptr) {
    if (info.requiredWorkGroupSize[0] != 0)
      maxWorkGroupSize_ = info.requiredWorkGroupSize[0] * info.requiredWorkGroupSize[1] *
                          info.requiredWorkGroupSize[2];
  }

  DeviceKernelInfo info() const override {
    DeviceKernelInfo result;
    result.maxWorkGroupSize = maxWorkGroupSize_;
    // A group smaller than the vector (reqd_work_group_size) fills only that many lanes.
    result.preferredWorkGroupSizeMultiple = std::min<size_t>(preferredMultiple_, maxWorkGroupSize_);
    // Large enough to amortize the cost of starting a work-group, small enough that the
    // work-items' data stays in cache. A streaming kernel (STREAM's triad) moved 8-12% more
    // bytes a second with 1024 work-items a group than with 256; 4096 gained nothing more.
    result.preferredWorkGroupItems = 1024;
    return result;
  }

  /// The work-group function for work-groups of `shape`, compiled on its first use. Null, with
  /// `error` set, when it cannot be compiled.
  const WorkGroupCode *code(const WorkGroupShape &shape, std::string &error) const;

  /// The program's printf call sites when the kernel calls printf, else null.
  const std::vector<compiler::PrintfCallSite> *printfCalls() const { return printfCalls_; }

private:
  CpuProgram &program_;
  size_t index_; // in the program's ProgramInfo
  uint32_t preferredMultiple_;
  size_t maxWorkGroupSize_;
  const std::vector<compiler::PrintfCallSite> *printfCalls_;
  mutable WorkGroupCodeCache codes_;
};

class CpuProgram final : public DeviceProgram {
public:
  CpuProgram(CodeGeneratorHandle<KernelJit> jitCompiler, PreparedProgram prepared,
             const compiler::ProgramInfo &info, size_t maxWorkGroupSize)
      : jitCompiler_(jitCompiler), prepared_(std::move(prepared)), info_(info) {
    for (size_t index = 0; index < info.kernels.size(); ++index) {
      uint32_t multiple =
          index < prepared_.preferredMultiples.size() ? prepared_.preferredMultiples[index] : 1;
      kernels_.emplace(info.kernels[index].name,
                       std::make_unique<CpuKernel>(*this, index, multiple, info.kernels[index],
                                                   maxWorkGroupSize, info_.printfCalls));
    }
  }

  const DeviceKernel *kernel(std::string_view name) const override {
    auto found = kernels_.find(name);
    return found == kernels_.end() ? nullptr : found->second.get();
  }

  std::vector<std::byte> serialize() const override { return serializePreparedProgram(prepared_); }

  /// Compiles kernel number `kernel` for work-groups of `shape`.
  bool specialize(size_t kernel, const WorkGroupShape &shape, WorkGroupCode &code,
                  std::string &error) {
    JitProgram *jit = this->jit(error);
    return jit != nullptr && jit->specialize(kernel, shape, code, error);
  }

private:
  /// The JIT side of the program, made when a kernel first runs (a program loaded from the
  /// on-disk cache needs no LLVM before that).
  JitProgram *jit(std::string &error) {
    std::lock_guard lock(jitMutex_);
    if (!jit_) {
      KernelJit *compiler = jitCompiler_.get(error);
      if (compiler == nullptr)
        return nullptr;
      jit_ = compiler->load(prepared_, info_);
    }
    return jit_.get();
  }

  CodeGeneratorHandle<KernelJit> jitCompiler_;
  PreparedProgram prepared_;
  compiler::ProgramInfo info_;
  std::mutex jitMutex_;
  std::unique_ptr<JitProgram> jit_;
  std::map<std::string, std::unique_ptr<CpuKernel>, std::less<>> kernels_;
};

const WorkGroupCode *CpuKernel::code(const WorkGroupShape &shape, std::string &error) const {
  if (const WorkGroupCode *code = codes_.findRecent(shape))
    return code;
  return codes_.findOrCompile(
      shape,
      [this](const WorkGroupShape &wanted, WorkGroupCode &code, std::string &failure) {
        return program_.specialize(index_, wanted, code, failure);
      },
      error);
}

/// Memory a worker reuses from one work-group to the next.
struct WorkerScratch {
  AlignedStorage localMemory;
  size_t localCapacity = 0;
  AlignedStorage privateMemory;
  size_t privateCapacity = 0;
  /// The stack of the thread running this scratch's work-groups (a worker, or the waiting one).
  RememberedThreadStack stack;

  /// Grows `storage` to at least `size` bytes; false when out of memory.
  static bool reserve(AlignedStorage &storage, size_t &capacity, size_t size) {
    if (size <= capacity)
      return true;
    storage = allocateAligned(size, kLocalMemoryAlignment);
    capacity = storage ? size : 0;
    return storage != nullptr;
  }
};

/// The work-group functions of one launch: a work-group's index in `byEdges` has bit `dim` set
/// when the group is the last, narrower one of dimension `dim` (non-uniform work-groups).
struct LaunchCode {
  std::array<const WorkGroupCode *, 8> byEdges{};
  /// Bytes of WorkGroupParams::privateMemory the largest of them needs.
  uint64_t privateMemorySize = 0;
  /// They may use non-temporal stores (streaming_stores.hpp): the workers must fence them.
  bool streamingStores = false;

  /// Finds (or compiles) the functions the launch of `range` needs, of the shapes `common` says
  /// everything of but the sizes and offset. False, with `error` set, when one cannot be
  /// compiled.
  bool find(const CpuKernel &kernel, const NDRange &range, const WorkGroupShape &common,
            std::string &error) {
    streamingStores = common.streamingStores;
    for (const WorkGroupKind &kind : workGroupKinds(range)) {
      WorkGroupShape shape = common;
      shape.zeroOffset = true;
      for (unsigned dim = 0; dim < 3; ++dim) {
        shape.enqueuedLocalSize[dim] = range.local[dim];
        shape.localSize[dim] = kind.localSize[dim];
        shape.zeroOffset = shape.zeroOffset && range.offset[dim] == 0;
      }
      const WorkGroupCode *code = kernel.code(shape, error);
      if (code == nullptr)
        return false;
      byEdges[kind.edges] = code;
      uint64_t simdGroupsAlongX = (shape.localSize[0] + code->simdWidth - 1) / code->simdWidth;
      privateMemorySize =
          std::max(privateMemorySize, simdGroupsAlongX * shape.localSize[1] * shape.localSize[2] *
                                          code->privateBytesPerSimdGroup);
    }
    return true;
  }
};

static_assert(kStorageReadSlackBytes >= kBufferReadSlackBytes,
              "buffers have the read slack work-group functions may use");

/// Whether a launch's stores stream past the caches. Only when its output, the buffers it
/// writes without reading them, is large, a quarter of the last-level cache (where glibc's
/// memcpy starts to use non-temporal stores: the cache is shared with other cores, and other
/// data of the application is in it too), and its buffers together do not fit in that cache: a
/// kernel launched again and again over data that fits (the steps of a bitonic sort over 16 MiB)
/// finds it in the cache the next time, unless its stores sent it to memory; it ran 2.3 times
/// slower with streaming stores. A buffer the kernel updates in place is no output: its reads
/// have brought the lines to the cache already, and streaming them out only evicts them (the
/// suite's fill update, 64 MiB updated in place, ran 0.8 times as fast on a 2-core Zen 4).
bool shouldStreamStores(const HostCpu &host, const LaunchBuffers &buffers) {
  uint64_t cache = host.lastLevelCacheBytes;
  return cache != 0 && buffers.outputBytes > cache / 4 && buffers.bytes > cache;
}

/// Whether a copy or fill streams past the caches: when it is larger than the last-level cache,
/// which cannot keep it anyway, so that its stores need not read each line first. Except fills
/// on AMD's cores, whose ordinary stores of whole lines from registers wrote as fast as
/// non-temporal ones or faster on a Zen 4 however large the fill (2 cores, 64 to 256 MiB:
/// 46-60 GB/s against 27-50), and leave what fits in the caches for the kernel after them (the
/// suite's fill update, 64 MiB filled then updated in place: 55-70 GB/s against 43-46). On a
/// 16-core Xeon, non-temporal stores filled 256 MiB at 104 GB/s, ordinary ones at 46-64.
bool shouldStreamTransfer(const HostCpu &host, const ByteTransfer &transfer) {
  uint64_t cache = host.lastLevelCacheBytes;
  bool isFill = transfer.source == nullptr;
  if (isFill && host.vendor == "AMD")
    return false;
  return cache != 0 && transfer.size > cache;
}

/// Makes the non-temporal stores of the work-groups this thread ran visible to the others
/// before their completion is reported: they are not ordered with later stores.
void fenceStreamingStores() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_sfence();
#endif
}

/// The job of `command`'s waiterTag (see ThreadPool::helpUntil): a thread waiting for a command
/// of the same queue may run it. No thread may when the application has asked for callbacks on
/// its event: they would run on that thread, inside its clFinish or clWaitForEvents, where a lock
/// the application holds around the wait would deadlock a callback that takes it.
const void *waiterTagOf(const Command &command) {
  const Event &event = command.event();
  return event.hasCallbacks() ? nullptr : event.queue();
}

/// An NDRange: one item per work-group.
class KernelLaunchJob final : public ParallelJob {
public:
  KernelLaunchJob(std::shared_ptr<Command> command, std::vector<WorkerScratch> &scratch,
                  const LaunchCode &code, size_t groupCount, size_t chunkSize,
                  size_t printfBufferSize)
      : ParallelJob(groupCount, chunkSize), command_(std::move(command)), scratch_(scratch),
        launch_(std::get<KernelLaunch>(command_->payload())),
        deviceKernel_(static_cast<const CpuKernel &>(*launch_.deviceKernel)), code_(code) {
    if (deviceKernel_.printfCalls() != nullptr) {
      printf_.emplace(allocateAligned(PrintfOutput::storageSize(printfBufferSize),
                                      PrintfOutput::kStorageAlignment),
                      printfBufferSize);
      params_.printfBuffer = printf_->buffer();
    }
    const NDRange &range = launch_.range;
    params_.args = launch_.arguments.block.data();
    params_.workDim = range.workDim;
    std::array<uint64_t, 3> groups = workGroupCounts(range);
    for (int dim = 0; dim < 3; ++dim) {
      params_.globalOffset[dim] = range.offset[dim];
      params_.globalSize[dim] = range.global[dim];
      params_.enqueuedLocalSize[dim] = range.local[dim];
      params_.numGroups[dim] = groups[dim];
    }
    params_.localMemorySize = launch_.arguments.localMemorySize;
    params_.privateMemorySize = code_.privateMemorySize;
  }

  void run(size_t begin, size_t end, unsigned worker) override {
    if (!started_.exchange(true))
      command_->markRunning();
    WorkerScratch &scratch = scratch_[worker];
    if (!WorkerScratch::reserve(scratch.localMemory, scratch.localCapacity,
                                std::max<size_t>(params_.localMemorySize, 1)) ||
        !WorkerScratch::reserve(scratch.privateMemory, scratch.privateCapacity,
                                std::max<size_t>(params_.privateMemorySize, 1))) {
      failed_.store(true);
      return;
    }
    const ThreadStack &stack = scratch.stack.current();
    WorkGroupParams group{};
    group.localMemory = scratch.localMemory.get();
    group.privateMemory = scratch.privateMemory.get();
    group.stackBase = stack.base;
    group.stackSize = stack.size;
    for (size_t linear = begin; linear < end; ++linear) {
      size_t rest = linear;
      unsigned edges = 0;
      for (int dim = 0; dim < 3; ++dim) {
        group.groupId[dim] = rest % params_.numGroups[dim];
        rest /= params_.numGroups[dim];
        uint64_t first = group.groupId[dim] * params_.enqueuedLocalSize[dim];
        group.localSize[dim] =
            std::min(params_.enqueuedLocalSize[dim], params_.globalSize[dim] - first);
        if (group.localSize[dim] != params_.enqueuedLocalSize[dim])
          edges |= 1u << dim;
      }
      code_.byEdges[edges]->function(&params_, &group);
    }
    if (code_.streamingStores)
      fenceStreamingStores();
  }

  const void *waiterTag() const override { return waiterTagOf(*command_); }

  void finished() override {
    // The output is flushed when the command completes, as the specification requires.
    if (printf_)
      printf_->write(*deviceKernel_.printfCalls());
    printf_.reset();
    command_->complete(failed_.load() ? CL_OUT_OF_RESOURCES : CL_COMPLETE);
  }

private:
  std::shared_ptr<Command> command_;
  std::vector<WorkerScratch> &scratch_;
  KernelLaunch &launch_;
  const CpuKernel &deviceKernel_;
  LaunchCode code_;
  std::optional<PrintfOutput> printf_; // for kernels that call printf
  LaunchParams params_{};
  std::atomic<bool> started_{false};
  std::atomic<bool> failed_{false};
};

/// Any other command (not a contiguous transfer): one item, run by one worker.
class HostCommandJob final : public ParallelJob {
public:
  explicit HostCommandJob(std::shared_ptr<Command> command)
      : ParallelJob(1, 1), command_(std::move(command)) {}

  void run(size_t, size_t, unsigned) override {
    command_->markRunning();
    status_ = executeHostCommand(command_->payload());
  }
  const void *waiterTag() const override { return waiterTagOf(*command_); }
  void finished() override { command_->complete(status_); }

private:
  std::shared_ptr<Command> command_;
  cl_int status_ = CL_COMPLETE;
};

/// A contiguous transfer (read, write, copy, fill, a map's copy). A large one is cut into pieces
/// that every free worker runs, since one core alone cannot saturate the memory's bandwidth.
class ByteTransferJob final : public ParallelJob {
public:
  /// Transfers at least this large are cut into pieces; below it, waking a second worker costs
  /// more than it saves.
  static constexpr size_t kMinimumBytes = size_t{1} << 20;
  static constexpr size_t kPieceBytes = size_t{256} << 10;
  static_assert(kPieceBytes % ByteTransfer::kPieceAlignment == 0);

  ByteTransferJob(std::shared_ptr<Command> command, const ByteTransfer &transfer, bool inPieces)
      : ParallelJob(inPieces ? (transfer.size + kPieceBytes - 1) / kPieceBytes : 1, 1),
        command_(std::move(command)), transfer_(transfer),
        pieceBytes_(inPieces ? kPieceBytes : transfer.size) {}

  void run(size_t begin, size_t end, unsigned) override {
    if (!started_.exchange(true))
      command_->markRunning();
    transfer_.runPiece(begin * pieceBytes_, std::min(transfer_.size, end * pieceBytes_));
  }
  const void *waiterTag() const override { return waiterTagOf(*command_); }
  void finished() override { command_->complete(CL_COMPLETE); }

private:
  std::shared_ptr<Command> command_;
  ByteTransfer transfer_;
  size_t pieceBytes_;
  std::atomic<bool> started_{false};
};

class CpuDriver final : public DeviceDriver {
public:
  /// A device with one compute unit (one worker) per entry of `unitCpus`, the logical CPU it
  /// runs on. `pinned`: the workers run only on those CPUs (a sub-device), else anywhere.
  CpuDriver(CodeGeneratorHandle<KernelJit> jitCompiler, const HostCpu &host,
            std::vector<int> unitCpus, bool pinned)
      : jitCompiler_(jitCompiler), host_(host), unitCpus_(std::move(unitCpus)), pinned_(pinned),
        info_(describeCpuDevice(host_, unitCpus_)), target_(compilerTargetOf(info_)) {}

  ~CpuDriver() override {
    // A sub-device's last reference may go in the completion of its last command, on one of its
    // own workers, and a pool cannot join the thread that destroys it: another thread does.
    // That worker only returns to the pool's loop, which it then leaves.
    if (pool_ != nullptr && pool_->isWorkerThread())
      std::thread([pool = std::move(pool_)] {}).detach();
  }

  const DeviceInfo &info() const override { return info_; }
  const compiler::TargetDescription &compilerTarget() const override { return target_; }

  std::unique_ptr<DeviceProgram> loadProgram(const compiler::Bitcode &module,
                                             const compiler::ProgramInfo &info, bool optimize,
                                             std::string &error) override {
    KernelJit *compiler = jitCompiler_.get(error);
    if (compiler == nullptr)
      return nullptr;
    PreparedProgram prepared;
    if (!compiler->prepare(module, info, optimize, prepared, error))
      return nullptr;
    return std::make_unique<CpuProgram>(jitCompiler_, std::move(prepared), info,
                                        info_.maxWorkGroupSize);
  }

  std::unique_ptr<DeviceProgram> loadSerializedProgram(std::span<const std::byte> bytes,
                                                       const compiler::Bitcode &,
                                                       const compiler::ProgramInfo &info,
                                                       bool optimize) override {
    std::optional<PreparedProgram> prepared = parsePreparedProgram(bytes, info.kernels.size());
    if (!prepared || prepared->optimize != optimize)
      return nullptr;
    return std::make_unique<CpuProgram>(jitCompiler_, std::move(*prepared), info,
                                        info_.maxWorkGroupSize);
  }

  /// The processor's features, which the code generator targets, and the switches that change
  /// the generated code (read at each build, like the code generator reads them).
  std::string codeIdentity() const override {
    std::string identity = host_.brand + "|" + host_.featureSignature;
    for (const SettingInfo &setting : allSettings())
      if (setting.changesCpuCode)
        identity += std::string("|") + std::string(setting.name) + "=" +
                    std::string(settingValue(setting.setting).value_or("(unset)"));
    return identity;
  }

  std::vector<std::vector<unsigned>>
  affinityGroups(cl_device_affinity_domain level) const override {
    std::vector<std::string> identities; // of each group, in order of their first unit
    std::vector<std::vector<unsigned>> groups;
    for (unsigned unit = 0; unit < unitCpus_.size(); ++unit) {
      std::optional<std::string> identity = sharingIdentity(unitCpus_[unit], level);
      if (!identity)
        return {};
      auto found = std::find(identities.begin(), identities.end(), *identity);
      if (found == identities.end()) {
        identities.push_back(*identity);
        groups.emplace_back();
        found = identities.end() - 1;
      }
      groups[found - identities.begin()].push_back(unit);
    }
    return groups;
  }

  std::unique_ptr<DeviceDriver> createSubDevice(std::span<const unsigned> units) const override {
    std::vector<int> cpus;
    for (unsigned unit : units) {
      if (unit >= unitCpus_.size())
        return nullptr;
      cpus.push_back(unitCpus_[unit]);
    }
    return std::make_unique<CpuDriver>(jitCompiler_, host_, std::move(cpus), true);
  }

  void submit(std::shared_ptr<Command> command) override {
    ThreadPool &workers = pool();
    if (auto *launch = std::get_if<KernelLaunch>(&command->payload())) {
      std::array<uint64_t, 3> perDimension = workGroupCounts(launch->range);
      size_t groups = perDimension[0] * perDimension[1] * perDimension[2];
      if (groups == 0) {
        command->complete(CL_COMPLETE);
        return;
      }
      LaunchCode code;
      std::string error;
      WorkGroupShape common;
      LaunchBuffers buffers = launchBuffersOf(*launch);
      common.streamingStores = shouldStreamStores(host_, buffers);
      common.buffersHaveReadSlack = buffers.haveReadSlack;
      if (!code.find(static_cast<const CpuKernel &>(*launch->deviceKernel), launch->range, common,
                     error)) {
        // The kernel was prepared at build, so this is rare: out of memory, or an internal
        // error of the code generator.
        command->complete(CL_OUT_OF_RESOURCES);
        return;
      }
      // Several chunks per worker balance uneven work-groups; not so many that claiming costs.
      size_t chunk = std::max<size_t>(1, groups / (size_t{workers.workerCount()} * 4));
      workers.submit(std::allocate_shared<KernelLaunchJob>(RecyclingAllocator<KernelLaunchJob>(),
                                                           std::move(command), scratch_, code,
                                                           groups, chunk, info_.printfBufferSize));
    } else if (std::optional<ByteTransfer> transfer = byteTransferOf(command->payload())) {
      bool inPieces = transfer->size >= ByteTransferJob::kMinimumBytes && workers.workerCount() > 1;
      transfer->streaming = shouldStreamTransfer(host_, *transfer);
      workers.submit(std::allocate_shared<ByteTransferJob>(
          RecyclingAllocator<ByteTransferJob>(), std::move(command), *transfer, inPieces));
    } else {
      workers.submit(std::allocate_shared<HostCommandJob>(RecyclingAllocator<HostCommandJob>(),
                                                          std::move(command)));
    }
  }

  void runReadyWorkWhileWaiting(const Event &waited) override {
    // Not a sub-device's: its commands run on its own cores only, and its last reference may go
    // with a command's completion, which must then not be on a thread inside its pool.
    if (!pinned_)
      pool().helpUntil(waited.queue(), [&] { return waited.isFinished(); });
  }

private:
  /// The workers start on the first command, not when the platform is discovered.
  ThreadPool &pool() {
    std::call_once(poolStarted_, [this] {
      scratch_.resize(unitCpus_.size() + 1); // the last for a waiting thread
      pool_ = std::make_unique<ThreadPool>(static_cast<unsigned>(unitCpus_.size()),
                                           pinned_ ? unitCpus_ : std::vector<int>{});
    });
    return *pool_;
  }

  CodeGeneratorHandle<KernelJit> jitCompiler_;
  HostCpu host_;
  std::vector<int> unitCpus_;
  bool pinned_;
  DeviceInfo info_;
  compiler::TargetDescription target_;
  std::once_flag poolStarted_;
  std::vector<WorkerScratch> scratch_;
  std::unique_ptr<ThreadPool> pool_;
};

} // namespace

std::vector<std::unique_ptr<DeviceDriver>> createCpuDrivers(CompilerLoader &compiler) {
  HostCpu host = detectHostCpu();
  // One compute unit per worker; with KILN_CPU_THREADS above the CPU count, units share CPUs.
  std::vector<int> allowed = allowedCpus();
  std::vector<int> unitCpus(workerCount(host));
  for (size_t unit = 0; unit < unitCpus.size(); ++unit)
    unitCpus[unit] = allowed[unit % allowed.size()];
  std::vector<std::unique_ptr<DeviceDriver>> drivers;
  drivers.push_back(std::make_unique<CpuDriver>(CodeGeneratorHandle<KernelJit>(compiler), host,
                                                std::move(unitCpus), false));
  return drivers;
}

} // namespace kiln::cpu
