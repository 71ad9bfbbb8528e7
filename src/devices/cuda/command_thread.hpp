// One thread that finishes the commands of a GPU device one after another, in the order they
// were submitted (their dependencies are already met): it runs those the host carries out, and
// waits for those already started on the GPU. Started at the first command.
#pragma once

#include "runtime/command.hpp"

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace kiln::cuda {

class CommandThread {
public:
  struct Item {
    std::shared_ptr<Command> command;
    /// The command was started on the GPU's stream already (a kernel launch): only its
    /// completion is left.
    bool started = false;
  };
  using Execute = std::function<void(Item)>;
  explicit CommandThread(Execute execute) : execute_(std::move(execute)) {}
  ~CommandThread();
  CommandThread(const CommandThread &) = delete;
  CommandThread &operator=(const CommandThread &) = delete;

  void submit(Item item);

private:
  void run();

  Execute execute_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Item> pending_;
  bool stopping_ = false;
  std::thread thread_;
};

} // namespace kiln::cuda
