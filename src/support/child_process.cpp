#include "support/child_process.hpp"

#include "support/unique_fd.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kiln {
namespace {

/// The most of a child's output kept for a build log.
constexpr size_t kOutputLimit = 64 * 1024;

/// Removes the spawn file actions and attributes however the spawn ends.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
  SpawnSetup(const SpawnSetup &) = delete;
  SpawnSetup &operator=(const SpawnSetup &) = delete;
};

/// Prepares the child: /dev/null as stdin, `outputFd` as stdout and stderr, no other
/// descriptor, and the default disposition of the signals the application may have changed.
int prepareSpawn(SpawnSetup &setup, int outputFd) {
  int error =
      posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (error == 0)
    error = posix_spawn_file_actions_adddup2(&setup.actions, outputFd, STDOUT_FILENO);
  if (error == 0)
    error = posix_spawn_file_actions_adddup2(&setup.actions, outputFd, STDERR_FILENO);
  if (error == 0)
    error = posix_spawn_file_actions_addclosefrom_np(&setup.actions, STDERR_FILENO + 1);
  sigset_t defaults;
  sigfillset(&defaults);
  sigset_t none;
  sigemptyset(&none);
  if (error == 0)
    error = posix_spawnattr_setsigdefault(&setup.attributes, &defaults);
  if (error == 0)
    error = posix_spawnattr_setsigmask(&setup.attributes, &none);
  if (error == 0)
    error =
        posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  return error;
}

/// Reads `fd` to its end, keeping at most kOutputLimit bytes.
std::string readAll(int fd) {
  std::string output;
  char buffer[4096];
  for (;;) {
    ssize_t count = ::read(fd, buffer, sizeof buffer);
    if (count < 0 && errno == EINTR)
      continue;
    if (count <= 0)
      return output;
    size_t room = kOutputLimit - std::min(output.size(), kOutputLimit);
    output.append(buffer, std::min(static_cast<size_t>(count), room));
  }
}

/// Waits for `child`; how it ended as a status for waitpid's macros, or nothing when the
/// application reaps its children itself (SIGCHLD ignored).
std::optional<int> waitFor(pid_t child) {
  int status = 0;
  for (;;) {
    if (waitpid(child, &status, 0) == child)
      return status;
    if (errno != EINTR)
      return std::nullopt;
  }
}

} // namespace

ChildResult runChildProcess(const std::string &program, const std::vector<std::string> &arguments) {
  ChildResult result;
  int pipeFds[2];
  if (pipe2(pipeFds, O_CLOEXEC) != 0) {
    result.ending = std::string("could not be started: ") + std::strerror(errno);
    return result;
  }
  UniqueFd readEnd(pipeFds[0]);
  UniqueFd writeEnd(pipeFds[1]);

  std::vector<char *> argv;
  argv.push_back(const_cast<char *>(program.c_str()));
  for (const std::string &argument : arguments)
    argv.push_back(const_cast<char *>(argument.c_str()));
  argv.push_back(nullptr);
  char *environment[] = {nullptr};

  SpawnSetup setup;
  pid_t child = 0;
  int error = prepareSpawn(setup, writeEnd.get());
  if (error == 0)
    error = posix_spawn(&child, program.c_str(), &setup.actions, &setup.attributes, argv.data(),
                        environment);
  writeEnd.close();
  if (error != 0) {
    result.ending = std::string("could not be started: ") + std::strerror(error);
    return result;
  }
  result.output = readAll(readEnd.get());
  std::optional<int> status = waitFor(child);
  if (!status) {
    // The status went to the application's own reaping; the output decides.
    result.ending = "ended (its status was not available)";
    result.succeeded = true;
  } else if (WIFEXITED(*status)) {
    result.ending = "exited with status " + std::to_string(WEXITSTATUS(*status));
    result.succeeded = WEXITSTATUS(*status) == 0;
  } else if (WIFSIGNALED(*status)) {
    result.ending = "was killed by signal " + std::to_string(WTERMSIG(*status)) + " (" +
                    strsignal(WTERMSIG(*status)) + ")";
  } else {
    result.ending = "ended abnormally";
  }
  return result;
}

} // namespace kiln
