#include "compiler/llvm/bitcode_io.hpp"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Triple.h"

#include <optional>

namespace kiln::compiler {
namespace {

constexpr uint32_t kWrapperMagic = 0x0B17C0DE;
constexpr size_t kWrapperHeaderSize = 20;
constexpr char kChecksumMark[4] = {'K', 'I', 'L', 'N'};
constexpr size_t kTrailerSize = sizeof(kChecksumMark) + sizeof(uint64_t);

uint64_t checksum(std::span<const uint8_t> bytes) {
  return llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()));
}

/// The bitcode inside an intact Kiln module, or why there is none.
llvm::Expected<std::span<const uint8_t>> unwrap(std::span<const uint8_t> bytes) {
  auto fail = [](const char *why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
  };
  using llvm::support::endian::read32le;
  using llvm::support::endian::read64le;
  if (bytes.empty())
    return fail("empty module");
  if (bytes.size() < kWrapperHeaderSize + kTrailerSize || read32le(bytes.data()) != kWrapperMagic)
    return fail("not a Kiln module (no bitcode wrapper)");
  uint64_t offset = read32le(bytes.data() + 8);
  uint64_t size = read32le(bytes.data() + 12);
  if (offset != kWrapperHeaderSize || offset + size + kTrailerSize != bytes.size())
    return fail("damaged module (its size does not match its header; truncated?)");
  const uint8_t *trailer = bytes.data() + offset + size;
  if (!std::equal(std::begin(kChecksumMark), std::end(kChecksumMark), trailer))
    return fail("not a Kiln module (no checksum)");
  if (read64le(trailer + sizeof(kChecksumMark)) != checksum(bytes.first(offset + size)))
    return fail("damaged module (checksum mismatch)");
  return bytes.subspan(offset, size);
}

} // namespace

llvm::Expected<std::unique_ptr<llvm::Module>>
readModule(std::span<const uint8_t> bytes, llvm::LLVMContext &context, llvm::StringRef what) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), what + ": " + why);
  };
  llvm::Expected<std::span<const uint8_t>> bitcode = unwrap(bytes);
  if (!bitcode)
    return fail(llvm::toString(bitcode.takeError()));
  llvm::MemoryBufferRef buffer(
      llvm::StringRef(reinterpret_cast<const char *>(bitcode->data()), bitcode->size()), what);
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
  llvm::SmallVector<char, 0> bitcode;
  llvm::raw_svector_ostream stream(bitcode);
  llvm::WriteBitcodeToFile(module, stream);
  if (bitcode.size() > UINT32_MAX - kWrapperHeaderSize) // the wrapper has 32-bit sizes
    llvm::report_fatal_error("the module is too large (over 4 GiB of bitcode)");

  Bitcode result(kWrapperHeaderSize);
  using llvm::support::endian::write32le;
  write32le(result.data(), kWrapperMagic);
  write32le(result.data() + 4, 0); // version
  write32le(result.data() + 8, kWrapperHeaderSize);
  write32le(result.data() + 12, uint32_t(bitcode.size()));
  write32le(result.data() + 16, 0); // CPU type: none
  result.insert(result.end(), bitcode.begin(), bitcode.end());
  uint64_t sum = checksum(result);
  result.insert(result.end(), std::begin(kChecksumMark), std::end(kChecksumMark));
  result.resize(result.size() + sizeof(sum));
  llvm::support::endian::write64le(result.data() + result.size() - sizeof(sum), sum);
  return result;
}

} // namespace kiln::compiler
