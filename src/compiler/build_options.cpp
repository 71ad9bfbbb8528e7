// Parsing of the options strings of clBuildProgram, clCompileProgram and clLinkProgram.
//
// The accepted set is exactly what the OpenCL 3.0 API specification defines in sections 5.8.6
// (compiler options) and 5.8.7 (linker options). Each option is mapped to the Clang cc1
// arguments that implement it (checked against `clang-22 -cc1 --help`); options with no Clang
// counterpart only set a field of BuildOptions.
#include "compiler/build_options.hpp"

#include <array>
#include <optional>

namespace kiln::compiler {
namespace {

// Splits `text` into words the way a POSIX shell does: blanks separate words, '...' quotes
// everything literally, "..." quotes everything but \" and \\, and outside quotes a backslash
// makes the next character literal (so `-I my\ dir` names one directory).
std::optional<std::vector<std::string>> tokenize(std::string_view text, std::string &error) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      if (inWord)
        words.push_back(std::move(word));
      word.clear();
      inWord = false;
      continue;
    }
    inWord = true;
    if (c == '\\') {
      if (i + 1 < text.size())
        word += text[++i];
      continue;
    }
    if (c != '\'' && c != '"') {
      word += c;
      continue;
    }
    size_t close = i + 1;
    for (; close < text.size() && text[close] != c; ++close) {
      if (c == '"' && text[close] == '\\' && close + 1 < text.size() &&
          (text[close + 1] == '"' || text[close + 1] == '\\'))
        ++close;
      word += text[close];
    }
    if (close == text.size()) {
      error = std::string("unterminated ") + (c == '"' ? "double" : "single") +
              " quote in the options string";
      return std::nullopt;
    }
    i = close;
  }
  if (inWord)
    words.push_back(std::move(word));
  return words;
}

/// Which calls accept an option (bit set of OptionsUse).
enum UseMask : unsigned {
  kBuild = 1u << unsigned(OptionsUse::Build),
  kCompile = 1u << unsigned(OptionsUse::Compile),
  kLink = 1u << unsigned(OptionsUse::Link),
  kCompileOptions = kBuild | kCompile, // 5.8.6
  kLinkOnly = kLink,                   // 5.8.7.1, library linking
  kAll = kBuild | kCompile | kLink,    // 5.8.6 and 5.8.7.2, program linking
};

/// An option that is one word with no value.
struct Flag {
  std::string_view name;
  unsigned uses;
  /// The cc1 arguments implementing it; Clang needs none for some.
  std::array<std::string_view, 3> clangArgs;
  bool BuildOptions::*field;
};

// -cl-denorms-are-zero allows (does not require) flushing denormals. It maps to no Clang
// argument: a "denormal-fp-math" function attribute would keep LLVM from inlining the builtin
// library (IEEE denormals) into the program, and the CPU code generator inlines everything; the
// front end records it as a module flag instead (kernel_metadata.hpp).
// Clang's cc1 -cl-finite-math-only only defines __FINITE_MATH_ONLY__: the -menable-no-* flags
// (its driver adds them too) are what mark the arithmetic.
// -cl-strict-aliasing is deprecated since OpenCL 1.1 but still defined by the 3.0
// specification: accepted, and has no effect (Clang's type-based aliasing is on anyway).
constexpr std::array kFlags{
    Flag{"-cl-single-precision-constant",
         kCompileOptions,
         {"-cl-single-precision-constant"},
         nullptr},
    Flag{"-cl-denorms-are-zero", kAll, {}, &BuildOptions::denormsAreZero},
    Flag{"-cl-fp32-correctly-rounded-divide-sqrt",
         kCompileOptions,
         {"-cl-fp32-correctly-rounded-divide-sqrt"},
         &BuildOptions::correctlyRoundedDivideSqrt},
    Flag{"-cl-opt-disable", kCompileOptions, {}, &BuildOptions::optimizationsDisabled},
    Flag{"-cl-strict-aliasing", kCompileOptions, {}, nullptr},
    Flag{"-cl-uniform-work-group-size",
         kCompileOptions,
         {"-cl-uniform-work-group-size"},
         &BuildOptions::uniformWorkGroupSize},
    Flag{"-cl-no-subgroup-ifp", kAll, {}, nullptr},
    Flag{"-cl-mad-enable", kCompileOptions, {"-cl-mad-enable"}, nullptr},
    Flag{"-cl-no-signed-zeros", kAll, {"-cl-no-signed-zeros"}, nullptr},
    Flag{"-cl-unsafe-math-optimizations", kAll, {"-cl-unsafe-math-optimizations"}, nullptr},
    Flag{"-cl-finite-math-only",
         kAll,
         {"-cl-finite-math-only", "-menable-no-infs", "-menable-no-nans"},
         nullptr},
    Flag{"-cl-fast-relaxed-math", kAll, {"-cl-fast-relaxed-math"}, nullptr},
    Flag{"-w", kCompileOptions, {"-w"}, nullptr},
    Flag{"-Werror", kCompileOptions, {"-Werror"}, nullptr},
    Flag{"-cl-kernel-arg-info", kCompileOptions, {}, &BuildOptions::kernelArgInfo},
    Flag{"-g",
         kCompileOptions,
         {"-debug-info-kind=limited", "-dwarf-version=5"},
         &BuildOptions::debugInfo},
    Flag{"-create-library", kLinkOnly, {}, &BuildOptions::createLibrary},
    Flag{"-enable-link-options", kLinkOnly, {}, &BuildOptions::enableLinkOptions},
};

/// The -cl-std values: OpenCL C versions, and the C++ for OpenCL versions (cl_ext_cxx_for_opencl)
/// with the OpenCL C version each is based on.
struct LanguageStd {
  std::string_view name;
  cl_version version;
  bool cxx;
};
constexpr std::array kLanguageStds{
    LanguageStd{"CL1.0", CL_MAKE_VERSION(1, 0, 0), false},
    LanguageStd{"CL1.1", CL_MAKE_VERSION(1, 1, 0), false},
    LanguageStd{"CL1.2", CL_MAKE_VERSION(1, 2, 0), false},
    LanguageStd{"CL2.0", CL_MAKE_VERSION(2, 0, 0), false},
    LanguageStd{"CL3.0", CL_MAKE_VERSION(3, 0, 0), false},
    LanguageStd{"CLC++", CL_MAKE_VERSION(2, 0, 0), true},
    LanguageStd{"CLC++1.0", CL_MAKE_VERSION(2, 0, 0), true},
    LanguageStd{"CLC++2021", CL_MAKE_VERSION(3, 0, 0), true},
};

const char *useName(OptionsUse use) {
  switch (use) {
  case OptionsUse::Build:
    return "clBuildProgram";
  case OptionsUse::Compile:
    return "clCompileProgram";
  case OptionsUse::Link:
    return "clLinkProgram";
  }
  return "";
}

class Parser {
public:
  Parser(std::vector<std::string> words, OptionsUse use, BuildOptions &options)
      : words_(std::move(words)), use_(use), options_(options) {}

  std::string run() {
    for (index_ = 0; index_ < words_.size(); ++index_)
      if (std::string error = parseOne(words_[index_]); !error.empty())
        return error;
    if (options_.enableLinkOptions && !options_.createLibrary)
      return "-enable-link-options is only valid together with -create-library";
    return {};
  }

private:
  std::string parseOne(const std::string &word) {
    for (const Flag &flag : kFlags)
      if (word == flag.name)
        return applyFlag(flag);
    if (word.starts_with("-D") || word.starts_with("-I"))
      return applyPreprocessor(word);
    if (word.starts_with("-cl-std="))
      return applyLanguageStd(word);
    if (word == "-x" || word.starts_with("-spir-std="))
      return rejectSpir(word);
    return "invalid option '" + word + "' for " + useName(use_);
  }

  std::string notValidHere(std::string_view option) const {
    return std::string("option '") + std::string(option) + "' is not valid for " + useName(use_);
  }

  bool accepts(unsigned uses) const { return (uses & (1u << unsigned(use_))) != 0; }

  std::string applyFlag(const Flag &flag) {
    if (!accepts(flag.uses))
      return notValidHere(flag.name);
    for (std::string_view arg : flag.clangArgs)
      if (!arg.empty())
        options_.frontendArgs.emplace_back(arg);
    if (flag.field)
      options_.*flag.field = true;
    return {};
  }

  // -D and -I take their value attached (-DNAME=1, -Idir) or as the next word (-D NAME).
  std::string applyPreprocessor(const std::string &word) {
    std::string option = word.substr(0, 2);
    if (!accepts(kCompileOptions))
      return notValidHere(option);
    std::string value = word.substr(2);
    if (value.empty()) {
      if (index_ + 1 >= words_.size())
        return "option '" + option + "' needs a value";
      value = words_[++index_];
    }
    if (value.empty() || (option == "-D" && value.front() == '='))
      return "option '" + option + "' needs a " + (option == "-D" ? "macro name" : "directory");
    options_.frontendArgs.push_back(option);
    options_.frontendArgs.push_back(std::move(value));
    return {};
  }

  std::string applyLanguageStd(const std::string &word) {
    if (!accepts(kCompileOptions))
      return notValidHere(word);
    std::string_view value = std::string_view(word).substr(sizeof("-cl-std=") - 1);
    for (const LanguageStd &std : kLanguageStds) {
      if (value == std.name) {
        options_.languageVersion = std.version;
        options_.cxxForOpenCL = std.cxx;
        return {};
      }
    }
    return "invalid value '" + std::string(value) +
           "' for -cl-std (expected CL1.0, CL1.1, CL1.2, CL2.0, CL3.0, CLC++, CLC++1.0 or "
           "CLC++2021)";
  }

  // -x spir and -spir-std=1.2 build programs from SPIR 1.2 binaries (cl_khr_spir), which Kiln
  // does not implement.
  std::string rejectSpir(const std::string &word) {
    if (word == "-x") {
      if (index_ + 1 >= words_.size() || words_[index_ + 1] != "spir")
        return "invalid option '-x" +
               (index_ + 1 < words_.size() ? " " + words_[index_ + 1] : std::string()) + "' for " +
               useName(use_) + " (only '-x spir' is defined)";
      return "option '-x spir' is not supported: Kiln does not accept SPIR 1.2 binaries "
             "(cl_khr_spir)";
    }
    return "option '" + word +
           "' is not supported: Kiln does not accept SPIR 1.2 binaries "
           "(cl_khr_spir)";
  }

  std::vector<std::string> words_;
  OptionsUse use_;
  BuildOptions &options_;
  size_t index_ = 0;
};

} // namespace

std::string parseBuildOptions(std::string_view text, OptionsUse use, BuildOptions &options) {
  options = BuildOptions{};
  std::string error;
  std::optional<std::vector<std::string>> words = tokenize(text, error);
  if (!words)
    return error;
  return Parser(std::move(*words), use, options).run();
}

} // namespace kiln::compiler
