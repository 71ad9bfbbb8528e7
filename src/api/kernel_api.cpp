// Kernel entry points.
#include "api/api_support.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/kernel.hpp"
#include "runtime/objects/memory.hpp"
#include "runtime/objects/program.hpp"
#include "runtime/objects/queue.hpp"
#include "runtime/objects/sampler.hpp"

#include <algorithm>

using namespace kiln;
using namespace kiln::api;

namespace {

/// Creates kernel `info` of `program` with the device code of every device that has an
/// executable (made when the program was built).
cl_kernel makeKernel(Program &program, const compiler::KernelInfo &info, cl_int &error) {
  std::map<const Device *, DeviceKernelCode> deviceKernels;
  if (!findDeviceKernels(program, info.name, deviceKernels)) {
    program.context().reportError("Kiln has no code for kernel '" + info.name +
                                  "' in the program built for this device");
    error = CL_OUT_OF_RESOURCES;
    return nullptr;
  }
  return createObject<Kernel>(program, info, std::move(deviceKernels));
}

/// Whether `image` may be given for the image argument `arg`: of the declared type, and
/// created for the access the argument's qualifier asks (a kernel may not write an image made
/// CL_MEM_READ_ONLY, nor read one made CL_MEM_WRITE_ONLY).
bool suitsImageArgument(const MemObject &image, const compiler::KernelArgInfo &arg) {
  static constexpr std::pair<const char *, cl_mem_object_type> kTypes[] = {
      {"image1d_t", CL_MEM_OBJECT_IMAGE1D},
      {"image1d_buffer_t", CL_MEM_OBJECT_IMAGE1D_BUFFER},
      {"image1d_array_t", CL_MEM_OBJECT_IMAGE1D_ARRAY},
      {"image2d_t", CL_MEM_OBJECT_IMAGE2D},
      {"image2d_depth_t", CL_MEM_OBJECT_IMAGE2D},
      {"image2d_array_t", CL_MEM_OBJECT_IMAGE2D_ARRAY},
      {"image2d_array_depth_t", CL_MEM_OBJECT_IMAGE2D_ARRAY},
      {"image3d_t", CL_MEM_OBJECT_IMAGE3D}};
  for (const auto &[name, type] : kTypes)
    if (arg.typeName == name && image.type() != type)
      return false;
  cl_mem_flags flags = image.flags();
  bool kernelReads = arg.accessQualifier != CL_KERNEL_ARG_ACCESS_WRITE_ONLY;
  bool kernelWrites = arg.accessQualifier != CL_KERNEL_ARG_ACCESS_READ_ONLY;
  return !(kernelReads && (flags & CL_MEM_WRITE_ONLY)) &&
         !(kernelWrites && (flags & CL_MEM_READ_ONLY));
}

} // namespace

KILN_API cl_kernel CL_API_CALL clCreateKernel(cl_program program, const char *kernel_name,
                                              cl_int *errcode_ret) {
  return guardCreate<cl_kernel>(errcode_ret, [&](cl_int &error) -> cl_kernel {
    Program *owner = toObject<Program>(program);
    if (owner == nullptr) {
      error = CL_INVALID_PROGRAM;
      return nullptr;
    }
    compiler::ProgramInfo info;
    if (!owner->executableInfo(info)) {
      error = CL_INVALID_PROGRAM_EXECUTABLE;
      return nullptr;
    }
    if (kernel_name == nullptr) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    auto found =
        std::find_if(info.kernels.begin(), info.kernels.end(), [&](const compiler::KernelInfo &k) {
          return k.name == kernel_name && !k.isEnqueuedBlock;
        });
    if (found == info.kernels.end()) {
      error = CL_INVALID_KERNEL_NAME;
      return nullptr;
    }
    return makeKernel(*owner, *found, error);
  });
}

KILN_API cl_int CL_API_CALL clCreateKernelsInProgram(cl_program program, cl_uint num_kernels,
                                                     cl_kernel *kernels, cl_uint *num_kernels_ret) {
  Program *owner = toObject<Program>(program);
  if (owner == nullptr)
    return CL_INVALID_PROGRAM;
  return guard([&] {
    compiler::ProgramInfo info;
    if (!owner->executableInfo(info))
      return CL_INVALID_PROGRAM_EXECUTABLE;
    std::vector<const compiler::KernelInfo *> listed = compiler::applicationKernels(info);
    if (kernels != nullptr && num_kernels < listed.size())
      return CL_INVALID_VALUE;
    if (kernels != nullptr) {
      std::vector<cl_kernel> created;
      for (const compiler::KernelInfo *kernel : listed) {
        cl_int error = CL_SUCCESS;
        cl_kernel handle = makeKernel(*owner, *kernel, error);
        if (handle == nullptr) {
          for (cl_kernel made : created)
            static_cast<Kernel *>(made)->releaseExternal();
          return error;
        }
        created.push_back(handle);
      }
      std::copy(created.begin(), created.end(), kernels);
    }
    if (num_kernels_ret != nullptr)
      *num_kernels_ret = static_cast<cl_uint>(listed.size());
    return CL_SUCCESS;
  });
}

KILN_API cl_kernel CL_API_CALL clCloneKernel(cl_kernel source_kernel, cl_int *errcode_ret) {
  return guardCreate<cl_kernel>(errcode_ret, [&](cl_int &error) -> cl_kernel {
    Kernel *source = toObject<Kernel>(source_kernel);
    if (source == nullptr) {
      error = CL_INVALID_KERNEL;
      return nullptr;
    }
    return createObject<Kernel>(*source);
  });
}

KILN_API cl_int CL_API_CALL clRetainKernel(cl_kernel kernel) {
  return retainObject<Kernel>(kernel, CL_INVALID_KERNEL);
}

KILN_API cl_int CL_API_CALL clReleaseKernel(cl_kernel kernel) {
  return releaseObject<Kernel>(kernel, CL_INVALID_KERNEL);
}

KILN_API cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                                           const void *arg_value) {
  Kernel *self = toObject<Kernel>(kernel);
  if (self == nullptr)
    return CL_INVALID_KERNEL;
  if (arg_index >= self->argCount())
    return CL_INVALID_ARG_INDEX;
  return guard([&] {
    const compiler::KernelArgInfo &arg = self->info().args[arg_index];
    switch (arg.kind) {
    case compiler::ArgKind::GlobalPointer:
    case compiler::ArgKind::ConstantPointer: {
      if (arg_size != sizeof(cl_mem))
        return CL_INVALID_ARG_SIZE;
      cl_mem handle = arg_value != nullptr ? *static_cast<const cl_mem *>(arg_value) : nullptr;
      if (handle == nullptr) { // a NULL buffer is a valid argument
        self->setMemObject(arg_index, nullptr);
        return CL_SUCCESS;
      }
      MemObject *memory = toObject<MemObject>(handle);
      if (memory == nullptr || memory->type() != CL_MEM_OBJECT_BUFFER ||
          &memory->context() != &self->program().context())
        return CL_INVALID_MEM_OBJECT;
      self->setMemObject(arg_index, memory);
      return CL_SUCCESS;
    }
    case compiler::ArgKind::LocalPointer:
      if (arg_value != nullptr)
        return CL_INVALID_ARG_VALUE;
      if (arg_size == 0)
        return CL_INVALID_ARG_SIZE;
      self->setLocalSize(arg_index, arg_size);
      return CL_SUCCESS;
    case compiler::ArgKind::Value:
      if (arg_size != arg.valueSize)
        return CL_INVALID_ARG_SIZE;
      if (arg_value == nullptr)
        return CL_INVALID_ARG_VALUE;
      self->setValue(arg_index, arg_value, arg_size);
      return CL_SUCCESS;
    case compiler::ArgKind::Sampler: {
      if (arg_size != sizeof(cl_sampler))
        return CL_INVALID_ARG_SIZE;
      Sampler *sampler = arg_value != nullptr
                             ? toObject<Sampler>(*static_cast<const cl_sampler *>(arg_value))
                             : nullptr;
      if (sampler == nullptr || &sampler->context() != &self->program().context())
        return CL_INVALID_SAMPLER;
      // A kernel's sampler is its CLK_* bits, in a pointer-sized slot.
      uint64_t bits = sampler->kernelBits();
      self->setValue(arg_index, &bits, sizeof bits);
      return CL_SUCCESS;
    }
    case compiler::ArgKind::Image: {
      if (arg_size != sizeof(cl_mem))
        return CL_INVALID_ARG_SIZE;
      MemObject *image = arg_value != nullptr
                             ? toObject<MemObject>(*static_cast<const cl_mem *>(arg_value))
                             : nullptr;
      if (image == nullptr || image->image() == nullptr ||
          &image->context() != &self->program().context())
        return CL_INVALID_MEM_OBJECT;
      if (!suitsImageArgument(*image, arg))
        return CL_INVALID_ARG_VALUE;
      self->setMemObject(arg_index, image);
      return CL_SUCCESS;
    }
    case compiler::ArgKind::Queue: {
      if (arg_size != sizeof(cl_command_queue))
        return CL_INVALID_ARG_SIZE;
      Queue *queue = arg_value != nullptr
                         ? toObject<Queue>(*static_cast<const cl_command_queue *>(arg_value))
                         : nullptr;
      if (queue == nullptr || !queue->isOnDevice() ||
          &queue->context() != &self->program().context())
        return CL_INVALID_DEVICE_QUEUE;
      // A kernel's queue_t is the queue's handle (DeviceQueues finds it again).
      uint64_t handle = deviceQueueHandle(*queue);
      self->setValue(arg_index, &handle, sizeof handle);
      return CL_SUCCESS;
    }
    case compiler::ArgKind::Pipe: {
      if (arg_size != sizeof(cl_mem))
        return CL_INVALID_ARG_SIZE;
      MemObject *pipe = arg_value != nullptr
                            ? toObject<MemObject>(*static_cast<const cl_mem *>(arg_value))
                            : nullptr;
      if (pipe == nullptr || &pipe->context() != &self->program().context())
        return CL_INVALID_MEM_OBJECT;
      if (pipe->pipe() == nullptr)
        return CL_INVALID_ARG_VALUE;
      self->setMemObject(arg_index, pipe);
      return CL_SUCCESS;
    }
    }
    return CL_INVALID_ARG_VALUE;
  });
}

KILN_API cl_int CL_API_CALL clSetKernelArgMemPointerINTEL(cl_kernel kernel, cl_uint arg_index,
                                                          const void *arg_value) {
  // A USM pointer is an SVM pointer: both live in the context's SVM allocations.
  return clSetKernelArgSVMPointer(kernel, arg_index, arg_value);
}

KILN_API cl_int CL_API_CALL clSetKernelArgSVMPointer(cl_kernel kernel, cl_uint arg_index,
                                                     const void *arg_value) {
  Kernel *self = toObject<Kernel>(kernel);
  if (self == nullptr)
    return CL_INVALID_KERNEL;
  if (self->program().context().svmCapabilities() == 0)
    return CL_INVALID_OPERATION;
  if (arg_index >= self->argCount())
    return CL_INVALID_ARG_INDEX;
  compiler::ArgKind kind = self->info().args[arg_index].kind;
  if (kind != compiler::ArgKind::GlobalPointer && kind != compiler::ArgKind::ConstantPointer)
    return CL_INVALID_ARG_VALUE;
  // Any address: a pointer into an SVM allocation, NULL, or (fine-grained system SVM) any
  // memory of the process.
  return guard([&] {
    self->setSvmPointer(arg_index, arg_value);
    return CL_SUCCESS;
  });
}

KILN_API cl_int CL_API_CALL clSetKernelExecInfo(cl_kernel kernel, cl_kernel_exec_info param_name,
                                                size_t param_value_size, const void *param_value) {
  Kernel *self = toObject<Kernel>(kernel);
  if (self == nullptr)
    return CL_INVALID_KERNEL;
  cl_device_svm_capabilities capabilities = self->program().context().svmCapabilities();
  switch (param_name) {
  case CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL:
  case CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL:
  case CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL: {
    if (param_value == nullptr || param_value_size != sizeof(cl_bool))
      return CL_INVALID_VALUE;
    SharedMemoryKind kind = param_name == CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL
                                ? SharedMemoryKind::UsmHost
                            : param_name == CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL
                                ? SharedMemoryKind::UsmDevice
                                : SharedMemoryKind::UsmShared;
    self->setIndirectUsmAccess(kind, *static_cast<const cl_bool *>(param_value) != CL_FALSE);
    return CL_SUCCESS;
  }
  case CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL:
  case CL_KERNEL_EXEC_INFO_SVM_PTRS: {
    // No pointers (size 0, NULL) forgets those named before.
    if (param_value_size % sizeof(void *) != 0 ||
        (param_value == nullptr) != (param_value_size == 0))
      return CL_INVALID_VALUE;
    if (capabilities == 0)
      return CL_INVALID_OPERATION;
    const auto *pointers = static_cast<void *const *>(param_value);
    return guard([&] {
      self->setIndirectSvmPointers(
          std::vector<const void *>(pointers, pointers + param_value_size / sizeof(void *)));
      return CL_SUCCESS;
    });
  }
  case CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM:
    if (param_value == nullptr || param_value_size != sizeof(cl_bool))
      return CL_INVALID_VALUE;
    // Devices with fine-grained system SVM reach every pointer of the process whatever the
    // kernel is told; the others cannot be told to.
    return *static_cast<const cl_bool *>(param_value) &&
                   !(capabilities & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM)
               ? CL_INVALID_OPERATION
               : CL_SUCCESS;
  default:
    return CL_INVALID_VALUE;
  }
}

KILN_API cl_int CL_API_CALL clGetKernelInfo(cl_kernel kernel, cl_kernel_info param_name,
                                            size_t param_value_size, void *param_value,
                                            size_t *param_value_size_ret) {
  Kernel *self = toObject<Kernel>(kernel);
  if (self == nullptr)
    return CL_INVALID_KERNEL;
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    switch (param_name) {
    case CL_KERNEL_FUNCTION_NAME:
      return out(self->name());
    case CL_KERNEL_NUM_ARGS:
      return out(self->argCount());
    case CL_KERNEL_REFERENCE_COUNT:
      return out(self->externalCount());
    case CL_KERNEL_CONTEXT:
      return out(static_cast<cl_context>(&self->program().context()));
    case CL_KERNEL_PROGRAM:
      return out(static_cast<cl_program>(&self->program()));
    case CL_KERNEL_ATTRIBUTES:
      return out(self->info().attributes);
    default:
      return CL_INVALID_VALUE;
    }
  });
}

KILN_API cl_int CL_API_CALL clGetKernelArgInfo(cl_kernel kernel, cl_uint arg_index,
                                               cl_kernel_arg_info param_name,
                                               size_t param_value_size, void *param_value,
                                               size_t *param_value_size_ret) {
  Kernel *self = toObject<Kernel>(kernel);
  if (self == nullptr)
    return CL_INVALID_KERNEL;
  if (arg_index >= self->argCount())
    return CL_INVALID_ARG_INDEX;
  compiler::ProgramInfo programInfo;
  self->program().executableInfo(programInfo);
  // The specification: argument information exists only for programs built from source with
  // -cl-kernel-arg-info.
  if (!programInfo.argInfoAvailable)
    return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    const compiler::KernelArgInfo &arg = self->info().args[arg_index];
    switch (param_name) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
      return out(arg.addressQualifier);
    case CL_KERNEL_ARG_ACCESS_QUALIFIER:
      return out(arg.accessQualifier);
    case CL_KERNEL_ARG_TYPE_NAME:
      return out(arg.typeName);
    case CL_KERNEL_ARG_TYPE_QUALIFIER:
      return out(arg.typeQualifier);
    case CL_KERNEL_ARG_NAME:
      return out(arg.name);
    default:
      return CL_INVALID_VALUE;
    }
  });
}

namespace {

/// The device a work-group query is about: NULL is allowed when the kernel has one device.
Device *queryDevice(const Kernel &kernel, cl_device_id device) {
  const std::vector<Device *> &devices = kernel.program().devices();
  if (device == nullptr)
    return devices.size() == 1 ? devices.front() : nullptr;
  Device *target = toObject<Device>(device);
  return std::find(devices.begin(), devices.end(), target) != devices.end() ? target : nullptr;
}

/// The kernel's code for the device a query is about, or the error the query returns.
const DeviceKernel *queriedCode(Kernel *kernel, cl_device_id device, cl_int &error) {
  if (kernel == nullptr) {
    error = CL_INVALID_KERNEL;
    return nullptr;
  }
  Device *target = queryDevice(*kernel, device);
  if (target == nullptr) {
    error = CL_INVALID_DEVICE;
    return nullptr;
  }
  const DeviceKernel *code = kernel->deviceKernel(target);
  if (code == nullptr)
    error = CL_INVALID_PROGRAM_EXECUTABLE;
  return code;
}

} // namespace

KILN_API cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
                                                     cl_kernel_work_group_info param_name,
                                                     size_t param_value_size, void *param_value,
                                                     size_t *param_value_size_ret) {
  Kernel *self = toObject<Kernel>(kernel);
  cl_int error = CL_SUCCESS;
  const DeviceKernel *code = queriedCode(self, device, error);
  if (code == nullptr)
    return error;
  Device *target = queryDevice(*self, device);
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    DeviceKernelInfo info = code->info();
    switch (param_name) {
    case CL_KERNEL_WORK_GROUP_SIZE:
      return out(info.maxWorkGroupSize);
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE:
      return out(self->info().requiredWorkGroupSize);
    case CL_KERNEL_LOCAL_MEM_SIZE:
      return out(static_cast<cl_ulong>(self->localMemorySize()) + info.workGroupScratchSize);
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
      return out(info.preferredWorkGroupSizeMultiple);
    case CL_KERNEL_PRIVATE_MEM_SIZE:
      return out(info.privateMemSize);
    case CL_KERNEL_SPILL_MEM_SIZE_INTEL:
      if (!target->info().hasExtension("cl_intel_required_subgroup_size"))
        return CL_INVALID_VALUE;
      return out(code->spillMemorySize());
    case CL_KERNEL_GLOBAL_WORK_SIZE:
      // Only for custom devices and built-in kernels, which Kiln does not have.
      return CL_INVALID_VALUE;
    default:
      return CL_INVALID_VALUE;
    }
  });
}

KILN_API cl_int CL_API_CALL clGetKernelSubGroupInfo(cl_kernel kernel, cl_device_id device,
                                                    cl_kernel_sub_group_info param_name,
                                                    size_t input_value_size,
                                                    const void *input_value,
                                                    size_t param_value_size, void *param_value,
                                                    size_t *param_value_size_ret) {
  Kernel *self = toObject<Kernel>(kernel);
  cl_int error = CL_SUCCESS;
  const DeviceKernel *code = queriedCode(self, device, error);
  if (code == nullptr)
    return error;
  Device *target = queryDevice(*self, device);
  if (target->info().maxNumSubGroups == 0)
    return CL_INVALID_OPERATION;
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    DeviceKernelInfo info = code->info();
    size_t width = info.subGroupSize;
    // The local size of an NDRange: 1 to 3 size_t.
    auto localItems = [&]() -> std::optional<size_t> {
      if (input_value == nullptr || input_value_size == 0 ||
          input_value_size % sizeof(size_t) != 0 || input_value_size > 3 * sizeof(size_t))
        return std::nullopt;
      const auto *sizes = static_cast<const size_t *>(input_value);
      size_t items = 1;
      for (size_t dim = 0; dim < input_value_size / sizeof(size_t); ++dim)
        items *= sizes[dim];
      return items;
    };
    switch (param_name) {
    case CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE:
      if (!localItems())
        return CL_INVALID_VALUE;
      return out(width);
    case CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE: {
      std::optional<size_t> items = localItems();
      if (!items)
        return CL_INVALID_VALUE;
      return out((*items + width - 1) / width);
    }
    case CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT: {
      if (input_value == nullptr || input_value_size != sizeof(size_t))
        return CL_INVALID_VALUE;
      size_t dims = param_value_size / sizeof(size_t);
      if (param_value != nullptr && (dims == 0 || dims > 3 || param_value_size % sizeof(size_t)))
        return CL_INVALID_VALUE;
      // count sub-groups of `width` along dimension 0; none fits beyond the kernel's limits.
      size_t count = *static_cast<const size_t *>(input_value);
      size_t items = count * width;
      bool fits = count != 0 && items / width == count && items <= info.maxWorkGroupSize &&
                  items <= target->info().maxWorkItemSizes[0];
      std::vector<size_t> local(std::max<size_t>(dims, 1), fits ? 1 : 0);
      local[0] = fits ? items : 0;
      if (param_value == nullptr) {
        if (param_value_size_ret != nullptr)
          *param_value_size_ret = param_value_size;
        return CL_SUCCESS;
      }
      return out(local);
    }
    case CL_KERNEL_MAX_NUM_SUB_GROUPS:
      return out((info.maxWorkGroupSize + width - 1) / width);
    case CL_KERNEL_COMPILE_NUM_SUB_GROUPS:
      return out(size_t{0}); // OpenCL C has no way to ask for a number of sub-groups
    case CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL:
      return out(static_cast<size_t>(self->info().requiredSubGroupSize));
    default:
      return CL_INVALID_VALUE;
    }
  });
}

KILN_API cl_int CL_API_CALL clGetKernelSubGroupInfoKHR(cl_kernel kernel, cl_device_id device,
                                                       cl_kernel_sub_group_info param_name,
                                                       size_t input_value_size,
                                                       const void *input_value,
                                                       size_t param_value_size, void *param_value,
                                                       size_t *param_value_size_ret) {
  return clGetKernelSubGroupInfo(kernel, device, param_name, input_value_size, input_value,
                                 param_value_size, param_value, param_value_size_ret);
}
