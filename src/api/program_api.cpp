// Program entry points: creation from source and binaries, build, compile, link, queries.
#include "api/api_support.hpp"
#include "compiler/build_options.hpp"
#include "compiler/compiler_library.hpp"
#include "compiler/program_binary.hpp"
#include "compiler/spirv_module.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/platform.hpp"
#include "runtime/objects/program.hpp"

#include <algorithm>

using namespace kiln;
using namespace kiln::api;

namespace {

using BuildCallback = void(CL_CALLBACK *)(cl_program, void *);

/// The devices a build-type call names: all of the program's when the list is empty.
cl_int selectDevices(const Program &program, cl_uint count, const cl_device_id *list,
                     std::vector<Device *> &devices) {
  if ((count == 0) != (list == nullptr))
    return CL_INVALID_VALUE;
  if (list == nullptr) {
    devices = program.devices();
    return CL_SUCCESS;
  }
  for (cl_uint index = 0; index < count; ++index) {
    Device *device = toObject<Device>(list[index]);
    const auto &known = program.devices();
    if (device == nullptr || std::find(known.begin(), known.end(), device) == known.end())
      return CL_INVALID_DEVICE;
    devices.push_back(device);
  }
  return CL_SUCCESS;
}

/// Devices of a context named by a list: CL_INVALID_DEVICE when one is not in the context.
cl_int contextDevices(const Context &context, cl_uint count, const cl_device_id *list,
                      std::vector<Device *> &devices) {
  if (list == nullptr)
    return count == 0 ? (devices = context.devices(), CL_SUCCESS) : CL_INVALID_VALUE;
  if (count == 0)
    return CL_INVALID_VALUE;
  for (cl_uint index = 0; index < count; ++index) {
    Device *device = toObject<Device>(list[index]);
    if (device == nullptr || !context.hasDevice(device))
      return CL_INVALID_DEVICE;
    devices.push_back(device);
  }
  return CL_SUCCESS;
}

/// Whether some of `devices` read SPIR-V at all (CL_DEVICE_ILS_WITH_VERSION not empty).
bool anyDeviceReadsIntermediate(const std::vector<Device *> &devices) {
  return std::ranges::any_of(
      devices, [](const Device *device) { return !device->info().ilsWithVersion.empty(); });
}

/// Whether `bytes` are a SPIR-V module of a version one of `devices` reads.
bool anyDeviceReads(const std::vector<Device *> &devices, std::span<const uint8_t> bytes) {
  std::string error;
  std::optional<compiler::SpirvModule> module = compiler::SpirvModule::read(bytes, error);
  if (!module)
    return false;
  return std::ranges::any_of(devices, [&](const Device *device) {
    return std::ranges::any_of(device->info().ilsWithVersion, [&](const NamedVersion &il) {
      return il.name == "SPIR-V" && il.version == module->clVersion();
    });
  });
}

bool anyBuildInProgress(const Program &program, const std::vector<Device *> &devices) {
  return std::any_of(devices.begin(), devices.end(), [&](Device *device) {
    return program.withBuild(device, [](const Program::DeviceBuild &build) {
      return build.status == CL_BUILD_IN_PROGRESS;
    });
  });
}

} // namespace

KILN_API cl_program CL_API_CALL clCreateProgramWithSource(cl_context context, cl_uint count,
                                                          const char **strings,
                                                          const size_t *lengths,
                                                          cl_int *errcode_ret) {
  return guardCreate<cl_program>(errcode_ret, [&](cl_int &error) -> cl_program {
    Context *owner = toObject<Context>(context);
    if (owner == nullptr) {
      error = CL_INVALID_CONTEXT;
      return nullptr;
    }
    if (count == 0 || strings == nullptr) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    std::string source;
    for (cl_uint index = 0; index < count; ++index) {
      if (strings[index] == nullptr) {
        error = CL_INVALID_VALUE;
        return nullptr;
      }
      // A zero (or absent) length means the string is NUL-terminated.
      if (lengths == nullptr || lengths[index] == 0)
        source += strings[index];
      else
        source.append(strings[index], lengths[index]);
    }
    return createObject<Program>(*owner, std::move(source));
  });
}

KILN_API cl_program CL_API_CALL clCreateProgramWithBinary(
    cl_context context, cl_uint num_devices, const cl_device_id *device_list, const size_t *lengths,
    const unsigned char **binaries, cl_int *binary_status, cl_int *errcode_ret) {
  return guardCreate<cl_program>(errcode_ret, [&](cl_int &error) -> cl_program {
    Context *owner = toObject<Context>(context);
    if (owner == nullptr) {
      error = CL_INVALID_CONTEXT;
      return nullptr;
    }
    std::vector<Device *> devices;
    if (device_list == nullptr || num_devices == 0) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    if ((error = contextDevices(*owner, num_devices, device_list, devices)) != CL_SUCCESS)
      return nullptr;
    if (lengths == nullptr || binaries == nullptr) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    std::vector<Program::DeviceBuild> builds(num_devices);
    for (cl_uint index = 0; index < num_devices; ++index) {
      cl_int status = CL_SUCCESS;
      if (lengths[index] == 0 || binaries[index] == nullptr) {
        status = CL_INVALID_VALUE;
      } else {
        auto parsed = compiler::parseProgramBinary({binaries[index], lengths[index]});
        const compiler::TargetDescription &target = devices[index]->driver().compilerTarget();
        if (!parsed || parsed->target != target.triple) {
          status = CL_INVALID_BINARY;
        } else {
          Program::DeviceBuild &build = builds[index];
          build.binaryType = parsed->type;
          build.options = parsed->options;
          build.module = std::move(parsed->module);
          compiler::BuildOptions options;
          if (compiler::parseBuildOptions(build.options, compiler::OptionsUse::Build, options)
                  .empty())
            build.uniformWorkGroups = options.requiresUniformWorkGroups();
          // The bitcode is checked now, so a damaged binary is reported here, not at build.
          std::string loadError;
          CompilerServices *services = Platform::get().compiler(loadError);
          bool executable = build.binaryType == CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
          if (services == nullptr ||
              !services->frontend().inspect(build.module, executable, build.info).empty())
            status = CL_INVALID_BINARY;
          build.info.argInfoAvailable = false; // only for programs built from source
        }
      }
      if (binary_status != nullptr)
        binary_status[index] = status;
      if (status != CL_SUCCESS && error == CL_SUCCESS)
        error = status;
    }
    if (error != CL_SUCCESS)
      return nullptr;
    return createObject<Program>(*owner, Program::Origin::Binary, devices, std::move(builds));
  });
}

KILN_API cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(cl_context context,
                                                                  cl_uint num_devices,
                                                                  const cl_device_id *device_list,
                                                                  const char *kernel_names,
                                                                  cl_int *errcode_ret) {
  return guardCreate<cl_program>(errcode_ret, [&](cl_int &error) -> cl_program {
    Context *owner = toObject<Context>(context);
    if (owner == nullptr) {
      error = CL_INVALID_CONTEXT;
      return nullptr;
    }
    std::vector<Device *> devices;
    if (device_list == nullptr || num_devices == 0 || kernel_names == nullptr) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    if ((error = contextDevices(*owner, num_devices, device_list, devices)) != CL_SUCCESS)
      return nullptr;
    // No Kiln device has built-in kernels, so no name can be one of them.
    error = CL_INVALID_VALUE;
    return nullptr;
  });
}

KILN_API cl_program CL_API_CALL clCreateProgramWithIL(cl_context context, const void *il,
                                                      size_t length, cl_int *errcode_ret) {
  return guardCreate<cl_program>(errcode_ret, [&](cl_int &error) -> cl_program {
    Context *owner = toObject<Context>(context);
    if (owner == nullptr) {
      error = CL_INVALID_CONTEXT;
      return nullptr;
    }
    if (!anyDeviceReadsIntermediate(owner->devices())) {
      error = CL_INVALID_OPERATION;
      return nullptr;
    }
    if (il == nullptr || length == 0) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    // A module no device of the context reads is not IL the implementation recognizes.
    std::span<const uint8_t> bytes(static_cast<const uint8_t *>(il), length);
    if (!anyDeviceReads(owner->devices(), bytes)) {
      error = CL_INVALID_VALUE;
      return nullptr;
    }
    return createObject<Program>(*owner, std::vector<uint8_t>(bytes.begin(), bytes.end()));
  });
}

KILN_API cl_program CL_API_CALL clCreateProgramWithILKHR(cl_context context, const void *il,
                                                         size_t length, cl_int *errcode_ret) {
  return clCreateProgramWithIL(context, il, length, errcode_ret);
}

KILN_API cl_int CL_API_CALL clRetainProgram(cl_program program) {
  return retainObject<Program>(program, CL_INVALID_PROGRAM);
}

KILN_API cl_int CL_API_CALL clReleaseProgram(cl_program program) {
  return releaseObject<Program>(program, CL_INVALID_PROGRAM);
}

KILN_API cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint num_devices,
                                           const cl_device_id *device_list, const char *options,
                                           BuildCallback pfn_notify, void *user_data) {
  Program *self = toObject<Program>(program);
  if (self == nullptr)
    return CL_INVALID_PROGRAM;
  return guard([&] {
    std::vector<Device *> devices;
    if (cl_int error = selectDevices(*self, num_devices, device_list, devices))
      return error;
    if (pfn_notify == nullptr && user_data != nullptr)
      return CL_INVALID_VALUE;
    // Only source, IL and binary programs are built; a linked program already is.
    if (self->origin() == Program::Origin::Link)
      return CL_INVALID_OPERATION;
    if (self->origin() == Program::Origin::Binary)
      for (Device *device : devices)
        if (self->withBuild(device,
                            [](const Program::DeviceBuild &build) { return build.module.empty(); }))
          return CL_INVALID_BINARY;
    std::string optionText = options != nullptr ? options : "";
    compiler::BuildOptions parsed;
    if (!compiler::parseBuildOptions(optionText, compiler::OptionsUse::Build, parsed).empty())
      return CL_INVALID_BUILD_OPTIONS;
    if (self->hasKernels() || anyBuildInProgress(*self, devices))
      return CL_INVALID_OPERATION;
    cl_int result = self->build(devices, optionText, parsed);
    // Builds are synchronous: the notification comes before the call returns.
    if (pfn_notify != nullptr)
      pfn_notify(program, user_data);
    return result;
  });
}

KILN_API cl_int CL_API_CALL clCompileProgram(cl_program program, cl_uint num_devices,
                                             const cl_device_id *device_list, const char *options,
                                             cl_uint num_input_headers,
                                             const cl_program *input_headers,
                                             const char **header_include_names,
                                             BuildCallback pfn_notify, void *user_data) {
  Program *self = toObject<Program>(program);
  if (self == nullptr)
    return CL_INVALID_PROGRAM;
  return guard([&] {
    std::vector<Device *> devices;
    if (cl_int error = selectDevices(*self, num_devices, device_list, devices))
      return error;
    if ((num_input_headers == 0) != (input_headers == nullptr) ||
        (num_input_headers == 0) != (header_include_names == nullptr) ||
        (pfn_notify == nullptr && user_data != nullptr))
      return CL_INVALID_VALUE;
    std::vector<compiler::SourceHeader> headers;
    for (cl_uint index = 0; index < num_input_headers; ++index) {
      Program *header = toObject<Program>(input_headers[index]);
      if (header == nullptr)
        return CL_INVALID_PROGRAM;
      if (header_include_names[index] == nullptr)
        return CL_INVALID_VALUE;
      headers.push_back({header_include_names[index], header->source()});
    }
    if (!self->isCompiledByKiln())
      return CL_INVALID_OPERATION;
    std::string optionText = options != nullptr ? options : "";
    compiler::BuildOptions parsed;
    if (!compiler::parseBuildOptions(optionText, compiler::OptionsUse::Compile, parsed).empty())
      return CL_INVALID_COMPILER_OPTIONS;
    if (self->hasKernels() || anyBuildInProgress(*self, devices))
      return CL_INVALID_OPERATION;
    cl_int result = self->compile(devices, optionText, parsed, headers);
    if (pfn_notify != nullptr)
      pfn_notify(program, user_data);
    return result;
  });
}

KILN_API cl_program CL_API_CALL clLinkProgram(cl_context context, cl_uint num_devices,
                                              const cl_device_id *device_list, const char *options,
                                              cl_uint num_input_programs,
                                              const cl_program *input_programs,
                                              BuildCallback pfn_notify, void *user_data,
                                              cl_int *errcode_ret) {
  cl_int error = CL_SUCCESS;
  cl_program linked = nullptr;
  try {
    Context *owner = toObject<Context>(context);
    std::vector<Device *> devices;
    std::vector<Program *> inputs;
    compiler::BuildOptions parsed;
    std::string optionText = options != nullptr ? options : "";
    if (owner == nullptr)
      error = CL_INVALID_CONTEXT;
    else if ((error = contextDevices(*owner, num_devices, device_list, devices)) != CL_SUCCESS)
      ;
    else if (num_input_programs == 0 || input_programs == nullptr ||
             (pfn_notify == nullptr && user_data != nullptr))
      error = CL_INVALID_VALUE;
    for (cl_uint index = 0; error == CL_SUCCESS && index < num_input_programs; ++index) {
      Program *input = toObject<Program>(input_programs[index]);
      if (input == nullptr || &input->context() != owner) {
        error = CL_INVALID_PROGRAM;
        break;
      }
      inputs.push_back(input);
    }
    // Every input must be a compiled object or a library for every device of the link.
    for (Program *input : inputs)
      for (Device *device : devices)
        if (error == CL_SUCCESS && !input->withBuild(device, [](const Program::DeviceBuild &build) {
              // Programs created from binaries have their module but no build yet.
              bool usable = build.status == CL_BUILD_SUCCESS ||
                            (build.status == CL_BUILD_NONE && !build.module.empty());
              return usable && (build.binaryType == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT ||
                                build.binaryType == CL_PROGRAM_BINARY_TYPE_LIBRARY);
            }))
          error = CL_INVALID_OPERATION;
    if (error == CL_SUCCESS &&
        !compiler::parseBuildOptions(optionText, compiler::OptionsUse::Link, parsed).empty())
      error = CL_INVALID_LINKER_OPTIONS;
    if (error == CL_SUCCESS) {
      Program *program = createObject<Program>(*owner, Program::Origin::Link, devices,
                                               std::vector<Program::DeviceBuild>(devices.size()));
      linked = program;
      // A failed link still returns the program, so that its build log can be read.
      error = program->link(devices, optionText, parsed, inputs);
      if (pfn_notify != nullptr)
        pfn_notify(linked, user_data);
    }
  } catch (const std::bad_alloc &) {
    error = CL_OUT_OF_HOST_MEMORY;
  } catch (...) {
    error = CL_OUT_OF_RESOURCES;
  }
  if (errcode_ret != nullptr)
    *errcode_ret = error;
  return linked;
}

KILN_API cl_int CL_API_CALL clSetProgramReleaseCallback(cl_program program,
                                                        BuildCallback pfn_notify, void *user_data) {
  // Deprecated in OpenCL 3.0 and only meaningful with global constructors/destructors, which
  // OpenCL C programs do not have.
  if (toObject<Program>(program) == nullptr)
    return CL_INVALID_PROGRAM;
  return CL_INVALID_OPERATION;
}

KILN_API cl_int CL_API_CALL clSetProgramSpecializationConstant(cl_program program, cl_uint spec_id,
                                                               size_t spec_size,
                                                               const void *spec_value) {
  Program *self = toObject<Program>(program);
  if (self == nullptr)
    return CL_INVALID_PROGRAM;
  return guard([&] {
    if (!anyDeviceReadsIntermediate(self->devices()))
      return CL_INVALID_OPERATION;
    if (self->origin() != Program::Origin::Intermediate)
      return CL_INVALID_PROGRAM;
    std::string error;
    std::optional<compiler::SpirvModule> module =
        compiler::SpirvModule::read(self->intermediate(), error);
    std::vector<compiler::SpecializationConstant> constants =
        module ? module->specializationConstants()
               : std::vector<compiler::SpecializationConstant>{};
    auto constant =
        std::ranges::find(constants, spec_id, &compiler::SpecializationConstant::specId);
    if (constant == constants.end())
      return CL_INVALID_SPEC_ID;
    if (spec_value == nullptr || spec_size != constant->size)
      return CL_INVALID_VALUE;
    const auto *bytes = static_cast<const uint8_t *>(spec_value);
    self->setSpecializationConstant(spec_id, std::vector<uint8_t>(bytes, bytes + spec_size));
    return CL_SUCCESS;
  });
}

namespace {

/// The serialized binary of one device's build (empty when there is none).
std::vector<uint8_t> deviceBinary(const Program &program, const Device *device) {
  return program.withBuild(device, [&](const Program::DeviceBuild &build) {
    if (build.module.empty() || build.binaryType == CL_PROGRAM_BINARY_TYPE_NONE ||
        build.status == CL_BUILD_ERROR || build.status == CL_BUILD_IN_PROGRESS)
      return std::vector<uint8_t>{};
    compiler::ProgramBinary binary{build.binaryType, device->driver().compilerTarget().triple,
                                   build.options, build.module};
    return compiler::serializeProgramBinary(binary);
  });
}

std::string kernelNames(const compiler::ProgramInfo &info) {
  std::string names;
  for (const compiler::KernelInfo *kernel : compiler::applicationKernels(info)) {
    if (!names.empty())
      names += ';';
    names += kernel->name;
  }
  return names;
}

} // namespace

KILN_API cl_int CL_API_CALL clGetProgramInfo(cl_program program, cl_program_info param_name,
                                             size_t param_value_size, void *param_value,
                                             size_t *param_value_size_ret) {
  Program *self = toObject<Program>(program);
  if (self == nullptr)
    return CL_INVALID_PROGRAM;
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    const std::vector<Device *> &devices = self->devices();
    switch (param_name) {
    case CL_PROGRAM_REFERENCE_COUNT:
      return out(self->externalCount());
    case CL_PROGRAM_CONTEXT:
      return out(static_cast<cl_context>(&self->context()));
    case CL_PROGRAM_NUM_DEVICES:
      return out(static_cast<cl_uint>(devices.size()));
    case CL_PROGRAM_DEVICES:
      return out(std::vector<cl_device_id>(devices.begin(), devices.end()));
    case CL_PROGRAM_SOURCE:
      return out(self->source());
    case CL_PROGRAM_IL:
      return out.bytes(self->intermediate().data(), self->intermediate().size());
    case CL_PROGRAM_BINARY_SIZES: {
      std::vector<size_t> sizes;
      for (Device *device : devices)
        sizes.push_back(deviceBinary(*self, device).size());
      return out(sizes);
    }
    case CL_PROGRAM_BINARIES: {
      size_t needed = devices.size() * sizeof(unsigned char *);
      if (param_value != nullptr) {
        if (param_value_size < needed)
          return CL_INVALID_VALUE;
        auto **targets = static_cast<unsigned char **>(param_value);
        for (size_t index = 0; index < devices.size(); ++index)
          if (targets[index] != nullptr) {
            std::vector<uint8_t> binary = deviceBinary(*self, devices[index]);
            std::copy(binary.begin(), binary.end(), targets[index]);
          }
      }
      if (param_value_size_ret != nullptr)
        *param_value_size_ret = needed;
      return CL_SUCCESS;
    }
    case CL_PROGRAM_NUM_KERNELS:
    case CL_PROGRAM_KERNEL_NAMES:
    case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
    case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT: {
      compiler::ProgramInfo info;
      if (!self->executableInfo(info))
        return CL_INVALID_PROGRAM_EXECUTABLE;
      if (param_name == CL_PROGRAM_NUM_KERNELS)
        return out(compiler::applicationKernels(info).size());
      if (param_name == CL_PROGRAM_KERNEL_NAMES)
        return out(kernelNames(info));
      return out.boolean(false); // OpenCL C has no program-scope constructors or destructors
    }
    default:
      return CL_INVALID_VALUE;
    }
  });
}

KILN_API cl_int CL_API_CALL clGetProgramBuildInfo(cl_program program, cl_device_id device,
                                                  cl_program_build_info param_name,
                                                  size_t param_value_size, void *param_value,
                                                  size_t *param_value_size_ret) {
  Program *self = toObject<Program>(program);
  if (self == nullptr)
    return CL_INVALID_PROGRAM;
  Device *target = toObject<Device>(device);
  const auto &devices = self->devices();
  if (target == nullptr || std::find(devices.begin(), devices.end(), target) == devices.end())
    return CL_INVALID_DEVICE;
  return guard([&]() -> cl_int {
    InfoOutput out(param_value_size, param_value, param_value_size_ret);
    return self->withBuild(target, [&](const Program::DeviceBuild &build) -> cl_int {
      switch (param_name) {
      case CL_PROGRAM_BUILD_STATUS:
        return out(build.status);
      // Before any build (a program from binaries), both are empty strings.
      case CL_PROGRAM_BUILD_OPTIONS:
        return out(build.status == CL_BUILD_NONE ? std::string() : build.options);
      case CL_PROGRAM_BUILD_LOG:
        return out(build.status == CL_BUILD_NONE ? std::string() : build.log);
      case CL_PROGRAM_BINARY_TYPE:
        return out(build.binaryType);
      case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE:
        return out(build.info.globalVariableTotalSize);
      default:
        return CL_INVALID_VALUE;
      }
    });
  });
}
