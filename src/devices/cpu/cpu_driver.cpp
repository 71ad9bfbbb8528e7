#include "devices/cpu/cpu_driver.hpp"

#include "devices/cpu/child_launches_job.hpp"
#include "devices/cpu/command_sequence.hpp"
#include "devices/cpu/cpu_device_info.hpp"
#include "devices/cpu/cpu_program.hpp"
#include "devices/cpu/cpu_topology.hpp"
#include "devices/cpu/host_cpu.hpp"
#include "devices/cpu/kernel_jit.hpp"
#include "devices/cpu/kernel_launch_job.hpp"
#include "devices/cpu/launch_buffers.hpp"
#include "devices/cpu/launch_image_formats.hpp"
#include "devices/cpu/memory_command_jobs.hpp"
#include "devices/cpu/prepared_program_serialization.hpp"
#include "devices/cpu/thread_pool.hpp"
#include "runtime/objects/compiler_loader.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/kiln_language.hpp"
#include "runtime/objects/program.hpp"
#include "runtime/scheduling/command.hpp"
#include "runtime/scheduling/host_commands.hpp"
#include "runtime/scheduling/work_group_grid.hpp"
#include "support/settings.hpp"

#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>

namespace kiln::cpu {
namespace {

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
    return host_.brand + "|" + host_.featureSignature +
           settingsIdentity(&SettingInfo::changesCpuCode);
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
    if (std::shared_ptr<ParallelJob> job = jobFor(std::move(command)))
      pool().submit(std::move(job));
  }

  std::unique_ptr<PreparedSequence> prepareSequence(const RecordedCommands &commands) override {
    auto prepared = std::make_unique<CpuPreparedSequence>();
    for (const RecordedCommand &recorded : commands.commands)
      prepared->steps.push_back(prepareStep(recorded.payload));
    return prepared;
  }

  void submitPrepared(const std::shared_ptr<Command> &command,
                      std::shared_ptr<const RecordedCommands> commands,
                      const PreparedSequence &prepared) override {
    auto sequence = std::make_shared<CommandSequence>(
        command, std::move(commands), static_cast<const CpuPreparedSequence &>(prepared), pool(),
        scratch_, [this](std::shared_ptr<Command> step) { return jobFor(std::move(step)); });
    sequence->start();
  }

  bool runsChildLaunches() const override { return true; }

  void runReadyWorkWhileWaiting(const Event &waited) override {
    // Not a sub-device's: its commands run on its own cores only, and its last reference may go
    // with a command's completion, which must then not be on a thread inside its pool.
    if (!pinned_)
      pool().helpUntil(waited.queue(), [&] { return waited.isFinished(); });
  }

private:
  /// The job of the pool that runs `command`; null when the command has completed already (an
  /// empty NDRange, a kernel that cannot be compiled).
  std::shared_ptr<ParallelJob> jobFor(std::shared_ptr<Command> command) {
    ThreadPool &workers = pool();
    if (auto *launch = std::get_if<KernelLaunch>(&command->payload())) {
      std::array<uint64_t, 3> perDimension = workGroupCounts(launch->range);
      size_t groups = perDimension[0] * perDimension[1] * perDimension[2];
      if (groups == 0) {
        command->complete(CL_COMPLETE);
        return nullptr;
      }
      LaunchCode code;
      if (!findLaunchCode(*launch, code)) {
        command->complete(CL_OUT_OF_RESOURCES);
        return nullptr;
      }
      size_t chunk = launchChunkSize(code, groups, workers.workerCount());
      return std::allocate_shared<KernelLaunchJob>(RecyclingAllocator<KernelLaunchJob>(),
                                                   std::move(command), scratch_, code, perDimension,
                                                   chunk, info_.printfBufferSize);
    }
    if (auto *batch = std::get_if<ChildLaunches>(&command->payload()))
      return childLaunchesJob(std::move(command), *batch);
    if (std::optional<ByteTransfer> transfer = byteTransferOf(command->payload())) {
      bool inPieces = transfer->size >= ByteTransferJob::kMinimumBytes && workers.workerCount() > 1;
      transfer->streaming = shouldStreamTransfer(host_, *transfer);
      return std::allocate_shared<ByteTransferJob>(RecyclingAllocator<ByteTransferJob>(),
                                                   std::move(command), *transfer, inPieces);
    }
    return std::allocate_shared<HostCommandJob>(RecyclingAllocator<HostCommandJob>(),
                                                std::move(command));
  }

  /// The job of a ChildLaunches command: every work-group of its launches; null when it has
  /// completed already (none has work-groups, one cannot be compiled).
  std::shared_ptr<ParallelJob> childLaunchesJob(std::shared_ptr<Command> command,
                                                const ChildLaunches &batch) {
    // Shaped as for a launch that names no buffers and no images, which a block kernel is.
    WorkGroupShape common;
    common.buffersHaveReadSlack = LaunchBuffers{}.haveReadSlack;
    std::vector<ChildLaunch> children;
    children.reserve(batch.children.size());
    for (const ChildLaunches::Child &child : batch.children) {
      ChildLaunch launch{&child, {}, workGroupCounts(child.range)};
      if (launch.groups[0] * launch.groups[1] * launch.groups[2] == 0)
        continue;
      // A recursive program's children are mostly one kernel over one range: the launch before
      // has the functions then. Block kernels name no memory objects, whose sizes and image
      // formats would choose others.
      const ChildLaunches::Child *previous = children.empty() ? nullptr : children.back().child;
      if (previous != nullptr && previous->deviceKernel == child.deviceKernel &&
          previous->range == child.range)
        launch.code = children.back().code;
      else if (!findCode(*child.kernel, *child.deviceKernel, child.range, common, launch.code)) {
        command->complete(CL_OUT_OF_RESOURCES);
        return nullptr;
      }
      children.push_back(std::move(launch));
    }
    if (children.empty()) {
      command->complete(CL_COMPLETE);
      return nullptr;
    }
    size_t chunk = childLaunchesChunkSize(children, pool().workerCount());
    return std::allocate_shared<ChildLaunchesJob>(RecyclingAllocator<ChildLaunchesJob>(),
                                                  std::move(command), scratch_, children, chunk,
                                                  info_.printfBufferSize);
  }

  /// The work-group functions `launch` runs with; false, with the error reported to the
  /// context, when one cannot be compiled.
  bool findLaunchCode(const KernelLaunch &launch, LaunchCode &code) {
    WorkGroupShape common;
    LaunchBuffers buffers = launchBuffersOf(launch);
    common.streamingStores = shouldStreamStores(host_, buffers);
    common.buffersHaveReadSlack = buffers.haveReadSlack;
    common.imageFormats = launchImageFormatsOf(launch);
    return findCode(*launch.kernel, *launch.deviceKernel, launch.range, common, code);
  }

  /// The work-group functions of `kernel` (`deviceKernel` on this device) over `range`, with
  /// `common` saying the rest of their shapes; false, with the error reported to the context,
  /// when one cannot be compiled.
  bool findCode(const Kernel &kernel, const DeviceKernel &deviceKernel, const NDRange &range,
                const WorkGroupShape &common, LaunchCode &code) {
    std::string error;
    if (code.find(static_cast<const CpuKernel &>(deviceKernel), range, common, error))
      return true;
    // The kernel was prepared at build, so this is rare: out of memory, or an internal error of
    // the code generator.
    kernel.program().context().reportError("Kiln could not compile kernel '" + kernel.name() +
                                           "': " + error);
    return false;
  }

  /// How a command buffer runs `payload`: a kernel that needs only its work-group functions
  /// (no printf, no kernels it enqueues) as a prepared launch, anything else as a command.
  PreparedStep prepareStep(const CommandPayload &payload) {
    PreparedStep step;
    const auto *launch = std::get_if<KernelLaunch>(&payload);
    if (launch == nullptr)
      return step;
    std::array<uint64_t, 3> perDimension = workGroupCounts(launch->range);
    size_t groups = perDimension[0] * perDimension[1] * perDimension[2];
    step.empty = groups == 0;
    const auto &kernel = static_cast<const CpuKernel &>(*launch->deviceKernel);
    LaunchCode code;
    if (step.empty || kernel.printfCalls() != nullptr || launch->kernel->info().usesDeviceEnqueue ||
        !findLaunchCode(*launch, code))
      return step;
    step.launch.emplace(*launch, code, perDimension);
    return step;
  }

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
