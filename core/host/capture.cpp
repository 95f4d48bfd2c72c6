#include "core/host/capture.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "core/util/error.hpp"

extern char** environ; // NOLINT(readability-redundant-declaration): POSIX does not declare it

namespace culprit::host {
namespace {

class UniqueFd {
public:
  explicit UniqueFd(int fd = -1) : m_fd(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    reset(std::exchange(other.m_fd, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }
  [[nodiscard]] int get() const { return m_fd; }
  void reset(int fd = -1) {
    if (m_fd >= 0)
      ::close(m_fd);
    m_fd = fd;
  }

private:
  int m_fd;
};

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

Result<Pipe> make_pipe() {
  std::array<int, 2> fds{};
  if (pipe2(fds.data(), O_CLOEXEC) != 0)
    return infra_error("cannot create a pipe: {}", std::strerror(errno));
  return Pipe{.read = UniqueFd(fds[0]), .write = UniqueFd(fds[1])};
}

// The child until it is reaped; killed with its group if the capture ends early.
class Child {
public:
  explicit Child(pid_t pid) : m_pid(pid) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (m_pid > 0) {
      ::kill(-m_pid, SIGKILL);
      reap();
    }
  }
  void kill_group() const { ::kill(-m_pid, SIGKILL); }
  // Waits for the child; returns its wait status.
  int reap() {
    int status = 0;
    while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
    m_pid = -1;
    return status;
  }
  // The wait status if the child has exited, without blocking.
  std::optional<int> try_reap() {
    int status = 0;
    if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
      m_pid = -1;
      return status;
    }
    return std::nullopt;
  }

private:
  pid_t m_pid;
};

std::vector<std::string> merged_environment(const std::vector<std::string>& overrides) {
  std::vector<std::string> merged;
  const auto name_of = [](std::string_view entry) { return entry.substr(0, entry.find('=')); };
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view current(*entry);
    bool overridden = false;
    for (const auto& item : overrides)
      overridden = overridden || name_of(item) == name_of(current);
    if (!overridden)
      merged.emplace_back(current);
  }
  merged.insert(merged.end(), overrides.begin(), overrides.end());
  return merged;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  result.reserve(strings.size() + 1);
  for (auto& text : strings)
    result.push_back(text.data());
  result.push_back(nullptr);
  return result;
}

Result<pid_t> spawn(const std::vector<std::string>& argv, const CaptureOptions& options,
                    const Pipe& out, const Pipe& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write.get(), STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t no_signals;
  sigemptyset(&no_signals);
  sigset_t default_signals;
  sigemptyset(&default_signals);
  for (const int signal_number : {SIGINT, SIGTERM, SIGPIPE, SIGQUIT, SIGHUP})
    sigaddset(&default_signals, signal_number);
  posix_spawnattr_setsigmask(&attributes, &no_signals);
  posix_spawnattr_setsigdefault(&attributes, &default_signals);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  auto arguments = argv;
  auto environment = merged_environment(options.environment);
  auto argument_pointers = pointers(arguments);
  auto environment_pointers = pointers(environment);
  pid_t pid = -1;
  const int code = posix_spawn(&pid, argv.front().c_str(), &actions, &attributes,
                               argument_pointers.data(), environment_pointers.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (code != 0)
    return infra_error("cannot run {}: {}", argv.front(), std::strerror(code));
  return pid;
}

void append_capped(std::string& sink, const char* data, std::size_t size, std::size_t cap) {
  if (sink.size() < cap)
    sink.append(data, std::min(size, cap - sink.size()));
}

} // namespace

Result<Captured> capture_program(const std::vector<std::string>& argv,
                                 const CaptureOptions& options) {
  if (argv.empty())
    return infra_error("internal error: capture_program without a program");
  CULPRIT_TRY_ASSIGN(auto out, make_pipe());
  CULPRIT_TRY_ASSIGN(auto err, make_pipe());
  CULPRIT_TRY_ASSIGN(const pid_t pid, spawn(argv, options, out, err));
  Child child(pid);
  out.write.reset();
  err.write.reset();

  Captured captured;
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  std::array<pollfd, 2> fds{{{.fd = out.read.get(), .events = POLLIN, .revents = 0},
                             {.fd = err.read.get(), .events = POLLIN, .revents = 0}}};
  std::array<std::string*, 2> sinks{&captured.out, &captured.err};
  std::optional<int> status;
  std::array<char, 4096> buffer{};
  // Until both pipes close and the child has exited, or the deadline passes. A grandchild that
  // keeps a pipe open holds the capture until the deadline, then dies with the group.
  while (fds[0].fd >= 0 || fds[1].fd >= 0 || !status) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      captured.timed_out = true;
      child.kill_group();
      break;
    }
    if (fds[0].fd < 0 && fds[1].fd < 0) {
      status = child.try_reap();
      if (!status)
        ::usleep(1000);
      continue;
    }
    const int ready =
        ::poll(fds.data(), fds.size(), static_cast<int>(std::min<long>(left.count(), 100)));
    if (ready < 0 && errno != EINTR)
      return infra_error("waiting for {} failed: {}", argv.front(), std::strerror(errno));
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0)
        continue;
      const auto got = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (got > 0)
        append_capped(*sinks[i], buffer.data(), static_cast<std::size_t>(got), options.max_output);
      else if (got == 0 || errno != EINTR)
        fds[i].fd = -1;
    }
  }
  const int wait_status = status ? *status : child.reap();
  if (WIFEXITED(wait_status))
    captured.exit_code = WEXITSTATUS(wait_status);
  else if (WIFSIGNALED(wait_status))
    captured.signal = WTERMSIG(wait_status);
  return captured;
}

std::optional<std::filesystem::path> find_on_path(std::string_view name) {
  const auto executable = [](const std::filesystem::path& candidate) {
    std::error_code error;
    using std::filesystem::perms;
    const auto status = std::filesystem::status(candidate, error);
    // access(X_OK) alone is not enough: for root it succeeds on files without any x bit.
    return !error && std::filesystem::is_regular_file(status) &&
           (status.permissions() & (perms::owner_exec | perms::group_exec | perms::others_exec)) !=
               perms::none &&
           ::access(candidate.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string_view::npos) {
    if (executable(name))
      return std::filesystem::path(name);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string_view directories = path == nullptr ? "/usr/local/bin:/usr/bin:/bin" : path;
  while (!directories.empty()) {
    const auto colon = directories.find(':');
    const auto directory = directories.substr(0, colon);
    directories = colon == std::string_view::npos ? "" : directories.substr(colon + 1);
    auto candidate = std::filesystem::path(directory.empty() ? "." : directory) / name;
    if (executable(candidate))
      return candidate;
  }
  return std::nullopt;
}

} // namespace culprit::host
