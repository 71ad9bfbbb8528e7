#include "runtime/objects/memory.hpp"

#include "runtime/objects/context.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace kiln {

void StorageRelease::operator()(std::byte *pointer) const {
  if (release != nullptr)
    release(owner, pointer);
#if defined(__linux__)
  else if (mappedBytes != 0)
    munmap(pointer, mappedBytes);
#endif
  else
    std::free(pointer);
}

AlignedStorage allocateAligned(size_t size, size_t alignment) {
  // std::aligned_alloc wants a size that is a multiple of the alignment.
  size_t rounded = (size + alignment - 1) / alignment * alignment;
  if (rounded < size)
    return nullptr;
  return AlignedStorage(static_cast<std::byte *>(std::aligned_alloc(alignment, rounded)));
}

namespace {

constexpr size_t kHugePageBytes = size_t{2} << 20;

#if defined(__linux__)
/// `size` bytes (a multiple of kHugePageBytes) mapped for themselves at a kHugePageBytes
/// boundary, asked to be backed by huge pages; null when out of memory.
AlignedStorage mapHugePageAligned(size_t size) {
  if (size > SIZE_MAX - kHugePageBytes)
    return nullptr;
  size_t mapped = size + kHugePageBytes;
  void *mapping = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED)
    return nullptr;
  // Keep the aligned part only.
  auto *start = static_cast<std::byte *>(mapping);
  size_t head =
      (kHugePageBytes - reinterpret_cast<uintptr_t>(start) % kHugePageBytes) % kHugePageBytes;
  if (head != 0)
    munmap(start, head);
  if (size_t tail = mapped - head - size; tail != 0)
    munmap(start + head + size, tail);
#if defined(MADV_HUGEPAGE)
  // Advice only: where huge pages are off or none is free, the kernel uses small pages.
  madvise(start + head, size, MADV_HUGEPAGE);
#endif
  return AlignedStorage(start + head, StorageRelease{.mappedBytes = size});
}
#endif

/// `size` bytes of host memory aligned to `alignment`; large ones mapped on their own (see
/// allocateHostStorage).
AlignedStorage allocateHostBytes(size_t size, size_t alignment) {
#if defined(__linux__)
  size_t rounded = (size + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (size >= kHugePageBytes && alignment <= kHugePageBytes && rounded >= size)
    return mapHugePageAligned(rounded);
#endif
  return allocateAligned(size, alignment);
}

} // namespace

AlignedStorage allocateHostStorage(size_t size, size_t alignment) {
  size_t padded = size + kStorageReadSlackBytes;
  if (padded < size)
    return nullptr;
  AlignedStorage storage = allocateHostBytes(padded, alignment);
  if (!storage)
    return nullptr;
  // What is read there only ever steers a prefetch, but defined bytes keep memory checkers
  // (valgrind) quiet. (Mappings are zeros already; the heap's memory may not be.)
  std::memset(storage.get() + size, 0, kStorageReadSlackBytes);
  storage.get_deleter().readSlackBytes = kStorageReadSlackBytes;
  return storage;
}

MemObject::MemObject(Context &context, cl_mem_flags flags, size_t size, void *hostPointer,
                     AlignedStorage storage, std::vector<cl_mem_properties> properties)
    : context_(&context), flags_(flags), size_(size), hostPointer_(hostPointer),
      storage_(std::move(storage)), properties_(std::move(properties)) {
  data_ = storage_ ? storage_.get() : static_cast<std::byte *>(hostPointer);
}

MemObject::MemObject(MemObject &parent, cl_mem_flags flags, size_t origin, size_t size)
    : context_(&parent.context()), parent_(&parent), flags_(flags), size_(size), origin_(origin),
      hostPointer_(parent.hostPointer() != nullptr
                       ? static_cast<std::byte *>(parent.hostPointer()) + origin
                       : nullptr),
      data_(parent.data() + origin) {}

MemObject::MemObject(Context &context, cl_mem_flags flags, const ImageDescription &image,
                     size_t size, void *hostPointer, AlignedStorage storage,
                     std::vector<cl_mem_properties> properties)
    : MemObject(context, flags, size, hostPointer, std::move(storage), std::move(properties)) {
  image_ = imageOver(image, data_);
}

MemObject::MemObject(Context &context, cl_mem_flags flags, const PipeDescription &pipe, size_t size,
                     AlignedStorage storage)
    : MemObject(context, flags, size, nullptr, std::move(storage), {}) {
  pipe_ = pipe;
}

MemObject::MemObject(MemObject &buffer, cl_mem_flags flags, const ImageDescription &image,
                     size_t size, std::vector<cl_mem_properties> properties)
    : context_(&buffer.context()), parent_(&buffer), flags_(flags), size_(size),
      hostPointer_(buffer.hostPointer()), data_(buffer.data()), properties_(std::move(properties)),
      // Kernels address the buffer's own bytes: what they write through the image, the buffer
      // holds.
      image_(imageOver(image, data_)) {}

MemObject::~MemObject() {
  // No lock: weakRef() needs a live handle, so it cannot run while the buffer is destroyed.
  if (weakAnchor_ != nullptr)
    weakAnchor_->detach();
  // Run before the storage goes: the callbacks may free the application's host pointer, but
  // the specification lets them assume the memory object is no longer used.
  for (auto it = destructorCallbacks_.rbegin(); it != destructorCallbacks_.rend(); ++it)
    it->first(this, it->second);
}

WeakRef<MemObject> MemObject::weakRef() {
  std::lock_guard lock(mutex_);
  if (weakAnchor_ == nullptr)
    weakAnchor_ = std::make_shared<WeakAnchor>(this);
  return WeakRef<MemObject>(weakAnchor_);
}

std::shared_ptr<void> MemObject::deviceState(const void *driver,
                                             const std::function<std::shared_ptr<void>()> &make) {
  std::lock_guard lock(mutex_);
  for (const auto &[owner, state] : deviceStates_)
    if (owner == driver)
      return state;
  std::shared_ptr<void> state = make();
  if (state != nullptr)
    deviceStates_.emplace_back(driver, state);
  return state;
}

std::byte *MemObject::prepareMapAddress(size_t offset) {
  bool staged = type() == CL_MEM_OBJECT_BUFFER && hostPointer_ == nullptr &&
                placementOf(flags_) == MemoryPlacement::Device && context_->hasDeviceMemory();
  if (!staged)
    return mapAddress(offset);
  std::lock_guard lock(mutex_);
  if (mapStaging_ == nullptr)
    mapStaging_ = context_->allocateStorage(size_, MemoryPlacement::Host);
  return (mapStaging_ != nullptr ? mapStaging_.get() : data_) + offset;
}

cl_uint MemObject::mapCount() const {
  std::lock_guard lock(mutex_);
  return static_cast<cl_uint>(mappings_.size());
}

void MemObject::recordMapping(const Mapping &mapping) {
  std::lock_guard lock(mutex_);
  mappings_.push_back(mapping);
}

std::optional<MemObject::Mapping> MemObject::removeMapping(void *pointer) {
  std::lock_guard lock(mutex_);
  auto found = std::find_if(mappings_.begin(), mappings_.end(),
                            [&](const Mapping &mapping) { return mapping.pointer == pointer; });
  // Applications written for runtimes that accepted it (the AMD APP SDK's samples) unmap with a
  // pointer they have advanced through the mapped bytes: a pointer into exactly one mapping
  // (its end included) unmaps that mapping.
  if (found == mappings_.end()) {
    auto contains = [&](const Mapping &mapping) {
      auto *begin = static_cast<std::byte *>(mapping.pointer);
      auto *at = static_cast<std::byte *>(pointer);
      return at > begin && at <= begin + mapping.size;
    };
    found = std::find_if(mappings_.begin(), mappings_.end(), contains);
    if (found != mappings_.end() &&
        std::find_if(std::next(found), mappings_.end(), contains) != mappings_.end())
      found = mappings_.end();
  }
  if (found == mappings_.end())
    return std::nullopt;
  Mapping mapping = *found;
  mappings_.erase(found);
  return mapping;
}

void MemObject::addDestructorCallback(DestructorCallback callback, void *userData) {
  std::lock_guard lock(mutex_);
  destructorCallbacks_.emplace_back(callback, userData);
}

} // namespace kiln
