// The base of every OpenCL object Kiln hands to applications.
//
// Layout rule (cl_khr_icd): the loader reads the first pointer of every handle as its dispatch
// table, so each object class derives first from its `_cl_*` handle struct and has no virtual
// functions (a vtable pointer would take offset 0). Polymorphism lives in members instead.
//
// Lifetime rule: the application's clRetain*/clRelease* move an *external* count, which is what
// CL_*_REFERENCE_COUNT reports. Kiln's own holders (in-flight commands, kernels holding their
// program, ...) move an *internal* count. The external references together hold one internal
// reference, so an object is destroyed only when the application has released it and nothing
// inside Kiln still uses it.
#pragma once

#include "support/icd_handles.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

namespace kiln {

enum class ObjectKind : uint32_t {
  Platform = 1,
  Device,
  Context,
  Queue,
  Memory,
  Sampler,
  Program,
  Kernel,
  Event,
  CommandBuffer,
  MutableCommand,
};

/// The dispatch table shared by all Kiln objects (defined in api/icd_dispatch.cpp).
const cl_icd_dispatch &icdDispatchTable();

/// Puts the dispatch pointer first and carries a tag that identifies live Kiln objects, so the
/// API layer can reject NULL, foreign, mistyped and destroyed handles before any downcast.
template <typename Handle, ObjectKind Kind> class Object : public Handle {
public:
  static constexpr ObjectKind kind = Kind;

  Object() { this->dispatch = const_cast<cl_icd_dispatch *>(&icdDispatchTable()); }
  ~Object() { tag_ = 0; }
  Object(const Object &) = delete;
  Object &operator=(const Object &) = delete;

  /// True when `handle` points at a live Kiln object of this kind. Reads only the first bytes
  /// of the handle, which every ICD object has.
  static bool isObject(const Handle *handle) {
    if (handle == nullptr || handle->dispatch != &icdDispatchTable())
      return false;
    return static_cast<const Object *>(handle)->tag_ == liveTag;
  }

private:
  static constexpr uint32_t liveTag = 0x4b490000u | static_cast<uint32_t>(Kind); // "KI" + kind
  uint32_t tag_ = liveTag;
};

/// Separate external (application) and internal (Kiln) reference counts; see the file comment.
template <typename Derived> class RefCounted {
public:
  RefCounted() = default;
  RefCounted(const RefCounted &) = delete;
  RefCounted &operator=(const RefCounted &) = delete;

  /// The application's clRetain*.
  void retainExternal() { external_.fetch_add(1, std::memory_order_relaxed); }

  /// The application's clRelease*. Returns true when this was the last external reference.
  /// An object that must react when the application lets go of it (while Kiln may still use it)
  /// defines `lastExternalReleased()`.
  bool releaseExternal() {
    if (external_.fetch_sub(1, std::memory_order_acq_rel) != 1)
      return false;
    if constexpr (requires(Derived & object) { object.lastExternalReleased(); })
      static_cast<Derived *>(this)->lastExternalReleased();
    releaseInternal();
    return true;
  }

  void retainInternal() { internal_.fetch_add(1, std::memory_order_relaxed); }

  /// Takes an internal reference unless the object is already being destroyed (its internal
  /// count reached zero). For WeakRef, which calls it while the object cannot go away.
  bool tryRetainInternal() {
    uint32_t count = internal_.load(std::memory_order_relaxed);
    while (count != 0)
      if (internal_.compare_exchange_weak(count, count + 1, std::memory_order_relaxed))
        return true;
    return false;
  }

  void releaseInternal() {
    if (internal_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      std::default_delete<Derived>{}(static_cast<Derived *>(this));
  }

  /// Kiln's references (one stands for all of the application's while it has any).
  uint32_t internalCount() const { return internal_.load(std::memory_order_acquire); }

  /// What CL_*_REFERENCE_COUNT reports.
  uint32_t externalCount() const { return external_.load(std::memory_order_relaxed); }

  /// False once the application has released its last reference: the handle is stale for the
  /// application even while Kiln still finishes work that uses the object.
  bool isExternallyAlive() const { return externalCount() > 0; }

private:
  std::atomic<uint32_t> external_{1};
  std::atomic<uint32_t> internal_{1}; // the one held on behalf of all external references
};

/// An internal (Kiln-side) counted reference.
template <typename T> class Ref {
public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  /// Takes a new internal reference to `object`.
  explicit Ref(T *object) : object_(object) {
    if (object_ != nullptr)
      object_->retainInternal();
  }
  /// Wraps an internal reference the caller already holds.
  static Ref adopt(T *object) {
    Ref adopted;
    adopted.object_ = object;
    return adopted;
  }
  Ref(const Ref &other) : Ref(other.object_) {}
  Ref(Ref &&other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
  Ref &operator=(Ref other) noexcept {
    std::swap(object_, other.object_);
    return *this;
  }
  ~Ref() {
    if (object_ != nullptr)
      object_->releaseInternal();
  }

  T *get() const { return object_; }
  T *operator->() const { return object_; }
  T &operator*() const { return *object_; }
  explicit operator bool() const { return object_ != nullptr; }
  bool operator==(const Ref &other) const = default;

private:
  T *object_ = nullptr;
};

/// Creates an object whose single external reference belongs to the caller (the application).
template <typename T, typename... Args> T *createObject(Args &&...args) {
  return std::make_unique<T>(std::forward<Args>(args)...).release();
}

} // namespace kiln
