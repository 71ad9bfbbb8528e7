//===- stack_sizes.cpp - The stack a compiled work-group function uses ------===//
#include "devices/cpu/codegen/jit/stack_sizes.hpp"

#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace kiln::cpu {

uint64_t stackBytesOf(StringRef object) {
  Expected<std::unique_ptr<object::ObjectFile>> file =
      object::ObjectFile::createObjectFile(MemoryBufferRef(object, "specialization"));
  if (!file) {
    consumeError(file.takeError());
    return 0;
  }
  uint64_t total = 0;
  for (const object::SectionRef &section : (*file)->sections()) {
    Expected<StringRef> name = section.getName();
    if (!name || *name != ".stack_sizes") {
      if (!name)
        consumeError(name.takeError());
      continue;
    }
    Expected<StringRef> contents = section.getContents();
    if (!contents) {
      consumeError(contents.takeError());
      continue;
    }
    // Entries: the function's address (relocated, 8 bytes on 64-bit targets), then its frame
    // size as ULEB128.
    const auto *at = reinterpret_cast<const uint8_t *>(contents->data());
    const uint8_t *end = at + contents->size();
    while (end - at > 8) {
      at += 8;
      unsigned length = 0;
      const char *problem = nullptr;
      total += decodeULEB128(at, &length, end, &problem);
      if (problem != nullptr)
        break;
      at += length;
    }
  }
  return total;
}

} // namespace kiln::cpu
