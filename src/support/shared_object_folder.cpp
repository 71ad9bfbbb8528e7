#include "support/shared_object_folder.hpp"

#include <dlfcn.h>

namespace kiln {

std::string sharedObjectFolder(const void *address) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr)
    return {};
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

} // namespace kiln
