#include "support/temporary_directory.hpp"

#include "support/settings.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdlib.h>
#include <utility>
#include <vector>

namespace kiln {

std::optional<TemporaryDirectory> TemporaryDirectory::create(std::string &error) {
  std::string parent(environmentValue("TMPDIR").value_or("/tmp"));
  if (parent.empty())
    parent = "/tmp";
  std::string pattern = parent + "/kiln-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) {
    error = "cannot make a temporary directory in " + parent + ": " + std::strerror(errno);
    return std::nullopt;
  }
  return TemporaryDirectory(buffer.data());
}

TemporaryDirectory::TemporaryDirectory(TemporaryDirectory &&other) noexcept
    : path_(std::exchange(other.path_, {})) {}

TemporaryDirectory::~TemporaryDirectory() {
  if (path_.empty())
    return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

} // namespace kiln
