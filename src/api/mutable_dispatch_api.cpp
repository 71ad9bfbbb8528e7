// cl_khr_command_buffer_mutable_dispatch: clUpdateMutableCommandsKHR and
// clGetMutableCommandInfoKHR. A mutable command keeps a copy of its kernel holding the command's
// arguments: an update sets arguments on a new copy through the entry points that check them
// (clSetKernelArg, clSetKernelArgSVMPointer, clSetKernelExecInfo), builds the launch as
// clEnqueueNDRangeKernel would, and only when every update of the call has succeeded replaces
// the commands, for the runs enqueued from then on.
#include "api/api_support.hpp"
#include "api/mutable_dispatch.hpp"
#include "api/recordable_commands.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/queue.hpp"

#include <algorithm>
#include <optional>

using namespace kiln;
using namespace kiln::api;

namespace {

/// One command's update within one call, before it is kept.
struct PendingUpdate {
  MutableCommand *command;
  KernelCopy arguments;
  DispatchSizes sizes;
  std::optional<KernelLaunch> launch; // none while arguments are still unset
};

bool isUniform(const NDRange &range) {
  for (cl_uint dim = 0; dim < range.workDim; ++dim)
    if (range.global[dim] % range.local[dim] != 0)
      return false;
  return true;
}

/// What `config` asks of a command in fields it may not change: CL_INVALID_OPERATION; a list
/// whose count and pointer disagree: CL_INVALID_VALUE.
cl_int checkConfigFields(const MutableDispatchConfig &config,
                         cl_mutable_dispatch_fields_khr updatable) {
  if ((config.global_work_offset != nullptr &&
       !(updatable & CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR)) ||
      (config.global_work_size != nullptr && !(updatable & CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR)) ||
      (config.local_work_size != nullptr && !(updatable & CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR)) ||
      ((config.num_args != 0 || config.num_svm_args != 0) &&
       !(updatable & CL_MUTABLE_DISPATCH_ARGUMENTS_KHR)) ||
      (config.num_exec_infos != 0 && !(updatable & CL_MUTABLE_DISPATCH_EXEC_INFO_KHR)))
    return CL_INVALID_OPERATION;
  if ((config.num_args == 0) != (config.arg_list == nullptr) ||
      (config.num_svm_args == 0) != (config.arg_svm_list == nullptr) ||
      (config.num_exec_infos == 0) != (config.exec_info_list == nullptr))
    return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

/// Sets the arguments and execution information `config` gives on `kernel`.
cl_int applyArguments(const MutableDispatchConfig &config, cl_kernel kernel) {
  for (cl_uint i = 0; i < config.num_args; ++i) {
    const cl_mutable_dispatch_arg_khr &arg = config.arg_list[i];
    if (cl_int error = clSetKernelArg(kernel, arg.arg_index, arg.arg_size, arg.arg_value))
      return error;
  }
  for (cl_uint i = 0; i < config.num_svm_args; ++i) {
    const cl_mutable_dispatch_arg_khr &arg = config.arg_svm_list[i];
    if (cl_int error = clSetKernelArgSVMPointer(kernel, arg.arg_index, arg.arg_value))
      return error;
  }
  for (cl_uint i = 0; i < config.num_exec_infos; ++i) {
    const cl_mutable_dispatch_exec_info_khr &info = config.exec_info_list[i];
    if (cl_int error =
            clSetKernelExecInfo(kernel, info.param_name, info.param_value_size, info.param_value))
      return error;
  }
  return CL_SUCCESS;
}

/// The sizes `config` gives over `sizes`.
void applySizes(const MutableDispatchConfig &config, DispatchSizes &sizes) {
  for (cl_uint dim = 0; dim < sizes.workDim; ++dim) {
    if (config.global_work_offset != nullptr)
      sizes.offset[dim] = config.global_work_offset[dim];
    if (config.global_work_size != nullptr)
      sizes.global[dim] = config.global_work_size[dim];
    if (config.local_work_size != nullptr)
      sizes.local[dim] = config.local_work_size[dim];
  }
  sizes.localGiven = sizes.localGiven || config.local_work_size != nullptr;
}

/// Checks and applies one config of a call to the command's state in `pending` (its state
/// before the call, or after this call's earlier configs for it).
cl_int applyConfig(const CommandBuffer &buffer, const MutableDispatchConfig &config,
                   std::vector<PendingUpdate> &pending) {
  auto *command = static_cast<MutableCommand *>(config.command);
  if (!MutableCommand::isObject(config.command) || !buffer.owns(*command))
    return CL_INVALID_MUTABLE_COMMAND_KHR;
  if (cl_int error = checkConfigFields(config, command->updatable()))
    return error;
  auto found = std::find_if(pending.begin(), pending.end(),
                            [&](const PendingUpdate &update) { return update.command == command; });
  if (found == pending.end()) {
    pending.push_back({command, KernelCopy(command->arguments()), command->sizes(), {}});
    found = pending.end() - 1;
  }
  PendingUpdate &update = *found;
  if (config.work_dim != 0 && config.work_dim != update.sizes.workDim)
    return CL_INVALID_OPERATION;
  if (cl_int error = applyArguments(config, update.arguments.get()))
    return error;
  DispatchSizes sizes = update.sizes;
  applySizes(config, sizes);
  update.sizes = sizes;
  if (!(*update.arguments).allArgsSet())
    return CL_SUCCESS; // the command can be built once a later update sets the rest
  KernelLaunch launch;
  if (cl_int error =
          buildLaunch(buffer.queue(), update.arguments.get(), sizes.workDim, sizes.offset.data(),
                      sizes.global.data(), sizes.localGiven ? sizes.local.data() : nullptr, launch))
    return error;
  const CommandPayload &recorded = buffer.commands()->commands[command->index()].payload;
  const auto *recordedLaunch = std::get_if<KernelLaunch>(&recorded);
  if (recordedLaunch != nullptr && isUniform(recordedLaunch->range) != isUniform(launch.range))
    return CL_INVALID_OPERATION;
  update.launch = std::move(launch);
  return CL_SUCCESS;
}

cl_int updateMutableCommands(cl_command_buffer_khr command_buffer, cl_uint num_configs,
                             const cl_uint *config_types, const void **configs) {
  CommandBuffer *buffer = toObject<CommandBuffer>(command_buffer);
  if (buffer == nullptr)
    return CL_INVALID_COMMAND_BUFFER_KHR;
  if (!buffer->isFinalized() || !buffer->isMutable())
    return CL_INVALID_OPERATION;
  if ((num_configs == 0) != (config_types == nullptr) || (num_configs == 0) != (configs == nullptr))
    return CL_INVALID_VALUE;
  return guard([&] {
    std::vector<PendingUpdate> pending;
    for (cl_uint i = 0; i < num_configs; ++i) {
      if (config_types[i] != kMutableDispatchConfigType || configs[i] == nullptr)
        return CL_INVALID_VALUE;
      if (cl_int error = applyConfig(
              *buffer, *static_cast<const MutableDispatchConfig *>(configs[i]), pending))
        return error;
    }
    std::vector<std::pair<size_t, CommandPayload>> replacements;
    for (PendingUpdate &update : pending) {
      bool complete = update.launch.has_value();
      if (complete)
        replacements.emplace_back(update.command->index(), std::move(*update.launch));
      update.command->update(std::move(update.arguments), update.sizes, complete);
    }
    buffer->replaceCommands(std::move(replacements));
    return CL_SUCCESS;
  });
}

cl_int getMutableCommandInfo(cl_mutable_command_khr command, cl_uint param_name,
                             size_t param_value_size, void *param_value,
                             size_t *param_value_size_ret) {
  if (!MutableCommand::isObject(command))
    return CL_INVALID_MUTABLE_COMMAND_KHR;
  auto &self = *static_cast<MutableCommand *>(command);
  const DispatchSizes &sizes = self.sizes();
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    switch (param_name) {
    case CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR:
      return out(static_cast<cl_command_queue>(&self.buffer().queue()));
    case CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR:
      return out(static_cast<cl_command_buffer_khr>(&self.buffer()));
    case CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR:
      return out(cl_command_type{CL_COMMAND_NDRANGE_KERNEL});
    case CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR:
      return out(self.properties());
    case CL_MUTABLE_DISPATCH_KERNEL_KHR:
      return out(static_cast<cl_kernel>(&self.kernel()));
    case CL_MUTABLE_DISPATCH_DIMENSIONS_KHR:
      return out(sizes.workDim);
    case CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR:
      return out(std::span<const size_t>(sizes.offset.data(), sizes.workDim));
    case CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR:
      return out(std::span<const size_t>(sizes.global.data(), sizes.workDim));
    case CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR:
      return out(std::span<const size_t>(sizes.local.data(), sizes.workDim));
    default:
      return CL_INVALID_VALUE;
    }
  });
}

} // namespace

namespace kiln::api {

MutableCommand &recordMutableCommand(CommandBuffer &buffer, size_t index, Kernel &kernel,
                                     cl_mutable_dispatch_fields_khr updatable,
                                     std::vector<cl_command_properties_khr> properties,
                                     bool awaitsArguments, cl_uint workDim, const size_t *offset,
                                     const size_t *global, const size_t *local) {
  DispatchSizes sizes;
  sizes.workDim = workDim;
  for (cl_uint dim = 0; dim < workDim; ++dim) {
    sizes.offset[dim] = offset != nullptr ? offset[dim] : 0;
    sizes.global[dim] = global != nullptr ? global[dim] : 0;
    // Zero where the application gave no local size (what the query reports then).
    sizes.local[dim] = local != nullptr ? local[dim] : 0;
  }
  sizes.localGiven = local != nullptr;
  return buffer.addMutableCommand(std::make_unique<MutableCommand>(
      buffer, index, kernel, updatable, std::move(properties), sizes, awaitsArguments));
}

void *mutableDispatchFunction(std::string_view name) {
  if (name == "clUpdateMutableCommandsKHR")
    return reinterpret_cast<void *>(&updateMutableCommands);
  if (name == "clGetMutableCommandInfoKHR")
    return reinterpret_cast<void *>(&getMutableCommandInfo);
  return nullptr;
}

} // namespace kiln::api
