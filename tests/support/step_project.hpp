#pragma once
// A small real project for tests and benchmarks of culprit's behaviour under faults: a git
// history whose benchmark is a shell script, so that building is a copy and a run takes a few
// milliseconds. Each commit's `value` file holds the time (ms) of the one case, "kernel"; the
// script prints five culprit JSON samples within 0.5% of it. One commit multiplies it by `step`.
// Also: a process started in the background (to be signalled), and a look inside the results
// store for consistency checks.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/support/git_repo.hpp"
#include "tests/support/process.hpp"

namespace culprit::testing {

// The benchmark script every StepProject commits; its first argument is the value file.
extern const char* const k_step_bench_script;
// The recipe StepProject writes (uncommitted too: it is the yardstick in the working tree).
extern const char* const k_step_recipe;

struct StepProjectOptions {
  int commits = 8; // in all, the good end first
  int step_at = 5; // index of the commit that changes the value
  double base_ms = 10;
  double step = 1.3; // the factor the culprit multiplies the value by
};

class StepProject {
public:
  explicit StepProject(const std::filesystem::path& dir, StepProjectOptions options = {});

  [[nodiscard]] ScratchRepo& repo() { return m_repo; }
  [[nodiscard]] const std::filesystem::path& dir() const { return m_repo.dir(); }
  [[nodiscard]] const std::vector<std::string>& commits() const { return m_commits; }
  [[nodiscard]] const std::string& good() const { return m_commits.front(); }
  [[nodiscard]] const std::string& bad() const { return m_commits.back(); }
  [[nodiscard]] const std::string& culprit() const;

private:
  ScratchRepo m_repo;
  StepProjectOptions m_options;
  std::vector<std::string> m_commits;
};

// A program running in the background with stdout and stderr going to files.
class BackgroundProcess {
public:
  BackgroundProcess(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                    const std::map<std::string, std::string>& env = {});
  ~BackgroundProcess(); // kills and reaps a process still running
  BackgroundProcess(BackgroundProcess&& other) noexcept;
  BackgroundProcess& operator=(BackgroundProcess&&) = delete;
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  [[nodiscard]] pid_t pid() const { return m_pid; }
  void signal(int signal_number) const;
  // Waits for the exit; exit_code is 128 + signal when a signal ended it.
  ProcessOutput wait();
  // Whether it exited within `timeout` (then wait() returns at once).
  bool wait_for(std::chrono::milliseconds timeout);
  // The largest resident set of the process (KiB), once it was waited for.
  [[nodiscard]] long max_rss_kb() const { return m_max_rss_kb; }
  // The standard error written so far.
  [[nodiscard]] std::string err_so_far() const;

private:
  pid_t m_pid = -1;
  int m_status = 0;
  bool m_reaped = false;
  long m_max_rss_kb = 0;
  std::string m_out_path;
  std::string m_err_path;
};

// The culprit binary under test, in the background.
BackgroundProcess start_culprit(const std::vector<std::string>& args,
                                const std::filesystem::path& cwd,
                                const std::map<std::string, std::string>& env = {});

// What the results store holds, and whether SQLite finds it sound.
struct StoreHealth {
  std::string integrity;                    // "ok" when PRAGMA integrity_check finds nothing
  std::int64_t runs = 0;                    // every run, whatever its status
  std::int64_t ok_runs = 0;                 // runs with status ok
  std::int64_t ok_runs_without_samples = 0; // a partial run: must be 0
  std::int64_t orphan_samples = 0;          // samples of no run: must be 0
  std::vector<std::int64_t> ok_run_ids;     // sorted
};

// The store under `cache_dir` (searched for results.sqlite3); integrity "missing" when none.
StoreHealth inspect_store(const std::filesystem::path& cache_dir);

} // namespace culprit::testing
