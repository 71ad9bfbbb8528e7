// cl_mutable_command_khr: a kernel command of a mutable command buffer
// (cl_khr_command_buffer_mutable_dispatch), and what clUpdateMutableCommandsKHR may change of it.
// The command buffer owns it; it lives as long as the command buffer.
#pragma once

#include "runtime/objects/kernel.hpp"
#include "runtime/objects/object.hpp"
#include "support/command_buffer_khr.hpp"

#include <array>
#include <vector>

namespace kiln {

class CommandBuffer;

/// A kernel object only Kiln holds (the application's reference it was created with stays with
/// Kiln, so the API's argument checks accept its handle).
class KernelCopy {
public:
  explicit KernelCopy(const Kernel &source) : kernel_(createObject<Kernel>(source)) {}
  KernelCopy(KernelCopy &&other) noexcept : kernel_(std::exchange(other.kernel_, nullptr)) {}
  KernelCopy &operator=(KernelCopy &&other) noexcept {
    std::swap(kernel_, other.kernel_);
    return *this;
  }
  ~KernelCopy() {
    if (kernel_ != nullptr)
      kernel_->releaseExternal();
  }
  Kernel &operator*() const { return *kernel_; }
  Kernel *get() const { return kernel_; }

private:
  Kernel *kernel_;
};

/// The work sizes of a kernel command as the application gave them.
struct DispatchSizes {
  cl_uint workDim = 1;
  std::array<size_t, 3> offset{}, global{}, local{};
  bool localGiven = false; // else `local` is zeros and Kiln chooses the local size
};

class MutableCommand : public Object<_cl_mutable_command_khr, ObjectKind::MutableCommand> {
public:
  /// `awaitsArguments`: recorded before all its arguments were set (which updates then set).
  MutableCommand(CommandBuffer &buffer, size_t index, Kernel &kernel,
                 cl_mutable_dispatch_fields_khr updatable,
                 std::vector<cl_command_properties_khr> properties, DispatchSizes sizes,
                 bool awaitsArguments)
      : buffer_(buffer), index_(index), kernel_(&kernel), arguments_(kernel), updatable_(updatable),
        properties_(std::move(properties)), sizes_(sizes), awaitsArguments_(awaitsArguments) {}

  CommandBuffer &buffer() const { return buffer_; }
  /// Where the command is among the command buffer's.
  size_t index() const { return index_; }
  /// The kernel the command was recorded with (clGetMutableCommandInfoKHR).
  Kernel &kernel() const { return *kernel_; }
  /// A copy of the kernel holding the command's current arguments, which updates change.
  Kernel &arguments() const { return *arguments_; }
  cl_mutable_dispatch_fields_khr updatable() const { return updatable_; }
  const std::vector<cl_command_properties_khr> &properties() const { return properties_; }
  const DispatchSizes &sizes() const { return sizes_; }
  /// Whether some arguments are still unset: the command buffer cannot run yet.
  bool awaitsArguments() const { return awaitsArguments_; }

  /// An update's outcome: the arguments' new holder and the new sizes; `complete` when the
  /// command can run.
  void update(KernelCopy arguments, const DispatchSizes &sizes, bool complete) {
    arguments_ = std::move(arguments);
    sizes_ = sizes;
    awaitsArguments_ = awaitsArguments_ && !complete;
  }

private:
  CommandBuffer &buffer_;
  size_t index_;
  Ref<Kernel> kernel_;
  KernelCopy arguments_;
  cl_mutable_dispatch_fields_khr updatable_;
  std::vector<cl_command_properties_khr> properties_;
  DispatchSizes sizes_;
  bool awaitsArguments_;
};

} // namespace kiln
