#include "core/exec/strays.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "core/exec/unique_fd.hpp"

namespace culprit {
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

} // namespace

std::string new_run_token() {
  static std::atomic<unsigned long long> s_runs{0};
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return fmt::format("{}.{}.{}", ::getpid(), s_runs++, now);
}

std::vector<pid_t> processes_with_token(std::string_view token) {
  const auto entry = fmt::format("{}={}", k_run_token_variable, token);
  std::vector<pid_t> found;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr)
    return found;
  const pid_t self = ::getpid();
  while (const dirent* item = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(item->d_name, &end, 10);
    if (end == item->d_name || *end != '\0' || pid <= 0 || pid == self)
      continue;
    if (environment_holds(static_cast<pid_t>(pid), entry))
      found.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
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

} // namespace culprit
