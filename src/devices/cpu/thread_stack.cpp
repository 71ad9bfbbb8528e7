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

const ThreadStack &RememberedThreadStack::current() {
  // A thread's stack never moves, and a frame of the caller's lies in it: when this frame is in
  // the stack remembered, that is the caller's.
  if (!stack_.contains(__builtin_frame_address(0)))
    stack_ = readThreadStack();
  return stack_;
}

uint64_t RememberedThreadStack::freeBytes() {
  const ThreadStack &stack = current();
  const auto *here = static_cast<const std::byte *>(__builtin_frame_address(0));
  return stack.contains(here) ? static_cast<uint64_t>(here - stack.base) : 0;
}

} // namespace kiln::cpu
