// The printf buffer of one launch of a kernel that calls printf, and the text its records
// print: a compiler::PrintfBuffer at the start of storage the device gives (host memory on the
// CPU, managed memory on a GPU, where kernel and host both address it), the records after it.
// What differs between devices is only where the storage comes from and when the launch has
// finished; the buffer's set-up and the output are the same for all.
#pragma once

#include "compiler/printf_format.hpp"
#include "compiler/program_info.hpp"
#include "runtime/objects/memory.hpp"

#include <cstddef>
#include <span>

namespace kiln {

class PrintfOutput {
public:
  /// Bytes of storage for records of `capacity` bytes, and the storage's alignment.
  static size_t storageSize(size_t capacity) { return sizeof(compiler::PrintfBuffer) + capacity; }
  static constexpr size_t kStorageAlignment = alignof(compiler::PrintfBuffer);

  /// A buffer for records of `capacity` bytes in `storage`, of storageSize(capacity) bytes; or
  /// none when `storage` is null (the device could not allocate it): every printf of the launch
  /// then returns -1.
  PrintfOutput(AlignedStorage storage, size_t capacity);

  /// What the kernel is given: the buffer's address, or null when there is none.
  compiler::PrintfBuffer *buffer() const { return buffer_; }

  /// Writes the text of the records to the application's stdout, in one piece so that no other
  /// output comes in between. Only once the launch has finished: every record is then complete.
  /// `callSites`: the program's printf calls (ProgramInfo::printfCalls).
  void write(std::span<const compiler::PrintfCallSite> callSites) const;

private:
  AlignedStorage storage_;
  compiler::PrintfBuffer *buffer_ = nullptr;
};

} // namespace kiln
