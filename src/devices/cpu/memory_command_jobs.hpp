//===- memory_command_jobs.hpp - Memory commands run by the CPU's workers --===//
//
// Every command but a kernel launch runs on host memory (runtime/scheduling/host_commands.hpp):
// a contiguous transfer is cut into pieces that every free worker runs, anything else is one
// item for one worker.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "devices/cpu/host_cpu.hpp"
#include "devices/cpu/thread_pool.hpp"
#include "devices/cpu/waiter_tag.hpp"
#include "runtime/scheduling/command.hpp"
#include "runtime/scheduling/host_commands.hpp"

#include <algorithm>
#include <atomic>
#include <memory>

namespace kiln::cpu {

/// Whether a copy or fill streams past the caches: when it is larger than the last-level cache,
/// which cannot keep it anyway, so that its stores need not read each line first. Except fills
/// on AMD's cores, whose ordinary stores of whole lines from registers wrote as fast as
/// non-temporal ones or faster on a Zen 4 however large the fill (2 cores, 64 to 256 MiB:
/// 46-60 GB/s against 27-50), and leave what fits in the caches for the kernel after them (the
/// suite's fill update, 64 MiB filled then updated in place: 55-70 GB/s against 43-46). On a
/// 16-core Xeon, non-temporal stores filled 256 MiB at 104 GB/s, ordinary ones at 46-64.
bool shouldStreamTransfer(const HostCpu &host, const ByteTransfer &transfer);

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

} // namespace kiln::cpu
