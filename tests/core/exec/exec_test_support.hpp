#pragma once
// Small helpers shared by the executor tests.

#include <sys/wait.h>

#include <cerrno>
#include <string>
#include <utility>
#include <vector>

#include "core/exec/executor.hpp"

namespace culprit::testing {

inline ExecRequest shell_request(std::string command) {
  ExecRequest request;
  request.command = std::move(command);
  return request;
}

inline ExecRequest argv_request(std::vector<std::string> argv) {
  ExecRequest request;
  request.command = std::move(argv);
  return request;
}

// True when this process has no child left, neither running nor a zombie.
inline bool has_no_children() {
  errno = 0;
  return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD;
}

} // namespace culprit::testing
