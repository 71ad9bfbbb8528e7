// Weak references to reference-counted objects.
//
// Some holders must name an object without keeping it alive: a kernel argument names a buffer,
// yet the application may release that buffer, and its destructor callbacks must then run (the
// specification and the CTS both expect this). A WeakRef lets such a holder find out later,
// without reading freed memory, whether the object still exists, and take a counted reference
// if it does.
#pragma once

#include "runtime/objects/object.hpp"

#include <memory>
#include <mutex>

namespace kiln {

/// Shared between an object and its weak references; outlives the object.
class WeakAnchor {
public:
  explicit WeakAnchor(void *object) : object_(object) {}

  /// Called first thing in the object's destructor. Waits for a concurrent lock() to finish,
  /// so that no WeakRef touches the object after this returns.
  void detach() {
    std::lock_guard lock(mutex_);
    object_ = nullptr;
  }

private:
  template <typename T> friend class WeakRef;
  std::mutex mutex_;
  void *object_;
};

template <typename T> class WeakRef {
public:
  WeakRef() = default;
  explicit WeakRef(std::shared_ptr<WeakAnchor> anchor) : anchor_(std::move(anchor)) {}

  /// True when this names no object at all (as opposed to one that has been destroyed).
  bool isEmpty() const { return anchor_ == nullptr; }

  /// A counted reference to the object, or null once it has been destroyed or is being
  /// destroyed.
  Ref<T> lock() const {
    if (anchor_ == nullptr)
      return nullptr;
    std::lock_guard lock(anchor_->mutex_);
    auto *object = static_cast<T *>(anchor_->object_);
    if (object == nullptr || !object->tryRetainInternal())
      return nullptr;
    return Ref<T>::adopt(object);
  }

private:
  std::shared_ptr<WeakAnchor> anchor_;
};

} // namespace kiln
