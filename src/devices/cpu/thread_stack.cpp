#include "devices/cpu/thread_stack.hpp"

#include <pthread.h>

namespace kiln::cpu {

ThreadStack currentThreadStack() {
  ThreadStack stack;
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) != 0)
    return stack;
  void *base = nullptr;
  size_t size = 0;
  if (pthread_attr_getstack(&attributes, &base, &size) == 0) {
    stack.base = static_cast<const std::byte *>(base);
    stack.size = size;
  }
  pthread_attr_destroy(&attributes);
  return stack;
}

} // namespace kiln::cpu
