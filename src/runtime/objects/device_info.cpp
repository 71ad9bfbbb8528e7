#include "runtime/objects/device_info.hpp"

#include <algorithm>

namespace kiln {

std::string DeviceInfo::extensionString() const {
  std::string text;
  for (const NamedVersion &extension : extensions) {
    if (!text.empty())
      text += ' ';
    text += extension.name;
  }
  return text;
}

static bool containsName(const std::vector<NamedVersion> &list, const std::string &name) {
  return std::any_of(list.begin(), list.end(),
                     [&](const NamedVersion &entry) { return entry.name == name; });
}

bool DeviceInfo::hasExtension(const std::string &extension) const {
  return containsName(extensions, extension);
}

bool DeviceInfo::hasFeature(const std::string &feature) const {
  return containsName(openclCFeatures, feature);
}

} // namespace kiln
