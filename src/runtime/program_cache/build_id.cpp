#include "runtime/program_cache/build_id.hpp"

#include "support/align_up.hpp"
#include "support/unique_fd.hpp"

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <span>
#include <vector>

namespace kiln {
namespace {

// Limits that no real library reaches: a damaged file cannot make us read much.
constexpr size_t kMaxProgramHeaders = 256;
constexpr size_t kMaxNoteSegment = 64 * 1024;

bool readAt(int fd, void *out, size_t size, uint64_t offset) {
  return ::pread(fd, out, size, static_cast<off_t>(offset)) == static_cast<ssize_t>(size);
}

uint64_t noteAlignment(const Elf64_Phdr &segment) {
  // Notes are 4-byte aligned, or 8 in segments that say so (.note.gnu.property).
  return segment.p_align == 8 ? 8 : 4;
}

std::string hex(const unsigned char *bytes, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (size_t index = 0; index < size; ++index) {
    text += kDigits[bytes[index] >> 4];
    text += kDigits[bytes[index] & 15];
  }
  return text;
}

/// The build ID among the notes of one PT_NOTE segment, if any.
std::string buildIdInNotes(std::span<const unsigned char> notes, uint64_t alignment) {
  uint64_t offset = 0;
  while (offset + sizeof(Elf64_Nhdr) <= notes.size()) {
    Elf64_Nhdr note;
    std::memcpy(&note, notes.data() + offset, sizeof note);
    uint64_t name = offset + sizeof note;
    uint64_t descriptor = name + alignUp(note.n_namesz, alignment);
    uint64_t next = descriptor + alignUp(note.n_descsz, alignment);
    if (next > notes.size())
      return {};
    if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == sizeof ELF_NOTE_GNU &&
        std::memcmp(notes.data() + name, ELF_NOTE_GNU, sizeof ELF_NOTE_GNU) == 0)
      return hex(notes.data() + descriptor, note.n_descsz);
    offset = next;
  }
  return {};
}

} // namespace

std::string readBuildId(const std::string &path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  Elf64_Ehdr header;
  if (!fd || !readAt(fd.get(), &header, sizeof header, 0) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum > kMaxProgramHeaders)
    return {};
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  if (!readAt(fd.get(), segments.data(), segments.size() * sizeof(Elf64_Phdr), header.e_phoff))
    return {};
  for (const Elf64_Phdr &segment : segments) {
    if (segment.p_type != PT_NOTE || segment.p_filesz > kMaxNoteSegment)
      continue;
    std::vector<unsigned char> notes(segment.p_filesz);
    if (!readAt(fd.get(), notes.data(), notes.size(), segment.p_offset))
      continue;
    std::string id = buildIdInNotes(notes, noteAlignment(segment));
    if (!id.empty())
      return id;
  }
  return {};
}

std::string loadedBuildId(const void *address) {
  struct Search {
    uintptr_t address;
    std::string id;
  } search{reinterpret_cast<uintptr_t>(address), {}};
  dl_iterate_phdr(
      [](dl_phdr_info *object, size_t, void *data) {
        auto &search = *static_cast<Search *>(data);
        std::span<const Elf64_Phdr> segments(object->dlpi_phdr, object->dlpi_phnum);
        bool holdsAddress = std::any_of(segments.begin(), segments.end(), [&](auto &segment) {
          uintptr_t start = object->dlpi_addr + segment.p_vaddr;
          return segment.p_type == PT_LOAD && search.address >= start &&
                 search.address - start < segment.p_memsz;
        });
        if (!holdsAddress)
          return 0;
        for (const Elf64_Phdr &segment : segments)
          if (segment.p_type == PT_NOTE && search.id.empty())
            search.id = buildIdInNotes(
                {reinterpret_cast<const unsigned char *>(object->dlpi_addr + segment.p_vaddr),
                 segment.p_memsz},
                noteAlignment(segment));
        return 1;
      },
      &search);
  return search.id;
}

} // namespace kiln
