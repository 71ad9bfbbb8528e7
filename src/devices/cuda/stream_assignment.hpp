// Which of a GPU's streams each command goes to. A stream runs what is put on it in order, and
// different streams run at the same time: the commands of an in-order queue keep to one stream
// while any of them is unfinished (the stream keeps their order, so each can be put on it before
// the one ahead has finished), and every other command goes to the stream with the fewest
// unfinished commands. So two queues, or the independent commands of an out-of-order queue,
// run side by side.
#pragma once

#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace kiln::cuda {

class StreamAssignment {
public:
  explicit StreamAssignment(size_t streams) : unfinished_(streams, 0) {}

  struct Choice {
    size_t stream;
    size_t unfinished; ///< the stream's unfinished commands, this one included
  };

  /// The stream for a command whose order must follow the unfinished commands with the same
  /// `orderKey` (an in-order queue), or that has no such order when `orderKey` is null.
  Choice assign(const void *orderKey);

  /// A command given `stream` for `orderKey` has finished.
  void finished(size_t stream, const void *orderKey);

private:
  struct Held {
    size_t stream = 0;
    size_t unfinished = 0;
  };

  size_t leastBusy() const;

  /// How many entries are kept at least before those with nothing unfinished are dropped.
  static constexpr size_t kKeptEntries = 64;

  std::mutex mutex_;
  std::vector<size_t> unfinished_; // per stream
  std::unordered_map<const void *, Held> ordered_;
  size_t sweepAbove_ = kKeptEntries; // the map's size past which free entries are dropped
};

} // namespace kiln::cuda
