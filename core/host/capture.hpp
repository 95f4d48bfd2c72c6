#pragma once
// Runs a small helper program (nvidia-smi, systemd-detect-virt) and captures what it prints,
// with a deadline: a helper that hangs is killed with its process group, so it cannot hang
// culprit. Not the benchmark executor: no resource accounting, no streaming, output is capped.

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"

namespace culprit::host {

struct CaptureOptions {
  std::chrono::milliseconds timeout{5000};
  // "NAME=value" entries that override or extend the inherited environment.
  std::vector<std::string> environment;
  // Output beyond this many bytes per stream is read and dropped.
  std::size_t max_output = std::size_t{1} << 20;
};

struct Captured {
  std::optional<int> exit_code; // when the program exited
  std::optional<int> signal;    // when a signal ended it (SIGKILL after a timeout)
  bool timed_out = false;
  std::string out;
  std::string err;
  [[nodiscard]] bool succeeded() const { return exit_code == 0 && !timed_out; }
};

// Starts argv[0] (a path; use find_on_path for a bare name) with stdin from /dev/null, in a
// process group of its own, and collects stdout and stderr until it exits or the timeout passes.
// An Error only when the program cannot be started; a non-zero exit is a normal Captured.
Result<Captured> capture_program(const std::vector<std::string>& argv,
                                 const CaptureOptions& options = {});

// The first executable file called `name` in the directories of $PATH; a name containing '/'
// is returned as it is when executable.
std::optional<std::filesystem::path> find_on_path(std::string_view name);

} // namespace culprit::host
