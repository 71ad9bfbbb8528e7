// Running a helper program (such as the SPIR-V translator) in a process of its own, so that
// whatever it does (abort on an assertion, exhaust memory) cannot end the application's process.
#pragma once

#include <string>
#include <vector>

namespace kiln {

struct ChildResult {
  /// Whether the program ran and exited with status 0.
  bool succeeded = false;
  /// What it wrote to stdout and stderr, cut at a limit; or why it could not be run.
  std::string output;
  /// How it ended, for a log: "exited with status 1", "killed by signal 6", ...
  std::string ending;
};

/// Runs `program` (an absolute path) with `arguments` (argv[1...]) and waits for it. Its
/// environment is empty, its stdin is /dev/null, and no descriptor of this process other than
/// its output pipe reaches it.
ChildResult runChildProcess(const std::string &program, const std::vector<std::string> &arguments);

} // namespace kiln
