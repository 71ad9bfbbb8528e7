// cl_mem: buffers, sub-buffers, images and pipes. Every memory object lives in host memory, which
// the CPU device uses directly (maps are zero-copy).
#pragma once

#include "runtime/images/image_description.hpp"
#include "runtime/images/image_kernel_descriptor.hpp"
#include "runtime/objects/object.hpp"
#include "runtime/objects/weak_ref.hpp"

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace kiln {

class Context;

/// Bytes past the end of its object that storage from allocateHostStorage lets code read:
/// zeros that belong to no object and are never written. A loop that reads an index array in
/// order may then read a little ahead of itself with no bound to check (the CPU device's
/// indirect prefetch reads the index 256 bytes ahead) whenever the array is such storage.
inline constexpr size_t kStorageReadSlackBytes = 256;

/// Frees a memory object's storage: with std::free (storage from std::aligned_alloc), by
/// unmapping `mappedBytes` (storage mapped for it alone), or with `release` of the device driver
/// `owner` that allocated it (drivers live as long as the process). `readSlackBytes`: the
/// readable bytes the storage has past the size it was asked for.
struct StorageRelease {
  void (*release)(void *owner, std::byte *pointer) = nullptr;
  void *owner = nullptr;
  size_t mappedBytes = 0;
  size_t readSlackBytes = 0;
  void operator()(std::byte *pointer) const;
};
using AlignedStorage = std::unique_ptr<std::byte[], StorageRelease>;

/// Allocates `size` bytes aligned to `alignment`; null when out of memory.
AlignedStorage allocateAligned(size_t size, size_t alignment);

/// Allocates `size` bytes of host memory for a memory object, aligned to `alignment`, followed
/// by kStorageReadSlackBytes of read slack; null when out of memory. Objects of 2 MiB or more are
/// mapped on their own, aligned to 2 MiB, and asked to be backed by transparent huge pages: kernels
/// walk buffers in strides (a matrix's columns, a grid-stride loop over a large array), and with 4
/// KiB pages every stride is a TLB miss. Linux's default (`madvise` in
/// /sys/kernel/mm/transparent_hugepage/enabled) gives huge pages only on request, and only to pages
/// not yet touched: memory the C library's heap recycles (where it puts allocations of a few MiB
/// once the application has freed larger ones) keeps the small pages it had. The suite's CSR SpMV,
/// run after other workloads had freed their buffers, ran at 1.8-2.5 GFLOP/s on such memory and
/// at 2.5-2.9 on mappings of its own.
AlignedStorage allocateHostStorage(size_t size, size_t alignment);

/// Where a memory object's storage lives in a context with a device of its own memory.
enum class MemoryPlacement {
  /// Where the devices use it fastest (a GPU's memory, moving to the host when it touches it).
  Device,
  /// In the host's memory, pinned, which a GPU reads and writes over the bus
  /// (CL_MEM_ALLOC_HOST_PTR): maps cost nothing and copies to and from it run at the bus's full
  /// speed.
  Host,
};

/// The placement a memory object with `flags` asks for: its storage goes to the host's memory
/// when the application asks for host memory (CL_MEM_ALLOC_HOST_PTR, which sub-buffers and
/// images over a buffer inherit).
inline MemoryPlacement placementOf(cl_mem_flags flags) {
  return (flags & CL_MEM_ALLOC_HOST_PTR) ? MemoryPlacement::Host : MemoryPlacement::Device;
}

/// What clGetPipeInfo reports of a pipe.
struct PipeDescription {
  cl_uint packetSize, maxPackets;
};

class MemObject : public Object<_cl_mem, ObjectKind::Memory>, public RefCounted<MemObject> {
public:
  using DestructorCallback = void(CL_CALLBACK *)(cl_mem, void *);

  /// Storage alignment: CL_DEVICE_MEM_BASE_ADDR_ALIGN of every Kiln device, in bytes.
  static constexpr size_t kBaseAlignment = 128;

  /// A buffer. `storage` is null for CL_MEM_USE_HOST_PTR, whose storage is `hostPointer`.
  MemObject(Context &context, cl_mem_flags flags, size_t size, void *hostPointer,
            AlignedStorage storage, std::vector<cl_mem_properties> properties);
  /// A sub-buffer of `parent` (a buffer), `origin` bytes into it.
  MemObject(MemObject &parent, cl_mem_flags flags, size_t origin, size_t size);
  /// An image with storage of its own (`storage`, or `hostPointer` for CL_MEM_USE_HOST_PTR).
  MemObject(Context &context, cl_mem_flags flags, const ImageDescription &image, size_t size,
            void *hostPointer, AlignedStorage storage, std::vector<cl_mem_properties> properties);
  /// An image whose elements are those of `buffer` (1D buffer images, 2D images from buffers).
  MemObject(MemObject &buffer, cl_mem_flags flags, const ImageDescription &image, size_t size,
            std::vector<cl_mem_properties> properties);
  /// A pipe: `storage` holds its header, slots and packets (pipe_storage.hpp), already
  /// initialized.
  MemObject(Context &context, cl_mem_flags flags, const PipeDescription &pipe, size_t size,
            AlignedStorage storage);
  ~MemObject();

  Context &context() const { return *context_; }
  cl_mem_object_type type() const {
    if (image_)
      return image_->description.type;
    return pipe_ ? CL_MEM_OBJECT_PIPE : CL_MEM_OBJECT_BUFFER;
  }
  /// Null unless a pipe.
  const PipeDescription *pipe() const { return pipe_ ? &*pipe_ : nullptr; }
  /// Null for buffers.
  const ImageDescription *image() const { return image_ ? &image_->description : nullptr; }
  /// What a kernel receives for this image; null for buffers.
  const ImageKernelDescriptor *kernelDescriptor() const {
    return image_ ? &image_->kernelDescriptor : nullptr;
  }
  cl_mem_flags flags() const { return flags_; }
  size_t size() const { return size_; }
  /// CL_MEM_HOST_PTR: what the application gave (offset into it for sub-buffers).
  void *hostPointer() const { return hostPointer_; }
  MemObject *parent() const { return parent_.get(); }
  size_t origin() const { return origin_; }
  const std::vector<cl_mem_properties> &properties() const { return properties_; }

  /// The bytes of the buffer, which every device of the context addresses (and the host too).
  std::byte *data() const { return data_; }
  /// Whether kStorageReadSlackBytes past the end of data() may be read: the storage is Kiln's
  /// host storage (a sub-buffer's or an image's over a buffer is its parent's, which extends at
  /// least as far), not the application's memory or a device driver's.
  bool hasReadSlack() const {
    if (parent_)
      return parent_->hasReadSlack();
    return storage_ && storage_.get_deleter().readSlackBytes >= kStorageReadSlackBytes;
  }

  /// Whether data() is a copy of the application's memory (CL_MEM_USE_HOST_PTR in a context
  /// whose devices cannot address ordinary host memory, such as a GPU's): maps then copy to the
  /// application's memory and unmaps back from it.
  bool cachesHostMemory() const { return hostPointer_ != nullptr && data_ != hostPointer_; }
  /// Where a mapping of the bytes at `offset` starts: the application's memory for
  /// CL_MEM_USE_HOST_PTR (as the specification requires), else the buffer itself.
  std::byte *mapAddress(size_t offset) const {
    return static_cast<std::byte *>(hostPointer_ != nullptr ? hostPointer_ : data_) + offset;
  }
  /// Where a map of this buffer's bytes at `offset` starts. In a context with a device of its
  /// own memory (a GPU), a buffer that neither the application's memory nor pinned host memory
  /// holds is mapped through a copy in pinned host memory, which the device's copy engines fill
  /// and drain at the bus's full speed: made on the first map, kept for the next ones. Else,
  /// or when pinned memory runs out, mapAddress().
  std::byte *prepareMapAddress(size_t offset);

  /// One clEnqueueMap* of this object: where, which bytes, whether the host may write them, and
  /// whether they are a copy of the object's bytes (copied back by the unmap when written).
  struct Mapping {
    void *pointer;
    size_t offset, size;
    bool writes;
    bool throughCopy;
  };
  /// CL_MEM_MAP_COUNT.
  cl_uint mapCount() const;
  void recordMapping(const Mapping &mapping);
  /// Forgets one mapping at `pointer` (or, failing that, the one mapping whose bytes hold it)
  /// and returns it; nothing when `pointer` is not mapped from this object.
  std::optional<Mapping> removeMapping(void *pointer);

  void addDestructorCallback(DestructorCallback callback, void *userData);

  /// A reference that does not keep this buffer alive (kernel arguments).
  WeakRef<MemObject> weakRef();

  /// A count that moves whenever a command that may change an image's elements is started or
  /// finishes (markWrittenImages()): a device that keeps a copy of the elements (a GPU's texture
  /// array) makes a new copy only when it moved. Images over a buffer's storage do not count the
  /// buffer's writes, so their copies are always remade.
  uint64_t contentsVersion() const { return contentsVersion_.load(std::memory_order_acquire); }
  void noteContentsChanged() { contentsVersion_.fetch_add(1, std::memory_order_acq_rel); }

  /// What the device driver `driver` keeps for this object (a GPU's copy of an image, say):
  /// made by `make` on the driver's first call, destroyed with the object. A null result of
  /// `make` is not kept, and the next call tries again.
  std::shared_ptr<void> deviceState(const void *driver,
                                    const std::function<std::shared_ptr<void>()> &make);

private:
  Ref<Context> context_;
  Ref<MemObject> parent_;
  cl_mem_flags flags_;
  size_t size_;
  size_t origin_ = 0;
  void *hostPointer_;
  AlignedStorage storage_;
  std::byte *data_;
  AlignedStorage mapStaging_; // see prepareMapAddress()
  std::vector<cl_mem_properties> properties_;
  /// An image's layout and the descriptor kernels get, made together over data_ by
  /// imageOver(): every kind of image, with storage of its own or a buffer's, has both.
  struct ImageParts {
    ImageDescription description;
    ImageKernelDescriptor kernelDescriptor;
  };
  static ImageParts imageOver(const ImageDescription &image, std::byte *data) {
    return {image, kernelDescriptorOf(image, data)};
  }
  std::optional<ImageParts> image_;
  std::optional<PipeDescription> pipe_;
  std::atomic<uint64_t> contentsVersion_{0};

  mutable std::mutex mutex_;
  std::vector<Mapping> mappings_;
  std::vector<std::pair<DestructorCallback, void *>> destructorCallbacks_;
  std::vector<std::pair<const void *, std::shared_ptr<void>>> deviceStates_;
  /// Made on the first weakRef(), so buffers never set as kernel arguments cost nothing more.
  std::shared_ptr<WeakAnchor> weakAnchor_;
};

} // namespace kiln
