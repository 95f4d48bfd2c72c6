#include "tests/support/step_project.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/store/sql.hpp"

namespace culprit::testing {

const char* const k_step_bench_script = R"(#!/bin/sh
# Five samples of the time in the file named by $1 (ms), within 0.5% of it.
v=$(cat "$1")
awk -v v="$v" -v seed="$$" 'BEGIN {
  srand(seed)
  for (i = 0; i < 5; i++)
    printf "{\"type\":\"sample\",\"case\":\"kernel\",\"metric\":\"time\",\"unit\":\"ms\",\"direction\":\"lower\",\"value\":%.6f}\n", v * (1 + 0.01 * (rand() - 0.5))
}'
)";

const char* const k_step_recipe = R"([build]
command = "cp {src}/bench.sh {src}/value {build}/"
artifacts = ["bench.sh", "value"]
timeout = 60

[run]
command = "sh {build}/bench.sh {build}/value"
format = "culprit"
timeout = 20

[decide]
threshold = "5%"
min_runs = 5
max_runs = 12
warmup = 0
)";

StepProject::StepProject(const std::filesystem::path& dir, StepProjectOptions options)
    : m_repo(dir), m_options(options) {
  if (options.commits < 2 || options.step_at < 1 || options.step_at >= options.commits)
    throw std::invalid_argument("StepProject: the step must fall inside the history");
  double value = options.base_ms;
  for (int i = 0; i < options.commits; ++i) {
    if (i == 0) {
      m_repo.write("bench.sh", k_step_bench_script, true);
      m_repo.write("culprit.toml", k_step_recipe);
    }
    if (i == options.step_at)
      value *= options.step;
    m_repo.write("value", fmt::format("{:.6f}\n", value));
    m_repo.write("NOTES", fmt::format("change {}\n", i));
    m_commits.push_back(m_repo.commit(fmt::format("change {}", i)));
  }
}

const std::string& StepProject::culprit() const {
  return m_commits.at(static_cast<std::size_t>(m_options.step_at));
}

namespace {

std::string temp_file(const char* tag) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "culprit-bg-").string() + tag + "-XXXXXX";
  const int fd = mkstemp(pattern.data());
  if (fd < 0)
    throw std::runtime_error("mkstemp failed");
  close(fd);
  return pattern;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

} // namespace

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv,
                                     const std::filesystem::path& cwd,
                                     const std::map<std::string, std::string>& env)
    : m_out_path(temp_file("stdout")), m_err_path(temp_file("stderr")) {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto name = text.substr(0, text.find('='));
    if (!env.contains(std::string(name)))
      environment.emplace_back(text);
  }
  for (const auto& [name, value] : env)
    environment.push_back(name + "=" + value);
  std::vector<char*> args;
  std::vector<char*> envp;
  for (const auto& arg : argv)
    args.push_back(const_cast<char*>(arg.c_str())); // NOLINT(*-const-cast)
  args.push_back(nullptr);
  for (const auto& entry : environment)
    envp.push_back(const_cast<char*>(entry.c_str())); // NOLINT(*-const-cast)
  envp.push_back(nullptr);

  m_pid = fork();
  if (m_pid < 0)
    throw std::runtime_error("fork failed");
  if (m_pid == 0) {
    // Only async-signal-safe calls from here on: the test process may have threads.
    const int in = open("/dev/null", O_RDONLY);
    const int out = open(m_out_path.c_str(), O_WRONLY | O_TRUNC);
    const int err = open(m_err_path.c_str(), O_WRONLY | O_TRUNC);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (chdir(cwd.c_str()) != 0)
      _exit(126);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
}

BackgroundProcess::BackgroundProcess(BackgroundProcess&& other) noexcept
    : m_pid(std::exchange(other.m_pid, -1)), m_status(other.m_status),
      m_reaped(std::exchange(other.m_reaped, true)), m_max_rss_kb(other.m_max_rss_kb),
      m_out_path(std::move(other.m_out_path)), m_err_path(std::move(other.m_err_path)) {}

BackgroundProcess::~BackgroundProcess() {
  if (m_out_path.empty())
    return; // moved from
  if (!m_reaped && m_pid > 0) {
    ::kill(m_pid, SIGKILL);
    waitpid(m_pid, &m_status, 0);
  }
  std::remove(m_out_path.c_str());
  std::remove(m_err_path.c_str());
}

void BackgroundProcess::signal(int signal_number) const {
  if (!m_reaped)
    ::kill(m_pid, signal_number);
}

bool BackgroundProcess::wait_for(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!m_reaped) {
    rusage usage{};
    const pid_t done = wait4(m_pid, &m_status, WNOHANG, &usage);
    if (done == m_pid) {
      m_max_rss_kb = usage.ru_maxrss;
      m_reaped = true;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

ProcessOutput BackgroundProcess::wait() {
  while (!m_reaped) {
    rusage usage{};
    if (wait4(m_pid, &m_status, 0, &usage) == m_pid) {
      m_reaped = true;
      m_max_rss_kb = usage.ru_maxrss;
    }
  }
  ProcessOutput output;
  output.exit_code = WIFEXITED(m_status) ? WEXITSTATUS(m_status) : 128 + WTERMSIG(m_status);
  output.out = slurp(m_out_path);
  output.err = slurp(m_err_path);
  return output;
}

std::string BackgroundProcess::err_so_far() const {
  return slurp(m_err_path);
}

BackgroundProcess start_culprit(const std::vector<std::string>& args,
                                const std::filesystem::path& cwd,
                                const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv{CULPRIT_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  return {argv, cwd, env};
}

namespace {

std::int64_t count(store::sql::Database& db, std::string_view sql) {
  auto statement = db.prepare(sql);
  const auto row = statement ? statement->step() : Result<bool>(false);
  if (!row || !*row)
    throw std::runtime_error("cannot query the store: " + std::string(sql));
  return statement->column_int64(0);
}

} // namespace

StoreHealth inspect_store(const std::filesystem::path& cache_dir) {
  StoreHealth health;
  std::filesystem::path file;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(cache_dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() == "results.sqlite3")
      file = it->path();
  }
  if (file.empty()) {
    health.integrity = "missing";
    return health;
  }
  auto db = store::sql::Database::open_sqlite(file);
  if (!db)
    throw std::runtime_error("cannot open the store: " + db.error().message);
  auto check = db->prepare("PRAGMA integrity_check");
  if (!check)
    throw std::runtime_error(check.error().message);
  while (true) {
    auto row = check->step();
    if (!row || !*row)
      break;
    health.integrity += (health.integrity.empty() ? "" : "; ") + check->column_text(0);
  }
  health.runs = count(*db, "SELECT count(*) FROM runs");
  health.ok_runs = count(*db, "SELECT count(*) FROM runs WHERE status = 'ok'");
  health.ok_runs_without_samples =
      count(*db, "SELECT count(*) FROM runs r WHERE status = 'ok' AND NOT EXISTS "
                 "(SELECT 1 FROM samples s WHERE s.run_id = r.id)");
  health.orphan_samples = count(
      *db, "SELECT count(*) FROM samples s WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = "
           "s.run_id)");
  auto ids = db->prepare("SELECT id FROM runs WHERE status = 'ok' ORDER BY id");
  if (!ids)
    throw std::runtime_error(ids.error().message);
  while (true) {
    auto row = ids->step();
    if (!row || !*row)
      break;
    health.ok_run_ids.push_back(ids->column_int64(0));
  }
  return health;
}

} // namespace culprit::testing
