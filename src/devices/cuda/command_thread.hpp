// One thread that runs the commands of a GPU device one after another, in the order they were
// submitted (their dependencies are already met). Started at the first command.
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
  using Execute = std::function<void(std::shared_ptr<Command>)>;
  explicit CommandThread(Execute execute) : execute_(std::move(execute)) {}
  ~CommandThread();
  CommandThread(const CommandThread &) = delete;
  CommandThread &operator=(const CommandThread &) = delete;

  void submit(std::shared_ptr<Command> command);

private:
  void run();

  Execute execute_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Command>> pending_;
  bool stopping_ = false;
  std::thread thread_;
};

} // namespace kiln::cuda
