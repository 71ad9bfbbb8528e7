//===- image_format_constants.cpp - Image formats known per launch -------===//
#include "devices/cpu/codegen/work_group/image_format_constants.hpp"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Operator.h"

#include <optional>

using namespace llvm;

namespace kiln::cpu {
namespace {

constexpr const char *kImageArgumentMark = "kiln.image_argument";

/// The value of the format field at `offset` bytes into the descriptor, if it is one.
std::optional<uint32_t> fieldAt(const ImageFormat &format, uint64_t offset) {
  switch (offset) {
  case kDescriptorChannelOrderOffset:
    return format.channelOrder;
  case kDescriptorChannelTypeOffset:
    return format.channelType;
  case kDescriptorElementSizeOffset:
    return format.elementSize;
  default:
    return std::nullopt;
  }
}

/// Replaces the 32-bit reads of `descriptor`'s format fields, reached through casts and
/// constant offsets, by `format`'s values.
unsigned substituteFields(Value &descriptor, const ImageFormat &format, const DataLayout &layout) {
  unsigned replaced = 0;
  SmallVector<std::pair<Value *, uint64_t>, 16> worklist{{&descriptor, 0}};
  SmallPtrSet<Value *, 16> visited{&descriptor};
  SmallVector<LoadInst *, 8> reads;
  SmallVector<uint32_t, 8> values;
  while (!worklist.empty()) {
    auto [pointer, offset] = worklist.pop_back_val();
    for (User *user : pointer->users()) {
      if (auto *read = dyn_cast<LoadInst>(user)) {
        std::optional<uint32_t> value = fieldAt(format, offset);
        if (value && read->getType()->isIntegerTy(32) && !read->isVolatile()) {
          reads.push_back(read);
          values.push_back(*value);
        }
        continue;
      }
      if (isa<BitCastInst, AddrSpaceCastInst>(user) && visited.insert(user).second) {
        worklist.push_back({user, offset});
        continue;
      }
      if (auto *step = dyn_cast<GEPOperator>(user);
          step && step->getPointerOperand() == pointer && visited.insert(user).second) {
        APInt stepOffset(layout.getIndexTypeSizeInBits(step->getType()), 0);
        if (step->accumulateConstantOffset(layout, stepOffset) && !stepOffset.isNegative())
          worklist.push_back({user, offset + stepOffset.getZExtValue()});
      }
    }
  }
  for (size_t index = 0; index < reads.size(); ++index) {
    reads[index]->replaceAllUsesWith(ConstantInt::get(reads[index]->getType(), values[index]));
    reads[index]->eraseFromParent();
    ++replaced;
  }
  return replaced;
}

} // namespace

void markImageArgument(LoadInst &read, unsigned ordinal) {
  LLVMContext &context = read.getContext();
  read.setMetadata(kImageArgumentMark,
                   MDNode::get(context, ConstantAsMetadata::get(
                                            ConstantInt::get(Type::getInt32Ty(context), ordinal))));
}

unsigned substituteImageFormats(Function &function,
                                const std::array<ImageFormat, kSpecializedImages> &formats) {
  SmallVector<std::pair<LoadInst *, unsigned>, 4> images;
  for (Instruction &instruction : instructions(function))
    if (MDNode *mark = instruction.getMetadata(kImageArgumentMark))
      if (auto *ordinal = mdconst::dyn_extract<ConstantInt>(mark->getOperand(0)))
        if (ordinal->getZExtValue() < kSpecializedImages)
          images.push_back({cast<LoadInst>(&instruction), ordinal->getZExtValue()});
  unsigned replaced = 0;
  for (auto [descriptor, ordinal] : images)
    if (formats[ordinal].channelOrder != 0)
      replaced += substituteFields(*descriptor, formats[ordinal], function.getDataLayout());
  return replaced;
}

} // namespace kiln::cpu
