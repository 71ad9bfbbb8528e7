// A file descriptor closed when it goes out of scope.
#pragma once

#include <unistd.h>
#include <utility>

namespace kiln {

class UniqueFd {
public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd &operator=(UniqueFd other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~UniqueFd() {
    if (fd_ >= 0)
      ::close(fd_);
  }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  /// Closes now; false when close() reports an error (for a file just written, a failed write).
  bool close() { return fd_ < 0 || ::close(std::exchange(fd_, -1)) == 0; }

private:
  int fd_ = -1;
};

} // namespace kiln
