#include "compiler/llvm/asm_register_constraints.hpp"

#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSet.h"

namespace kiln::compiler {
namespace {

bool isAsmKeyword(llvm::StringRef name) {
  return name == "asm" || name == "__asm" || name == "__asm__";
}

// What may stand between `asm` and its parenthesis.
bool isAsmQualifier(llvm::StringRef name) {
  static const llvm::StringSet<> qualifiers = {"volatile", "__volatile", "__volatile__", "inline",
                                               "__inline", "__inline__", "goto"};
  return qualifiers.contains(name);
}

/// Reads one `asm` statement's parenthesised part from `lexer`, whose last token was its opening
/// parenthesis, and replaces `letters` in the string literals that are operand constraints: those
/// at the outermost level after the first colon (outputs) and the second (inputs). The template
/// before them and the clobbers after them keep their text. Returns whether it replaced any.
bool rewriteAsmOperands(clang::Lexer &lexer, std::string &text, std::string_view letters) {
  bool replaced = false;
  int depth = 1;
  int section = 0;
  clang::Token token;
  while (depth > 0 && !lexer.LexFromRawLexer(token)) {
    switch (token.getKind()) {
    case clang::tok::l_paren:
    case clang::tok::l_square:
    case clang::tok::l_brace:
      ++depth;
      break;
    case clang::tok::r_paren:
    case clang::tok::r_square:
    case clang::tok::r_brace:
      --depth;
      break;
    case clang::tok::colon:
      section += depth == 1;
      break;
    case clang::tok::coloncolon:
      section += depth == 1 ? 2 : 0;
      break;
    case clang::tok::string_literal:
      if (depth == 1 && (section == 1 || section == 2)) {
        size_t begin = token.getLiteralData() - text.data();
        // Between the quotes; an escape keeps the character after it.
        for (size_t i = begin + 1; i + 1 < begin + token.getLength(); ++i) {
          if (text[i] == '\\')
            ++i;
          else if (letters.find(text[i]) != std::string_view::npos) {
            text[i] = 'r';
            replaced = true;
          }
        }
      }
      break;
    default:
      break;
    }
  }
  // The statement may end the text unclosed: the compile that follows says so.
  return replaced;
}

} // namespace

std::optional<std::string> readAsmRegisterClassesAsGeneric(std::string_view source,
                                                           std::string_view letters) {
  if (letters.empty() || source.find("asm") == std::string_view::npos)
    return std::nullopt;
  // The lexer wants the text to end with a NUL, which std::string keeps after its last character.
  std::string text(source);
  clang::LangOptions language;
  language.OpenCL = true;
  clang::Lexer lexer(clang::SourceLocation(), language, text.data(), text.data(),
                     text.data() + text.size());
  bool replaced = false;
  clang::Token token;
  while (!lexer.LexFromRawLexer(token)) {
    if (!token.is(clang::tok::raw_identifier) || !isAsmKeyword(token.getRawIdentifier()))
      continue;
    do {
      if (lexer.LexFromRawLexer(token))
        break;
    } while (token.is(clang::tok::raw_identifier) && isAsmQualifier(token.getRawIdentifier()));
    if (token.is(clang::tok::l_paren))
      replaced |= rewriteAsmOperands(lexer, text, letters);
  }
  if (!replaced)
    return std::nullopt;
  return text;
}

} // namespace kiln::compiler
