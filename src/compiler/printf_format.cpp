#include "compiler/printf_format.hpp"

#include <cstring>

namespace kiln::compiler {
namespace {

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

/// Whether `c` is one of the characters of `set` (never the NUL).
bool isOneOf(char c, const char *set) {
  return c != '\0' && std::strchr(set, c) != nullptr;
}

/// Reads a decimal number at `pos`; false when there is none (or it is absurdly large).
bool readNumber(std::string_view text, size_t &pos, int &value) {
  if (pos >= text.size() || !isDigit(text[pos]))
    return false;
  long long number = 0;
  while (pos < text.size() && isDigit(text[pos])) {
    number = number * 10 + (text[pos++] - '0');
    if (number > 1'000'000'000)
      return false;
  }
  value = int(number);
  return true;
}

/// A field width or precision: digits, or '*'.
void readAmount(std::string_view text, size_t &pos, int &value) {
  if (pos < text.size() && text[pos] == '*') {
    value = PrintfConversion::kFromArgument;
    ++pos;
    return;
  }
  readNumber(text, pos, value);
}

PrintfLength readLength(std::string_view text, size_t &pos) {
  auto next = [&](size_t ahead) { return pos + ahead < text.size() ? text[pos + ahead] : '\0'; };
  struct Spelling {
    const char *text;
    PrintfLength length;
  };
  // Two-letter spellings first.
  static constexpr Spelling spellings[] = {
      {"hh", PrintfLength::Char},   {"hl", PrintfLength::Int},   {"ll", PrintfLength::LongLong},
      {"h", PrintfLength::Short},   {"l", PrintfLength::Long},   {"z", PrintfLength::Size},
      {"t", PrintfLength::PtrDiff}, {"j", PrintfLength::IntMax}, {"L", PrintfLength::LongDouble},
  };
  for (const Spelling &spelling : spellings) {
    size_t size = std::strlen(spelling.text);
    if (next(0) == spelling.text[0] && (size == 1 || next(1) == spelling.text[1])) {
      pos += size;
      return spelling.length;
    }
  }
  return PrintfLength::None;
}

bool validVectorSize(int size) {
  return size == 2 || size == 3 || size == 4 || size == 8 || size == 16;
}

/// Parses the specification starting after a '%' at `pos`; false when it is not valid.
bool parseConversion(std::string_view text, size_t &pos, PrintfConversion &conversion) {
  while (pos < text.size() && isOneOf(text[pos], "-+ #0"))
    conversion.flags += text[pos++];
  readAmount(text, pos, conversion.width);
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    conversion.precision = 0;
    readAmount(text, pos, conversion.precision);
  }
  if (pos < text.size() && text[pos] == 'v') {
    ++pos;
    int size = 0;
    if (!readNumber(text, pos, size) || !validVectorSize(size))
      return false;
    conversion.vectorSize = unsigned(size);
  }
  conversion.length = readLength(text, pos);
  if (pos >= text.size() || !isOneOf(text[pos], "diouxXfFeEgGaAcsp%"))
    return false;
  conversion.conversion = text[pos++];
  // Vectors hold numbers only.
  if (conversion.vectorSize != 0 && isOneOf(conversion.conversion, "csp%"))
    return false;
  return true;
}

} // namespace

unsigned integerBits(PrintfLength length) {
  switch (length) {
  case PrintfLength::Char:
    return 8;
  case PrintfLength::Short:
    return 16;
  case PrintfLength::Int:
    return 32;
  case PrintfLength::Long:
  case PrintfLength::LongLong:
  case PrintfLength::Size: // the devices are 64-bit
  case PrintfLength::PtrDiff:
  case PrintfLength::IntMax:
    return 64;
  case PrintfLength::None:
  case PrintfLength::LongDouble:
    break;
  }
  return 0;
}

unsigned PrintfConversion::argumentCount() const {
  return unsigned(conversion != '%') + unsigned(width == kFromArgument) +
         unsigned(precision == kFromArgument);
}

bool PrintfConversion::isInteger() const {
  return isOneOf(conversion, "diouxX");
}

bool PrintfConversion::isFloat() const {
  return isOneOf(conversion, "fFeEgGaA");
}

std::vector<PrintfDirective> parsePrintfFormat(std::string_view format) {
  std::vector<PrintfDirective> directives;
  auto addText = [&](std::string_view text) {
    if (text.empty())
      return;
    // Merge with preceding text, which is always adjacent in `format`.
    if (!directives.empty() && !directives.back().isConversion) {
      std::string_view &previous = directives.back().text;
      previous = std::string_view(previous.data(), previous.size() + text.size());
    } else {
      directives.push_back({text, false, {}});
    }
  };
  size_t pos = 0;
  while (pos < format.size()) {
    size_t percent = format.find('%', pos);
    if (percent == std::string_view::npos) {
      addText(format.substr(pos));
      break;
    }
    addText(format.substr(pos, percent - pos));
    pos = percent + 1;
    PrintfDirective directive;
    directive.isConversion = parseConversion(format, pos, directive.conversion);
    directive.text = format.substr(percent, pos - percent);
    if (directive.isConversion)
      directives.push_back(std::move(directive));
    else
      addText(directive.text);
  }
  return directives;
}

} // namespace kiln::compiler
