// Writing plain data into bytes and reading it back with every read bounds-checked: the on-disk
// program cache stores ProgramInfo and its own entries this way. Numbers are in the host's byte
// order: what is written never leaves the machine that wrote it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kiln::compiler {

class ByteWriter {
public:
  template <typename T> void number(T value) {
    static_assert(std::is_integral_v<T> || std::is_enum_v<T>);
    raw(&value, sizeof value);
  }
  /// A size, then the bytes.
  void bytes(std::span<const std::byte> data) {
    number<uint64_t>(data.size());
    raw(data.data(), data.size());
  }
  void bytes(std::span<const uint8_t> data) { bytes(std::as_bytes(data)); }
  void text(std::string_view data) { bytes(std::as_bytes(std::span(data.data(), data.size()))); }

  const std::vector<std::byte> &data() const { return out_; }
  std::vector<std::byte> take() { return std::move(out_); }

private:
  void raw(const void *data, size_t size) {
    if (size == 0)
      return;
    size_t offset = out_.size();
    out_.resize(offset + size);
    std::memcpy(out_.data() + offset, data, size);
  }

  std::vector<std::byte> out_;
};

/// Reads what ByteWriter wrote. A read past the end, or a size larger than what is left, makes
/// the reader fail for good: it then returns zeros and empty values, and ok() says false, so a
/// parser checks once at the end instead of after every field.
class ByteReader {
public:
  explicit ByteReader(std::span<const std::byte> data) : data_(data) {}

  template <typename T> T number() {
    static_assert(std::is_integral_v<T> || std::is_enum_v<T>);
    T value{};
    if (take(sizeof value))
      std::memcpy(&value, data_.data() + position_ - sizeof value, sizeof value);
    return value;
  }
  std::span<const std::byte> bytes() {
    uint64_t size = number<uint64_t>();
    if (!take(size))
      return {};
    return data_.subspan(position_ - size, size);
  }
  std::string text() {
    std::span<const std::byte> data = bytes();
    return std::string(reinterpret_cast<const char *>(data.data()), data.size());
  }
  /// An element count, checked against what is left so a damaged count cannot make the caller
  /// allocate more than the input could describe (each element takes at least `minimumBytes`).
  size_t count(size_t minimumBytes) {
    uint64_t value = number<uint64_t>();
    if (value > remaining() / (minimumBytes == 0 ? 1 : minimumBytes)) {
      failed_ = true;
      return 0;
    }
    return static_cast<size_t>(value);
  }
  void fail() { failed_ = true; }

  bool ok() const { return !failed_; }
  bool atEnd() const { return position_ == data_.size(); }
  size_t remaining() const { return failed_ ? 0 : data_.size() - position_; }

private:
  bool take(uint64_t size) {
    if (failed_ || size > data_.size() - position_) {
      failed_ = true;
      return false;
    }
    position_ += static_cast<size_t>(size);
    return true;
  }

  std::span<const std::byte> data_;
  size_t position_ = 0;
  bool failed_ = false;
};

} // namespace kiln::compiler
