#include "compiler/llvm/bitcode_io.hpp"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

namespace kiln::compiler {

llvm::Expected<std::unique_ptr<llvm::Module>>
readModule(std::span<const uint8_t> bytes, llvm::LLVMContext &context, llvm::StringRef what) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), what + ": " + why);
  };
  if (bytes.empty())
    return fail("empty module");
  llvm::MemoryBufferRef buffer(
      llvm::StringRef(reinterpret_cast<const char *>(bytes.data()), bytes.size()), what);
  llvm::Expected<std::unique_ptr<llvm::Module>> module = llvm::parseBitcodeFile(buffer, context);
  if (!module)
    return fail("not valid LLVM bitcode (" + llvm::toString(module.takeError()) + ")");
  llvm::Triple triple((*module)->getTargetTriple());
  if (triple.getArch() != llvm::Triple::spir64)
    return fail("module is for '" + triple.str() + "', expected " + kSpirTriple);
  // The reader accepts some damage that leaves the IR inconsistent; the verifier catches it
  // before any later pass trips over it.
  std::string problems;
  llvm::raw_string_ostream problemStream(problems);
  if (llvm::verifyModule(**module, &problemStream))
    return fail("malformed module: " + problems);
  return module;
}

Bitcode writeModule(const llvm::Module &module) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::WriteBitcodeToFile(module, stream);
  return Bitcode(buffer.begin(), buffer.end());
}

} // namespace kiln::compiler
