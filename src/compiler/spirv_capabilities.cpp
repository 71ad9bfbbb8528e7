#include "compiler/spirv_capabilities.hpp"

#include <algorithm>
#include <string_view>

namespace kiln::compiler {
namespace {

struct CapabilityNeed {
  uint32_t capability; // its number in the SPIR-V specification
  std::string_view name;
  /// The OpenCL C feature or extension that gives it; empty: no Kiln device has it.
  std::string_view offeredBy;
};

/// Capabilities not every OpenCL device has. The others (Addresses, Kernel, Int64, Vector16,
/// the extensions' own, ...) are the translator's to accept or refuse.
constexpr CapabilityNeed kCapabilityNeeds[] = {
    {0, "Matrix", ""},
    {1, "Shader", ""},
    {2, "Geometry", ""},
    {3, "Tessellation", ""},
    {9, "Float16", "cl_khr_fp16"},
    {10, "Float64", "__opencl_c_fp64"},
    {12, "Int64Atomics", "cl_khr_int64_base_atomics"},
    {13, "ImageBasic", "__opencl_c_images"},
    {14, "ImageReadWrite", "__opencl_c_read_write_images"},
    {15, "ImageMipmap", "cl_khr_mipmap_image"},
    {17, "Pipes", "__opencl_c_pipes"},
    {18, "Groups", "__opencl_c_work_group_collective_functions"},
    {19, "DeviceEnqueue", "__opencl_c_device_enqueue"},
    {38, "GenericPointer", "__opencl_c_generic_address_space"},
    {58, "SubgroupDispatch", "__opencl_c_subgroups"},
    {60, "PipeStorage", "__opencl_c_pipes"},
};

bool offers(const TargetDescription &target, std::string_view name) {
  auto matches = [&](const std::string &offered) { return offered == name; };
  return std::ranges::any_of(target.features, matches) ||
         std::ranges::any_of(target.extensions, matches);
}

} // namespace

std::string unsupportedCapabilities(const SpirvModule &module, const TargetDescription &target) {
  std::string lines;
  for (uint32_t capability : module.capabilities()) {
    auto need = std::ranges::find(kCapabilityNeeds, capability, &CapabilityNeed::capability);
    if (need == std::end(kCapabilityNeeds) ||
        (!need->offeredBy.empty() && offers(target, need->offeredBy)))
      continue;
    lines += "error: the SPIR-V module declares the capability " + std::string(need->name);
    lines += need->offeredBy.empty()
                 ? ", which no OpenCL device has\n"
                 : ", which needs " + std::string(need->offeredBy) + " (this device lacks it)\n";
  }
  return lines;
}

} // namespace kiln::compiler
