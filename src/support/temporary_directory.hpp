// A private directory for files a helper process reads and writes, removed with its contents
// when it goes out of scope.
#pragma once

#include <optional>
#include <string>

namespace kiln {

class TemporaryDirectory {
public:
  /// A new directory only this user can enter, in $TMPDIR or /tmp; nothing, with the reason
  /// in `error`, when none can be made.
  static std::optional<TemporaryDirectory> create(std::string &error);

  TemporaryDirectory(TemporaryDirectory &&other) noexcept;
  TemporaryDirectory &operator=(TemporaryDirectory &&) = delete;
  TemporaryDirectory(const TemporaryDirectory &) = delete;
  ~TemporaryDirectory();

  /// The path of `name` inside it.
  std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
  explicit TemporaryDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

} // namespace kiln
