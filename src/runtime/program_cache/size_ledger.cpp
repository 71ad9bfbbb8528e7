#include "runtime/program_cache/size_ledger.hpp"

#include <cerrno>
#include <charconv>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace kiln {

SizeLedger::SizeLedger(const std::string &directory)
    : fd_(::open((directory + "/" + kFileName).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
                 0600)) {
  if (!fd_)
    return;
  int result;
  do
    result = ::flock(fd_.get(), LOCK_EX);
  while (result != 0 && errno == EINTR);
  locked_ = result == 0;
}

std::optional<uint64_t> SizeLedger::size() const {
  if (!locked_)
    return std::nullopt;
  char text[32];
  ssize_t count = ::pread(fd_.get(), text, sizeof text, 0);
  if (count <= 0 || count == sizeof text || text[count - 1] != '\n')
    return std::nullopt;
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text, text + count - 1, value);
  if (error != std::errc() || end != text + count - 1)
    return std::nullopt;
  return value;
}

void SizeLedger::setSize(uint64_t size) {
  if (!locked_)
    return;
  char text[32];
  char *end = std::to_chars(text, text + sizeof text - 1, size).ptr;
  *end++ = '\n';
  auto length = static_cast<size_t>(end - text);
  // A short write leaves text without its newline at the end, which size() rejects.
  if (::pwrite(fd_.get(), text, length, 0) == static_cast<ssize_t>(length))
    (void)::ftruncate(fd_.get(), static_cast<off_t>(length));
  else
    (void)::ftruncate(fd_.get(), 0);
}

} // namespace kiln
