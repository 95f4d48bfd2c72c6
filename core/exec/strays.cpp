#include "core/exec/strays.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "core/exec/unique_fd.hpp"

namespace culprit::exec {
namespace {

constexpr int k_kill_passes = 5;
// An environment is read up to this much; the token is set by culprit before the program's own
// variables could grow it, so it lies near the start.
constexpr std::size_t k_max_environment = std::size_t{1} << 20;

bool environment_holds(pid_t pid, std::string_view entry) {
  const auto path = fmt::format("/proc/{}/environ", pid);
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid())
    return false;
  std::string environment;
  char buffer[8192];
  while (environment.size() < k_max_environment) {
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    environment.append(buffer, static_cast<std::size_t>(got));
  }
  // Entries are NUL-terminated: the entry is at the start or after a NUL, and ends with one.
  for (auto at = environment.find(entry); at != std::string::npos;
       at = environment.find(entry, at + 1)) {
    const bool starts = at == 0 || environment[at - 1] == '\0';
    const auto end = at + entry.size();
    if (starts && (end == environment.size() || environment[end] == '\0'))
      return true;
  }
  return false;
}

// The parent of `pid` from /proc/<pid>/stat, or 0. The name in parentheses may hold spaces and
// parentheses itself, so the fields are counted from the last ')'.
pid_t parent_of(pid_t pid) {
  const auto path = fmt::format("/proc/{}/stat", pid);
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid())
    return 0;
  char buffer[1024];
  ssize_t got = -1;
  do {
    got = ::read(fd.get(), buffer, sizeof buffer - 1);
  } while (got < 0 && errno == EINTR);
  if (got <= 0)
    return 0;
  const std::string_view stat(buffer, static_cast<std::size_t>(got));
  const auto name_end = stat.rfind(')');
  if (name_end == std::string_view::npos)
    return 0;
  // ") S 1234 ..." : the state, then the parent.
  const auto rest = stat.substr(name_end + 1);
  const auto parent_at = rest.find_first_of("0123456789");
  if (parent_at == std::string_view::npos)
    return 0;
  pid_t parent = 0;
  std::from_chars(rest.data() + parent_at, rest.data() + rest.size(), parent);
  return parent;
}

// Every process under /proc other than this one.
template <class Visit> void each_process(Visit visit) {
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr)
    return;
  const pid_t self = ::getpid();
  while (const dirent* item = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(item->d_name, &end, 10);
    if (end == item->d_name || *end != '\0' || pid <= 0 || pid == self)
      continue;
    visit(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
}

} // namespace

std::string new_run_token() {
  static std::atomic<unsigned long long> s_runs{0};
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  // Every field at a fixed width: the environment of every run is the same size, so a program
  // that is counted instruction by instruction (--instrument valgrind) executes the same startup
  // code in every run, whatever the counter and the clock say.
  return fmt::format("{:010}.{:020}.{:020}", ::getpid(), s_runs++, now);
}

std::vector<pid_t> processes_with_token(std::string_view token) {
  const auto entry = fmt::format("{}={}", k_run_token_variable, token);
  std::vector<pid_t> found;
  each_process([&](pid_t pid) {
    if (environment_holds(pid, entry))
      found.push_back(pid);
  });
  return found;
}

std::size_t kill_strays(std::string_view token) {
  std::size_t killed = 0;
  for (int pass = 0; pass < k_kill_passes; ++pass) {
    const auto strays = processes_with_token(token);
    if (strays.empty())
      break;
    for (const pid_t pid : strays)
      if (::kill(pid, SIGKILL) == 0)
        ++killed;
  }
  return killed;
}

std::vector<pid_t> descendants_of(pid_t root) {
  std::vector<std::pair<pid_t, pid_t>> parents; // (parent, child)
  each_process([&](pid_t pid) {
    if (const pid_t parent = parent_of(pid); parent > 0)
      parents.emplace_back(parent, pid);
  });
  std::vector<pid_t> found;
  std::vector<pid_t> frontier{root};
  while (!frontier.empty()) {
    const pid_t parent = frontier.back();
    frontier.pop_back();
    for (const auto& [of, child] : parents) {
      if (of == parent && child != root && std::ranges::find(found, child) == found.end()) {
        found.push_back(child);
        frontier.push_back(child);
      }
    }
  }
  return found;
}

void signal_each(const std::vector<pid_t>& pids, int signal_number) {
  for (const pid_t pid : pids)
    ::kill(pid, signal_number);
}

} // namespace culprit::exec
