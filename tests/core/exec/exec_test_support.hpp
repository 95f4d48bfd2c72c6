#pragma once
// Small helpers shared by the executor tests.

#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/exec/executor.hpp"

namespace culprit::testing {

inline exec::ExecRequest shell_request(std::string command) {
  exec::ExecRequest request;
  request.command = std::move(command);
  return request;
}

inline exec::ExecRequest argv_request(std::vector<std::string> argv) {
  exec::ExecRequest request;
  request.command = std::move(argv);
  return request;
}

// A process is gone once it no longer exists or is a zombie waiting for its new parent; waits up
// to two seconds for that.
inline bool process_gone(pid_t pid) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field;
    std::string name;
    std::string state;
    if (!(stat >> pid_field >> name >> state) || state == "Z" || state == "X")
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// True when this process has no child left, neither running nor a zombie.
inline bool has_no_children() {
  errno = 0;
  return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD;
}

} // namespace culprit::testing
