#include "runtime/objects/program.hpp"

#include "compiler/compiler_library.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/device_info.hpp"
#include "runtime/objects/platform.hpp"
#include "runtime/program_cache/source_build_key.hpp"

#include <algorithm>

namespace kiln {

Program::Program(Context &context, std::string source)
    : context_(&context), devices_(context.devices()), source_(std::move(source)),
      origin_(Origin::Source) {
  for (Device *device : devices_)
    builds_[&device->root()];
}

Program::Program(Context &context, std::vector<uint8_t> il)
    : context_(&context), devices_(context.devices()), intermediate_(std::move(il)),
      origin_(Origin::Intermediate) {
  for (Device *device : devices_)
    builds_[&device->root()];
}

Program::Program(Context &context, Origin origin, const std::vector<Device *> &devices,
                 std::vector<DeviceBuild> builds)
    : context_(&context), devices_(devices), origin_(origin) {
  for (size_t index = 0; index < devices.size(); ++index)
    builds_[&devices[index]->root()] = std::move(builds[index]);
}

Program::~Program() = default;

void Program::setSpecializationConstant(uint32_t specId, std::vector<uint8_t> value) {
  std::lock_guard lock(mutex_);
  specializationValues_[specId] = std::move(value);
}

const Program::DeviceBuild &Program::buildFor(const Device *device) const {
  return builds_.at(&device->root());
}

Program::DeviceBuild &Program::buildFor(const Device *device) {
  return builds_.at(&device->root());
}

namespace {

/// The compiler library, or null with the reason appended to `log`.
compiler::Frontend *frontendOrLog(std::string &log) {
  std::string error;
  CompilerServices *services = Platform::get().compiler(error);
  if (services == nullptr) {
    log += "Kiln's compiler library could not be loaded: " + error + "\n";
    return nullptr;
  }
  return &services->frontend();
}

/// Appends `text` to `log` on a line of its own.
void appendLog(std::string &log, const std::string &text) {
  if (text.empty())
    return;
  log += text;
  if (log.back() != '\n')
    log += '\n';
}

/// Makes the device code of a linked executable. The build fails, with the reason in its log,
/// when the device's code generator cannot compile the program.
void loadExecutable(Device &device, Program::DeviceBuild &result) {
  std::string error;
  result.loaded = device.driver().loadProgram(result.module, result.info, result.optimize, error);
  if (result.loaded) {
    result.succeed(CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    return;
  }
  appendLog(result.log, "error: code generation failed: " + error);
}

/// Links the compiled `object` into an executable and makes its device code.
void linkExecutable(compiler::Frontend &frontend, Device &device,
                    const compiler::BuildOptions &parsed, const compiler::Bitcode &object,
                    Program::DeviceBuild &result) {
  const compiler::Bitcode *inputs[] = {&object};
  compiler::LinkResult link = frontend.link(inputs, parsed, device.driver().compilerTarget());
  appendLog(result.log, link.log);
  if (link.success) {
    result.module = std::move(link.module);
    result.info = std::move(link.info);
    loadExecutable(device, result);
  }
}

/// Fills `result` from the cache entry of `key`; false on a miss. With the entry's device code
/// when the device can load it, otherwise by making the device code from the cached module.
bool loadCached(ProgramCache &cache, const CacheKey &key, Device &device,
                Program::DeviceBuild &result) {
  std::optional<CachedProgram> cached = cache.load(key);
  if (!cached)
    return false;
  result.log = std::move(cached->log);
  result.module = std::move(cached->module);
  result.info = std::move(cached->info);
  if (!cached->deviceCode.empty())
    result.loaded = device.driver().loadSerializedProgram(cached->deviceCode, result.module,
                                                          result.info, result.optimize);
  if (result.loaded)
    result.succeed(CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  else
    loadExecutable(device, result);
  return true;
}

} // namespace

template <typename Step>
bool Program::forEachDevice(const std::vector<Device *> &devices, const std::string &options,
                            const compiler::BuildOptions &parsed, Step &&step) {
  bool allSucceeded = true;
  std::vector<const Device *> roots; // each partition tree builds once
  for (Device *device : devices) {
    if (std::find(roots.begin(), roots.end(), &device->root()) != roots.end())
      continue;
    roots.push_back(&device->root());
    DeviceBuild previous;
    {
      std::lock_guard lock(mutex_);
      DeviceBuild &build = buildFor(device);
      build.status = CL_BUILD_IN_PROGRESS;
      previous.binaryType = build.binaryType;
      previous.module = build.module;
      previous.info = build.info;
      previous.uniformWorkGroups = build.uniformWorkGroups;
    }
    // The front end runs without the lock: other threads may query the build meanwhile.
    DeviceBuild result;
    result.options = options;
    result.optimize = !parsed.optimizationsDisabled;
    // SPIR-V has no language version: its work-groups may be smaller at the edges unless the
    // options ask otherwise.
    result.uniformWorkGroups = origin_ == Origin::Intermediate ? parsed.uniformWorkGroupSize
                                                               : parsed.requiresUniformWorkGroups();
    result.status = CL_BUILD_ERROR;
    step(*device, previous, result);
    allSucceeded = allSucceeded && result.status == CL_BUILD_SUCCESS;
    std::lock_guard lock(mutex_);
    buildFor(device) = std::move(result);
  }
  return allSucceeded;
}

cl_int Program::build(const std::vector<Device *> &devices, const std::string &options,
                      const compiler::BuildOptions &parsed) {
  bool succeeded = forEachDevice(
      devices, options, parsed, [&](Device &device, DeviceBuild &previous, DeviceBuild &result) {
        if (isCompiledByKiln()) {
          buildFromSource(device, parsed, result);
          return;
        }
        if (previous.binaryType == CL_PROGRAM_BINARY_TYPE_EXECUTABLE) {
          // An executable binary needs no compiling: it only becomes this build's result.
          result.module = std::move(previous.module);
          result.info = std::move(previous.info);
          result.uniformWorkGroups = result.uniformWorkGroups || previous.uniformWorkGroups;
          loadExecutable(device, result);
          return;
        }
        compiler::Frontend *frontend = frontendOrLog(result.log);
        if (frontend != nullptr)
          linkExecutable(*frontend, device, parsed, previous.module, result);
      });
  return succeeded ? CL_SUCCESS : CL_BUILD_PROGRAM_FAILURE;
}

compiler::CompileResult
Program::compileInput(compiler::Frontend &frontend, Device &device,
                      const compiler::BuildOptions &parsed,
                      std::span<const compiler::SourceHeader> headers) const {
  const compiler::TargetDescription &target = device.driver().compilerTarget();
  if (origin_ == Origin::Source)
    return frontend.compile(source_, headers, parsed, target);
  compiler::SpecializationValues values;
  {
    std::lock_guard lock(mutex_);
    values = specializationValues_;
  }
  return frontend.compileIntermediate(intermediate_, values, parsed, target);
}

std::string Program::cacheInput() const {
  if (origin_ == Origin::Source)
    return source_;
  std::string input = "SPIR-V module\n";
  input.append(intermediate_.begin(), intermediate_.end());
  std::lock_guard lock(mutex_);
  for (const auto &[specId, value] : specializationValues_) {
    input += "\nspecialization constant " + std::to_string(specId) + ":";
    input.append(value.begin(), value.end());
  }
  return input;
}

void Program::buildFromSource(Device &device, const compiler::BuildOptions &parsed,
                              DeviceBuild &result) {
  Platform &platform = Platform::get();
  std::optional<CacheKey> key = sourceBuildKey(platform.buildIdentity(), cacheInput(),
                                               result.options, parsed, device.driver());
  if (key && loadCached(platform.programCache(), *key, device, result))
    return;
  compiler::Frontend *frontend = frontendOrLog(result.log);
  if (frontend == nullptr)
    return;
  compiler::CompileResult compile = compileInput(*frontend, device, parsed, {});
  appendLog(result.log, compile.log);
  if (!compile.success)
    return;
  linkExecutable(*frontend, device, parsed, compile.module, result);
  if (key && result.isExecutable())
    platform.programCache().store(
        *key, {result.log, result.module, result.info, result.loaded->serialize()});
}

cl_int Program::compile(const std::vector<Device *> &devices, const std::string &options,
                        const compiler::BuildOptions &parsed,
                        const std::vector<compiler::SourceHeader> &headers) {
  bool succeeded = forEachDevice(
      devices, options, parsed, [&](Device &device, DeviceBuild &, DeviceBuild &result) {
        compiler::Frontend *frontend = frontendOrLog(result.log);
        if (frontend == nullptr)
          return;
        compiler::CompileResult compile = compileInput(*frontend, device, parsed, headers);
        appendLog(result.log, compile.log);
        if (compile.success) {
          result.module = std::move(compile.module);
          result.succeed(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
        }
      });
  return succeeded ? CL_SUCCESS : CL_COMPILE_PROGRAM_FAILURE;
}

cl_int Program::link(const std::vector<Device *> &devices, const std::string &options,
                     const compiler::BuildOptions &parsed, const std::vector<Program *> &inputs) {
  bool succeeded = forEachDevice(
      devices, options, parsed, [&](Device &device, DeviceBuild &, DeviceBuild &result) {
        compiler::Frontend *frontend = frontendOrLog(result.log);
        if (frontend == nullptr)
          return;
        // Copies: the inputs may be rebuilt by other threads meanwhile. The link needs full
        // work-groups if the options or any input do.
        result.uniformWorkGroups = parsed.uniformWorkGroupSize;
        std::vector<compiler::Bitcode> modules;
        for (Program *input : inputs)
          modules.push_back(input->withBuild(&device, [&](const DeviceBuild &build) {
            result.uniformWorkGroups = result.uniformWorkGroups || build.uniformWorkGroups;
            return build.module;
          }));
        std::vector<const compiler::Bitcode *> modulePointers;
        for (const compiler::Bitcode &module : modules)
          modulePointers.push_back(&module);
        compiler::LinkResult link =
            frontend->link(modulePointers, parsed, device.driver().compilerTarget());
        appendLog(result.log, link.log);
        if (!link.success)
          return;
        result.module = std::move(link.module);
        result.info = std::move(link.info);
        if (parsed.createLibrary)
          result.succeed(CL_PROGRAM_BINARY_TYPE_LIBRARY);
        else
          loadExecutable(device, result);
      });
  return succeeded ? CL_SUCCESS : CL_LINK_PROGRAM_FAILURE;
}

bool Program::executableInfo(compiler::ProgramInfo &info) const {
  std::lock_guard lock(mutex_);
  for (const Device *device : devices_) {
    const DeviceBuild &build = buildFor(device);
    if (build.isExecutable()) {
      info = build.info;
      return true;
    }
  }
  return false;
}

bool Program::hasExecutable() const {
  compiler::ProgramInfo info;
  return executableInfo(info);
}

std::shared_ptr<const DeviceProgram> Program::deviceProgram(const Device &device) const {
  std::lock_guard lock(mutex_);
  const DeviceBuild &build = buildFor(&device);
  return build.isExecutable() ? build.loaded : nullptr;
}

} // namespace kiln
