// OpenCL C printf: the format string parsed into directives, and the records through which a
// kernel's printf calls reach the host. Shared by the compiler (which rewrites each call into a
// record) and the runtime (which formats the records); no LLVM types.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::compiler {

/// The printf buffer of one launch, in memory the kernel and the host both address. The
/// generated code (llvm/printf_reservation.hpp) reserves a record by advancing `used`
/// atomically, never past `capacity`, so the records lie in [0, used) once the launch has
/// finished.
struct PrintfBuffer {
  std::byte *data;
  uint64_t capacity;
  std::atomic<uint64_t> used;
};
static_assert(std::atomic<uint64_t>::is_always_lock_free &&
                  sizeof(std::atomic<uint64_t>) == sizeof(uint64_t),
              "the generated code updates PrintfBuffer::used as a plain 64-bit atomic");

enum class PrintfLength : uint8_t {
  None,
  Char,      // hh
  Short,     // h
  Int,       // hl (vectors of 32-bit elements)
  Long,      // l
  LongLong,  // ll
  Size,      // z (size_t)
  PtrDiff,   // t (ptrdiff_t)
  IntMax,    // j (intmax_t)
  LongDouble // L
};

/// The bits of an integer conversion's value that a length modifier selects; 0 when the
/// modifier says nothing (the argument's own width applies).
unsigned integerBits(PrintfLength length);

/// One conversion specification: %[flags][width][.precision][vN][length]conversion.
struct PrintfConversion {
  std::string flags; // any of "-+ #0", as written
  static constexpr int kNone = -1;
  static constexpr int kFromArgument = -2; // '*': taken from the next (int) argument
  int width = kNone;
  int precision = kNone;   // "." alone means 0
  unsigned vectorSize = 0; // N of vN; 0 for a scalar
  PrintfLength length = PrintfLength::None;
  char conversion = 0; // one of "diouxXfFeEgGaAcsp%"

  /// How many arguments the conversion consumes ('*' width and precision included).
  unsigned argumentCount() const;
  bool isInteger() const;
  bool isFloat() const;
};

/// A piece of a format string: text written as is, or a conversion.
struct PrintfDirective {
  std::string_view text; // the literal text, or the whole conversion as written
  bool isConversion = false;
  PrintfConversion conversion;
};

/// Splits `format` into directives. A '%' that does not start a valid conversion specification
/// is kept as text (it consumes no argument), so any format can be printed. The directives
/// refer into `format`.
std::vector<PrintfDirective> parsePrintfFormat(std::string_view format);

// ---------------------------------------------------------------------------------------------
// The printf buffer
//
// Each printf call that runs reserves one record in the launch's printf buffer and fills it:
//
//   uint32_t size      bytes of the whole record, these 8 included
//   uint32_t callSite  index into ProgramInfo::printfCalls
//   the arguments, in order, packed without padding, in the device's byte order:
//     Integer, Float, Pointer: elementBytes * elementCount bytes (a pointer: its address)
//     String: uint32_t length, then that many bytes (the string up to its NUL, not included)
//
// Records lie one after the other from the start of the buffer; a call for which no room is
// left writes nothing and returns -1.

struct PrintfRecordHeader {
  uint32_t size;
  uint32_t callSite;
};
inline constexpr uint32_t kPrintfRecordHeaderSize = sizeof(PrintfRecordHeader);

/// The longest string a %s conversion copies into a record (the rest is cut off).
inline constexpr uint32_t kPrintfMaxStringBytes = 1u << 20;

} // namespace kiln::compiler
