// The events of a queue's unfinished commands, oldest first. The oldest is usually the next to
// finish, and leaves in constant time; the storage is kept, so that a queue in steady use
// allocates nothing when commands come and go (tests/launch_path checks a launch allocates
// nothing).
#pragma once

#include "runtime/objects/event.hpp"

#include <algorithm>
#include <span>
#include <vector>

namespace kiln {

class EventFifo {
public:
  bool empty() const { return first_ == events_.size(); }
  const Ref<Event> &newest() const { return events_.back(); }
  std::span<const Ref<Event>> all() const {
    return std::span<const Ref<Event>>(events_).subspan(first_);
  }

  void push(Ref<Event> event) { events_.push_back(std::move(event)); }

  /// Takes `event` out: its reference, or null when it is not here.
  Ref<Event> remove(const Event &event) {
    auto oldest = events_.begin() + static_cast<std::ptrdiff_t>(first_);
    auto found = std::find_if(oldest, events_.end(),
                              [&](const Ref<Event> &entry) { return entry.get() == &event; });
    if (found == events_.end())
      return nullptr;
    Ref<Event> taken = std::move(*found);
    if (found != oldest) {
      events_.erase(found);
    } else if (++first_ == events_.size()) {
      events_.clear();
      first_ = 0;
    } else if (first_ >= kCompactAfter && 2 * first_ >= events_.size()) {
      // The left slots go once they are half of all: each later event moves at most once for
      // each slot that left before it.
      events_.erase(events_.begin(), events_.begin() + static_cast<std::ptrdiff_t>(first_));
      first_ = 0;
    }
    return taken;
  }

private:
  static constexpr size_t kCompactAfter = 64;
  std::vector<Ref<Event>> events_;
  size_t first_ = 0; // events_[0, first_) have left
};

} // namespace kiln
