#include "devices/cuda/event_pool.hpp"

namespace kiln::cuda {

EventPool::~EventPool() {
  for (std::vector<CUevent> &events : free_)
    for (CUevent event : events)
      cuda_.eventDestroy(event);
}

CUevent EventPool::acquire(bool timed) {
  {
    std::lock_guard lock(mutex_);
    std::vector<CUevent> &events = free_[timed];
    if (!events.empty()) {
      CUevent event = events.back();
      events.pop_back();
      return event;
    }
  }
  CUevent event = nullptr;
  if (cuda_.eventCreate(&event, timed ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
    return nullptr;
  return event;
}

void EventPool::release(CUevent event, bool timed) {
  if (event == nullptr)
    return;
  std::lock_guard lock(mutex_);
  free_[timed].push_back(event);
}

} // namespace kiln::cuda
