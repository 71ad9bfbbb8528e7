// The events of a queue's unfinished commands, oldest first. Any of them leaves in constant time
// (each event knows its slot); the storage is kept, so that a queue in steady use
// allocates nothing when commands come and go (tests/launch_path checks a launch allocates
// nothing).
#pragma once

#include "runtime/objects/event.hpp"

#include <vector>

namespace kiln {

class EventFifo {
public:
  bool empty() const { return live_ == 0; }
  /// The newest event (the fifo is not empty).
  const Ref<Event> &newest() const { return events_.back(); }
  /// The events, oldest first.
  template <typename Visit> void forEach(Visit &&visit) const {
    for (size_t slot = first_; slot < events_.size(); ++slot)
      if (events_[slot])
        visit(events_[slot]);
  }

  void push(Ref<Event> event) {
    event->fifoSlot_ = events_.size();
    events_.push_back(std::move(event));
    ++live_;
  }

  /// Takes `event` out: its reference, or null when it is not here. Constant time wherever it
  /// is: the commands of an out-of-order queue (a device queue's children) finish in any order.
  Ref<Event> remove(const Event &event) {
    size_t slot = event.fifoSlot_;
    if (slot < first_ || slot >= events_.size() || events_[slot].get() != &event)
      return nullptr;
    Ref<Event> taken = std::move(events_[slot]);
    --live_;
    while (first_ < events_.size() && !events_[first_])
      ++first_;
    while (events_.size() > first_ && !events_.back())
      events_.pop_back();
    if (live_ == 0) {
      events_.clear();
      first_ = 0;
    } else if (events_.size() >= kCompactAfter && 2 * live_ <= events_.size()) {
      compact();
    }
    return taken;
  }

private:
  /// Moves the events to the front, in order, once the slots left empty are half of all: each
  /// event moves at most once for each slot that emptied before it.
  void compact() {
    size_t next = 0;
    for (size_t slot = first_; slot < events_.size(); ++slot)
      if (events_[slot]) {
        events_[slot]->fifoSlot_ = next;
        events_[next++] = std::move(events_[slot]);
      }
    events_.resize(next);
    first_ = 0;
  }

  static constexpr size_t kCompactAfter = 64;
  std::vector<Ref<Event>> events_; // null where an event left from the middle
  size_t first_ = 0;               // events_[0, first_) have left
  size_t live_ = 0;
};

} // namespace kiln
