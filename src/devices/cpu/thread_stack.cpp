#include "devices/cpu/thread_stack.hpp"

#include <pthread.h>

namespace kiln::cpu {

namespace {

ThreadStack readThreadStack() {
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

} // namespace

ThreadStack currentThreadStack() {
  // A thread's stack never moves: remembering it is no shared state.
  thread_local const ThreadStack stack = readThreadStack();
  return stack;
}

uint64_t freeStackBytes() {
  ThreadStack stack = currentThreadStack();
  const std::byte *here = static_cast<const std::byte *>(__builtin_frame_address(0));
  if (stack.base == nullptr || here < stack.base || here >= stack.base + stack.size)
    return 0;
  return static_cast<uint64_t>(here - stack.base);
}

} // namespace kiln::cpu
