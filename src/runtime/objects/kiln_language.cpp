#include "runtime/objects/kiln_language.hpp"

#include "runtime/objects/extension_table.hpp"
#include "support/spirv_translator.hpp"

#include <algorithm>

namespace kiln {
namespace {

/// Adds the rows of the extension table that `info`'s type of device offers, with or without
/// image support as `images` says.
void addOfferedNames(DeviceInfo &info, bool images) {
  bool readsIl = spirvTranslatorPath().has_value();
  for (const OfferedName &offered : kOfferedNames) {
    if ((offered.devices & info.type) == 0 || offered.needsImages != images ||
        (offered.needsIl && !readsIl))
      continue;
    (offered.kind == OfferedKind::Extension ? info.extensions : info.openclCFeatures)
        .push_back({std::string(offered.name), offered.version});
  }
}

/// Pipes are the builtin library's (pipes.cl) on any device: a reservation is a range of
/// positions, nothing the device keeps, so active reservations are limited only by the
/// counters' range; packets are copied byte by byte, so their size only bounds the copies.
void describePipes(DeviceInfo &info) {
  info.pipeSupport = info.hasFeature("__opencl_c_pipes");
  if (!info.pipeSupport)
    return;
  info.maxPipeArgs = 16;
  info.pipeMaxActiveReservations = 65536;
  info.pipeMaxPacketSize = 1024;
}

} // namespace

void describeKilnImages(DeviceInfo &info) {
  info.imageSupport = true;
  info.maxReadImageArgs = 128;
  info.maxWriteImageArgs = 64;
  info.maxReadWriteImageArgs = 64;
  info.maxSamplers = 16;
  info.image2dMaxWidth = info.image2dMaxHeight = 16384;
  info.image3dMaxWidth = info.image3dMaxHeight = info.image3dMaxDepth = 2048;
  info.imageMaxArraySize = 2048;
  // In elements; the largest element is 16 bytes.
  info.imageMaxBufferSize = std::min<cl_ulong>(info.maxMemAllocSize / 16, size_t{1} << 27);
  info.imagePitchAlignment = 1;       // pixels
  info.imageBaseAddressAlignment = 4; // bytes: element accesses need no more
  addOfferedNames(info, /*images=*/true);
}

void describeKilnLanguage(DeviceInfo &info) {
  info.openclCVersion = "OpenCL C 1.2 Kiln";
  info.openclCAllVersions = {{"OpenCL C", makeVersion(1, 0)},
                             {"OpenCL C", makeVersion(1, 1)},
                             {"OpenCL C", makeVersion(1, 2)},
                             {"OpenCL C", makeVersion(3, 0)}};
  addOfferedNames(info, /*images=*/false);
  // SPIR-V, read by the Khronos translator (compiler/llvm/spirv_reader.hpp), whose LLVM 15 reads
  // up to 1.4: where this machine has one.
  if (spirvTranslatorPath())
    for (cl_uint minor = 0; minor <= 4; ++minor)
      info.ilsWithVersion.push_back({"SPIR-V", makeVersion(1, minor)});
  // OpenCL C 2.0 asks for every 2.0 feature; a device offering the two that are optional
  // longest (pipes and device-side enqueue) has them all. CL_DEVICE_OPENCL_C_VERSION stays the
  // highest version 3.0 is backwards compatible with.
  if (info.hasFeature("__opencl_c_pipes") && info.hasFeature("__opencl_c_device_enqueue") &&
      info.hasFeature("__opencl_c_generic_address_space") &&
      info.hasFeature("__opencl_c_work_group_collective_functions"))
    info.openclCAllVersions.insert(info.openclCAllVersions.end() - 1,
                                   {"OpenCL C", makeVersion(2, 0)});
  info.workGroupCollectiveFunctionsSupport =
      info.hasFeature("__opencl_c_work_group_collective_functions");
  info.genericAddressSpaceSupport = true;
  describePipes(info);
  info.nonUniformWorkGroupSupport = true;
  cl_device_atomic_capabilities orders = CL_DEVICE_ATOMIC_ORDER_RELAXED |
                                         CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                                         CL_DEVICE_ATOMIC_ORDER_SEQ_CST;
  cl_device_atomic_capabilities scopes = CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
                                         CL_DEVICE_ATOMIC_SCOPE_DEVICE |
                                         CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES;
  info.atomicMemoryCapabilities = orders | scopes;
  info.atomicFenceCapabilities = orders | scopes | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM;
}

compiler::TargetDescription compilerTargetOf(const DeviceInfo &info) {
  compiler::TargetDescription target;
  // Every device's programs are compiled for SPIR64; the device's code generator retargets
  // them.
  target.triple = "spir64-unknown-unknown";
  for (const NamedVersion &version : info.openclCAllVersions)
    target.languageVersions.push_back(version.version);
  for (const NamedVersion &extension : info.extensions)
    target.extensions.push_back(extension.name);
  for (const NamedVersion &feature : info.openclCFeatures)
    target.features.push_back(feature.name);
  for (const NamedVersion &il : info.ilsWithVersion)
    if (il.name == "SPIR-V")
      target.spirvVersions.push_back(il.version);
  target.inlineAssembly = info.inlineAssembly;
  target.inlineAssemblyRegisterClasses = info.inlineAssemblyRegisterClasses;
  return target;
}

} // namespace kiln
