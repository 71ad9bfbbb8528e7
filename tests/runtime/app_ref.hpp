// Runtime objects that the tests create as an application would (with the application's
// reference, createObject) and give back at the end of the test.
#pragma once

#include "runtime/objects/object.hpp"

#include <memory>
#include <utility>

namespace kiln {

template <typename T> struct Released {
  void operator()(T *object) const { object->releaseExternal(); }
};
template <typename T> using AppRef = std::unique_ptr<T, Released<T>>;

template <typename T, typename... Args> AppRef<T> make(Args &&...args) {
  return AppRef<T>(createObject<T>(std::forward<Args>(args)...));
}

} // namespace kiln
