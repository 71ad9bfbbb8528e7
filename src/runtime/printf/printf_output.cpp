#include "runtime/printf/printf_output.hpp"

#include "runtime/printf/printf_formatter.hpp"

#include <cstdio>
#include <memory>
#include <string>

namespace kiln {

PrintfOutput::PrintfOutput(AlignedStorage storage, size_t capacity) : storage_(std::move(storage)) {
  if (storage_ == nullptr)
    return;
  buffer_ = std::construct_at(reinterpret_cast<compiler::PrintfBuffer *>(storage_.get()));
  buffer_->data = storage_.get() + sizeof(compiler::PrintfBuffer);
  buffer_->capacity = capacity;
  buffer_->used.store(0, std::memory_order_relaxed);
}

void PrintfOutput::write(std::span<const compiler::PrintfCallSite> callSites) const {
  if (buffer_ == nullptr)
    return;
  std::string text = formatPrintfRecords(
      {buffer_->data, buffer_->used.load(std::memory_order_acquire)}, callSites);
  if (text.empty())
    return;
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

} // namespace kiln
