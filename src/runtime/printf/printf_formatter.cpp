#include "runtime/printf/printf_formatter.hpp"

#include "compiler/printf_format.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <locale.h>
#include <optional>
#include <vector>

namespace kiln {
namespace {

using compiler::PrintfArgument;
using compiler::PrintfConversion;
using Kind = PrintfArgument::Kind;

/// Formats with the "C" locale on this thread, whatever locale the application chose: a
/// kernel's output does not depend on the host's decimal point.
class CLocaleScope {
public:
  CLocaleScope() : locale_(newlocale(LC_ALL_MASK, "C", locale_t(0))) {
    if (locale_ != locale_t(0))
      previous_ = uselocale(locale_);
  }
  ~CLocaleScope() {
    if (locale_ == locale_t(0))
      return;
    uselocale(previous_);
    freelocale(locale_);
  }
  CLocaleScope(const CLocaleScope &) = delete;
  CLocaleScope &operator=(const CLocaleScope &) = delete;

private:
  locale_t locale_;
  locale_t previous_ = locale_t(0);
};

/// One argument of a record: how it is stored and its bytes.
struct ArgumentValue {
  PrintfArgument argument;
  std::span<const std::byte> bytes; // the elements, or a string's characters

  unsigned elementCount() const {
    return argument.kind == Kind::String ? 1 : argument.elementCount;
  }
  /// The bits of element `index`, zero-extended.
  uint64_t bits(unsigned index) const {
    uint64_t value = 0;
    size_t size = argument.elementBytes;
    if (argument.kind != Kind::String && (index + 1) * size <= bytes.size())
      std::memcpy(&value, bytes.data() + index * size, size); // little-endian host and device
    return value;
  }
};

/// Reads a record's fields in order, never past its end.
class RecordReader {
public:
  explicit RecordReader(std::span<const std::byte> bytes) : bytes_(bytes) {}

  std::optional<std::span<const std::byte>> take(size_t size) {
    if (size > bytes_.size())
      return std::nullopt;
    std::span<const std::byte> taken = bytes_.first(size);
    bytes_ = bytes_.subspan(size);
    return taken;
  }
  std::optional<uint32_t> takeUint32() {
    auto bytes = take(sizeof(uint32_t));
    if (!bytes)
      return std::nullopt;
    uint32_t value;
    std::memcpy(&value, bytes->data(), sizeof value);
    return value;
  }

private:
  std::span<const std::byte> bytes_;
};

/// The arguments of a record's body; nullopt when they do not fit its size.
std::optional<std::vector<ArgumentValue>> readArguments(RecordReader &reader,
                                                        const compiler::PrintfCallSite &site) {
  std::vector<ArgumentValue> values;
  for (const PrintfArgument &argument : site.args) {
    size_t size = size_t(argument.elementBytes) * argument.elementCount;
    if (argument.kind == Kind::String) {
      std::optional<uint32_t> length = reader.takeUint32();
      if (!length)
        return std::nullopt;
      size = *length;
    }
    auto bytes = reader.take(size);
    if (!bytes)
      return std::nullopt;
    values.push_back({argument, *bytes});
  }
  return values;
}

int64_t signExtend(uint64_t bits, unsigned width) {
  if (width >= 64)
    return int64_t(bits);
  uint64_t sign = uint64_t{1} << (width - 1);
  bits &= (sign << 1) - 1;
  return int64_t(bits ^ sign) - int64_t(sign);
}

uint64_t truncate(uint64_t bits, unsigned width) {
  return width >= 64 ? bits : bits & ((uint64_t{1} << width) - 1);
}

double halfToDouble(uint16_t half) {
  int exponent = (half >> 10) & 0x1f;
  int mantissa = half & 0x3ff;
  double magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(double(mantissa), -24); // zero and subnormals
  else if (exponent == 31)
    magnitude = mantissa == 0 ? HUGE_VAL : std::nan("");
  else
    magnitude = std::ldexp(double(mantissa | 0x400), exponent - 25);
  return (half & 0x8000) != 0 ? -magnitude : magnitude;
}

/// The element as a floating-point number of its own width (2, 4 or 8 bytes).
double floatValue(uint64_t bits, unsigned bytes) {
  switch (bytes) {
  case 2:
    return halfToDouble(uint16_t(bits));
  case 4:
    return std::bit_cast<float>(uint32_t(bits));
  case 8:
    return std::bit_cast<double>(bits);
  default:
    return double(bits);
  }
}

/// Appends what snprintf writes for `format` and `value`.
template <typename T> void appendFormatted(std::string &out, const std::string &format, T value) {
  int size = std::snprintf(nullptr, 0, format.c_str(), value);
  if (size <= 0)
    return;
  size_t start = out.size();
  out.resize(start + size_t(size) + 1);
  std::snprintf(out.data() + start, size_t(size) + 1, format.c_str(), value);
  out.resize(start + size_t(size));
}

/// Formats one conversion of one record.
class ConversionFormatter {
public:
  ConversionFormatter(const PrintfConversion &conversion, int width, int precision)
      : conversion_(conversion), width_(width), precision_(precision) {}

  /// Every element of `value` the conversion covers, separated by commas.
  void append(std::string &out, const ArgumentValue &value) const {
    unsigned count = std::min(std::max(conversion_.vectorSize, 1u), value.elementCount());
    for (unsigned element = 0; element < count; ++element) {
      if (element != 0)
        out += ',';
      appendElement(out, value, element);
    }
  }

private:
  /// A C format for one element: the flags, width and precision as given, then `tail`.
  std::string cFormat(bool withPrecision, const char *tail) const {
    std::string format = "%" + conversion_.flags;
    if (width_ >= 0)
      format += std::to_string(width_);
    if (withPrecision && precision_ >= 0) {
      format += '.';
      format += std::to_string(precision_);
    }
    return format + tail;
  }

  /// The width integer conversions cut the value to.
  unsigned integerWidth(const ArgumentValue &value) const {
    if (unsigned bits = compiler::integerBits(conversion_.length))
      return bits;
    // Scalars arrive promoted to int (C's default argument promotions); vectors as they are.
    if (conversion_.vectorSize == 0)
      return 32;
    return value.argument.elementBytes * 8u;
  }

  void appendElement(std::string &out, const ArgumentValue &value, unsigned element) const {
    uint64_t bits = value.bits(element);
    char letter = conversion_.conversion;
    const char tail[] = {letter, '\0'};
    const char longTail[] = {'l', 'l', letter, '\0'};
    if (conversion_.isInteger()) {
      unsigned width = integerWidth(value);
      if (letter == 'd' || letter == 'i')
        appendFormatted(out, cFormat(true, longTail), (long long)signExtend(bits, width));
      else
        appendFormatted(out, cFormat(true, longTail), (unsigned long long)truncate(bits, width));
    } else if (conversion_.isFloat()) {
      appendFormatted(out, cFormat(true, tail), floatValue(bits, value.argument.elementBytes));
    } else if (letter == 'c') {
      appendFormatted(out, cFormat(false, tail), int((unsigned char)bits));
    } else if (letter == 'p') {
      appendFormatted(out, cFormat(false, tail), reinterpret_cast<void *>(uintptr_t(bits)));
    } else if (letter == 's') {
      std::string text;
      if (value.argument.kind == Kind::String)
        text.assign(reinterpret_cast<const char *>(value.bytes.data()), value.bytes.size());
      appendFormatted(out, cFormat(true, tail), text.c_str());
    }
  }

  const PrintfConversion &conversion_;
  int width_;
  int precision_;
};

/// Appends the text of one record's call. With too few arguments (undefined behaviour in the
/// specification) the conversions that lack one print nothing; the text around them stays.
void formatCall(std::string &out, const compiler::PrintfCallSite &site,
                const std::vector<ArgumentValue> &arguments) {
  size_t next = 0;
  // A '*' width or precision takes the next argument, an int.
  auto takeInt = [&]() -> std::optional<int> {
    if (next >= arguments.size())
      return std::nullopt;
    return int(signExtend(arguments[next++].bits(0), 32));
  };
  for (const compiler::PrintfDirective &directive : compiler::parsePrintfFormat(site.format)) {
    if (!directive.isConversion) {
      out += directive.text;
      continue;
    }
    PrintfConversion conversion = directive.conversion;
    if (conversion.conversion == '%') {
      out += '%';
      continue;
    }
    int width = conversion.width;
    if (width == PrintfConversion::kFromArgument) {
      std::optional<int> given = takeInt();
      width = given.value_or(PrintfConversion::kNone);
      if (given && *given < 0) { // as in C: the '-' flag and a positive width
        conversion.flags += '-';
        width = *given == INT32_MIN ? INT32_MAX : -*given;
      }
    }
    int precision = conversion.precision;
    if (precision == PrintfConversion::kFromArgument) {
      precision = std::max(takeInt().value_or(PrintfConversion::kNone),
                           int(PrintfConversion::kNone)); // negative: as if omitted
    }
    if (next >= arguments.size())
      continue;
    ConversionFormatter(conversion, width, precision).append(out, arguments[next++]);
  }
}

} // namespace

std::string formatPrintfRecords(std::span<const std::byte> records,
                                std::span<const compiler::PrintfCallSite> callSites) {
  CLocaleScope locale;
  std::string out;
  while (records.size() >= compiler::kPrintfRecordHeaderSize) {
    compiler::PrintfRecordHeader header;
    std::memcpy(&header, records.data(), sizeof header);
    if (header.size < sizeof header || header.size > records.size() ||
        header.callSite >= callSites.size())
      break;
    const compiler::PrintfCallSite &site = callSites[header.callSite];
    RecordReader reader(records.subspan(sizeof header, header.size - sizeof header));
    std::optional<std::vector<ArgumentValue>> arguments = readArguments(reader, site);
    if (!arguments)
      break;
    formatCall(out, site, *arguments);
    records = records.subspan(header.size);
  }
  return out;
}

} // namespace kiln
