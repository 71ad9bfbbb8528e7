// What every OpenCL entry point uses: export, handle validation, exception guards and the
// writing of clGet*Info results.
#pragma once

#include "runtime/objects/object.hpp"

#include <cstring>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

/// Exported from libkiln.so (everything else is hidden).
#define KILN_API extern "C" __attribute__((visibility("default")))

namespace kiln {
class Context;
class Event;
class Queue;
} // namespace kiln

namespace kiln::api {

/// The live Kiln object behind `handle`, or null for NULL, foreign, mistyped or released handles.
template <typename T, typename Handle> T *toObject(Handle *handle) {
  if (!T::isObject(handle))
    return nullptr;
  T *object = static_cast<T *>(handle);
  return object->isExternallyAlive() ? object : nullptr;
}

/// A host queue: null also for a device queue (CL_QUEUE_ON_DEVICE), which only kernels
/// enqueue on.
Queue *toHostQueue(cl_command_queue handle);

/// clRetain*: one more application reference, or `invalid` for a bad handle.
template <typename T, typename Handle> cl_int retainObject(Handle *handle, cl_int invalid) {
  T *object = toObject<T>(handle);
  if (object == nullptr)
    return invalid;
  object->retainExternal();
  return CL_SUCCESS;
}

/// clRelease*: one application reference less (Kiln's own references may keep the object).
template <typename T, typename Handle> cl_int releaseObject(Handle *handle, cl_int invalid) {
  T *object = toObject<T>(handle);
  if (object == nullptr)
    return invalid;
  object->releaseExternal();
  return CL_SUCCESS;
}

/// Runs an entry point's body; out-of-memory and other exceptions become error codes instead of
/// crossing the C API.
template <typename Body> cl_int guard(Body &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return CL_OUT_OF_HOST_MEMORY;
  } catch (...) {
    return CL_OUT_OF_RESOURCES;
  }
}

/// guard() for entry points that return an object and report errors through errcode_ret. The
/// body returns the handle and sets its cl_int& argument.
template <typename Handle, typename Body>
Handle guardCreate(cl_int *errcodeRet, Body &&body) noexcept {
  cl_int error = CL_SUCCESS;
  Handle handle = nullptr;
  try {
    handle = body(error);
  } catch (const std::bad_alloc &) {
    error = CL_OUT_OF_HOST_MEMORY;
  } catch (...) {
    error = CL_OUT_OF_RESOURCES;
  }
  if (errcodeRet != nullptr)
    *errcodeRet = error;
  return error == CL_SUCCESS ? handle : nullptr;
}

/// The output arguments of a clGet*Info call.
class InfoOutput {
public:
  InfoOutput(size_t valueSize, void *value, size_t *sizeRet)
      : valueSize_(valueSize), value_(value), sizeRet_(sizeRet) {}

  cl_int bytes(const void *data, size_t size) const {
    if (value_ != nullptr) {
      if (valueSize_ < size)
        return CL_INVALID_VALUE;
      if (size > 0)
        std::memcpy(value_, data, size);
    }
    if (sizeRet_ != nullptr)
      *sizeRet_ = size;
    return CL_SUCCESS;
  }

  template <typename T>
  requires std::is_trivially_copyable_v<T> cl_int operator()(const T &value) const {
    return bytes(&value, sizeof value);
  }
  cl_int operator()(const std::string &text) const { return bytes(text.c_str(), text.size() + 1); }
  cl_int operator()(const char *text) const { return bytes(text, std::strlen(text) + 1); }
  template <typename T> cl_int operator()(const std::vector<T> &values) const {
    return bytes(values.data(), values.size() * sizeof(T));
  }
  template <typename T> cl_int operator()(std::span<const T> values) const {
    return bytes(values.data(), values.size_bytes());
  }
  /// A cl_bool from a bool.
  cl_int boolean(bool value) const {
    return (*this)(static_cast<cl_bool>(value ? CL_TRUE : CL_FALSE));
  }

private:
  size_t valueSize_;
  void *value_;
  size_t *sizeRet_;
};

/// Checks an event wait list: CL_INVALID_EVENT_WAIT_LIST for a malformed list or an invalid
/// event, CL_INVALID_CONTEXT for an event of another context (when `context` is given).
cl_int validateWaitList(cl_uint count, const cl_event *list, const Context *context,
                        std::vector<Event *> &events);

/// Hands a command's event to the application when it asked for one (`eventOut` not null),
/// otherwise drops the application's reference the event was created with.
void returnEvent(Event &event, cl_event *eventOut);

} // namespace kiln::api
