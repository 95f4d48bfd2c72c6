#pragma once
// What the reliability tests share: one StepProject with a warm cache per test suite, culprit run
// against it, and checks that a command left the repository and the cache as they were.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/git_repo.hpp"
#include "tests/support/process.hpp"
#include "tests/support/step_project.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit::testing {

// The lines of `text` that start with `prefix`.
inline std::vector<std::string> lines_starting(const std::string& text, std::string_view prefix) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(prefix))
      lines.push_back(line);
  return lines;
}

// The whole contents of a file ("" when it cannot be read).
inline std::string read_all(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Alive and not a zombie (an orphan's zombie lingers until the reaper of orphans waits for it).
inline bool process_alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line))
    return false;
  const auto state = line.find(") ");
  return state != std::string::npos && line[state + 2] != 'Z' && line[state + 2] != 'X';
}

// The pids written one a line to `file` (by the benchmarks of a test).
inline std::vector<pid_t> pids_in(const std::filesystem::path& file) {
  std::vector<pid_t> pids;
  std::ifstream in(file);
  for (pid_t pid = 0; in >> pid;)
    pids.push_back(pid);
  return pids;
}

// Every pid in `file` gone within a second (a killed process may take a moment to be reaped).
inline void expect_all_gone(const std::filesystem::path& file) {
  for (const auto pid : pids_in(file)) {
    for (int tries = 0; tries < 100 && process_alive(pid); ++tries)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(process_alive(pid)) << "process " << pid << " outlived its run";
  }
}

// The one error line culprit printed; fails the test unless there is exactly one.
inline std::string one_error_line(const ProcessOutput& output) {
  const auto errors = lines_starting(output.err, "culprit: error: ");
  EXPECT_EQ(errors.size(), 1U) << "stderr:\n" << output.err;
  return errors.empty() ? std::string() : errors.front();
}

// A snapshot of everything under `dir`, or an empty map when it does not exist.
inline std::map<std::string, std::string> snapshot_or_empty(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::exists(dir, ec) ? snapshot(dir) : std::map<std::string, std::string>{};
}

// Keys of `before` and `after` that differ, for failure messages.
inline std::string changed_paths(const std::map<std::string, std::string>& before,
                                 const std::map<std::string, std::string>& after) {
  std::string text;
  for (const auto& [path, digest] : after)
    if (auto it = before.find(path); it == before.end() || it->second != digest)
      text += "  written: " + path + "\n";
  for (const auto& [path, digest] : before)
    if (!after.contains(path))
      text += "  removed: " + path + "\n";
  return text;
}

} // namespace culprit::testing
