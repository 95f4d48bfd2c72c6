#include "core/exec/spawn.hpp"

#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <iterator>
#include <map>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "core/exec/unique_fd.hpp"
#include "core/util/escape.hpp"

extern char** environ; // NOLINT(readability-redundant-declaration): POSIX leaves it undeclared

namespace culprit::exec {
namespace {

std::string errno_text(int error) {
  return std::error_code(error, std::generic_category()).message();
}

std::string cpu_list(const std::vector<int>& cpus) {
  std::string text;
  for (const int cpu : cpus) {
    if (!text.empty())
      text += ',';
    text += std::to_string(cpu);
  }
  return text;
}

// "0-3,6" for a set of CPUs, the spelling of /proc/self/status and taskset.
std::string cpu_ranges(const cpu_set_t& set) {
  std::string text;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set))
      continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
      ++last;
    if (!text.empty())
      text += ',';
    text += std::to_string(cpu);
    if (last > cpu) {
      text += '-';
      text += std::to_string(last);
    }
    cpu = last;
  }
  return text;
}

Result<std::string> find_on_path(const std::string& name, const std::string& path) {
  bool found_unexecutable = false;
  for (std::size_t begin = 0; begin <= path.size();) {
    auto end = path.find(':', begin);
    if (end == std::string::npos)
      end = path.size();
    std::string candidate = end == begin ? std::string(".") : path.substr(begin, end - begin);
    candidate += '/';
    candidate += name;
    struct stat status = {};
    if (::stat(candidate.c_str(), &status) == 0 && S_ISREG(status.st_mode)) {
      if (::access(candidate.c_str(), X_OK) == 0)
        return candidate;
      found_unexecutable = true;
    }
    begin = end + 1;
  }
  if (found_unexecutable)
    return infra_error("cannot run '{}': it is on PATH but not executable (check its mode)", name);
  return infra_error("cannot run '{}': command not found on PATH ({})", name, path);
}

// Pins the calling thread while it spawns: a new process starts with the CPU affinity of the
// thread that created it, so the child begins life pinned, before it executes a single
// instruction of the benchmark. The thread's own affinity is restored afterwards.
class SpawnAffinity {
public:
  static Result<SpawnAffinity> pin(const std::vector<int>& cpus) {
    SpawnAffinity affinity;
    if (cpus.empty())
      return affinity;
    if (sched_getaffinity(0, sizeof(affinity.m_saved), &affinity.m_saved) != 0)
      return infra_error("cannot read this thread's CPU affinity: {}", errno_text(errno));
    cpu_set_t wanted;
    CPU_ZERO(&wanted);
    for (const int cpu : cpus)
      CPU_SET(cpu, &wanted);
    if (sched_setaffinity(0, sizeof(wanted), &wanted) != 0)
      return usage_error("cannot pin the benchmark to CPUs {}: this process may only use CPUs {}",
                         cpu_list(cpus), cpu_ranges(affinity.m_saved));
    affinity.m_active = true;
    return affinity;
  }
  SpawnAffinity(SpawnAffinity&& other) noexcept
      : m_saved(other.m_saved), m_active(std::exchange(other.m_active, false)) {}
  SpawnAffinity(const SpawnAffinity&) = delete;
  SpawnAffinity& operator=(const SpawnAffinity&) = delete;
  SpawnAffinity& operator=(SpawnAffinity&&) = delete;
  ~SpawnAffinity() {
    if (m_active)
      sched_setaffinity(0, sizeof(m_saved), &m_saved);
  }

private:
  SpawnAffinity() { CPU_ZERO(&m_saved); }
  cpu_set_t m_saved{};
  bool m_active = false;
};

// A posix_spawn attribute or file-action object, destroyed with its scope.
template <class Object, int (*init)(Object*), int (*destroy)(Object*)> class SpawnObject {
public:
  SpawnObject() { init(&m_object); }
  ~SpawnObject() { destroy(&m_object); }
  SpawnObject(const SpawnObject&) = delete;
  SpawnObject& operator=(const SpawnObject&) = delete;
  SpawnObject(SpawnObject&&) = delete;
  SpawnObject& operator=(SpawnObject&&) = delete;
  Object* get() { return &m_object; }

private:
  Object m_object{};
};

using SpawnAttributes =
    SpawnObject<posix_spawnattr_t, posix_spawnattr_init, posix_spawnattr_destroy>;
using SpawnFileActions = SpawnObject<posix_spawn_file_actions_t, posix_spawn_file_actions_init,
                                     posix_spawn_file_actions_destroy>;

// Dispositions that survive exec when the parent ignores them; a benchmark must start with the
// defaults (an ignored SIGPIPE or SIGTERM would change how it behaves and how it can be stopped).
constexpr int k_reset_signals[] = {SIGPIPE, SIGINT,  SIGQUIT, SIGTERM, SIGHUP,  SIGCHLD, SIGTSTP,
                                   SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2, SIGALRM, SIGXFSZ};

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const auto& text : strings)
    pointers.push_back(const_cast<char*>(text.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// Writes one report record; a culprit that has gone (EPIPE: SIGPIPE is blocked) is no matter.
void write_report(int fd, const KeeperReport& report) {
  while (::write(fd, &report, sizeof report) < 0 && errno == EINTR) {
  }
}

bool is_kept(std::span<const int> kept, int fd) {
  return std::ranges::find(kept, fd) != kept.end();
}

// The number a name of /proc/self/fd spells, or -1 for another name ("." and "..").
int descriptor_number(const char* name) {
  int fd = 0;
  if (*name == '\0')
    return -1;
  for (; *name != '\0'; ++name) {
    if (*name < '0' || *name > '9' || fd > 100'000'000)
      return -1;
    fd = fd * 10 + (*name - '0');
  }
  return fd;
}

// Closes the descriptors from 3 up that `kept` lacks, as /proc/self/fd lists them; false where
// it cannot be read. Closing while the directory is read would disturb the listing, so a pass
// collects into a fixed buffer and then closes; passes go on while a pass fills its buffer.
bool close_listed_descriptors(std::span<const int> kept) {
  const int dir = static_cast<int>(
      ::syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir < 0)
    return false;
  // struct linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1), d_name.
  constexpr std::size_t k_reclen_at = 16;
  constexpr std::size_t k_name_at = 19;
  std::array<int, 256> found{};
  alignas(8) std::array<char, 4096> entries{};
  bool full = true;
  while (full) {
    full = false;
    std::size_t count = 0;
    ::lseek(dir, 0, SEEK_SET);
    while (!full) {
      const long got = ::syscall(SYS_getdents64, dir, entries.data(), entries.size());
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        break;
      for (std::size_t at = 0; at < static_cast<std::size_t>(got);) {
        unsigned short length = 0;
        std::memcpy(&length, &entries.at(at + k_reclen_at), sizeof length);
        const int fd = descriptor_number(&entries.at(at + k_name_at));
        at += length;
        if (fd < 3 || fd == dir || is_kept(kept, fd))
          continue;
        if (count == found.size()) {
          full = true;
          break;
        }
        found.at(count++) = fd;
      }
    }
    for (std::size_t i = 0; i < count; ++i)
      ::close(found.at(i));
  }
  ::close(dir);
  return true;
}

// What the keeper needs, made before the fork: another thread of culprit may have held any lock
// (malloc's among them) at that moment, so the keeper allocates nothing and calls only
// async-signal-safe functions (system calls and clock_gettime), and posix_spawn. POSIX does not
// list posix_spawn as async-signal-safe, but glibc's, given attributes and file actions made before
// the fork, takes no lock and does not allocate: it maps its stack with mmap, clones with
// CLONE_VM | CLONE_VFORK, and the new process makes only system calls before execve.
struct KeeperPlan {
  const char* program = nullptr;
  posix_spawn_file_actions_t* actions = nullptr;
  posix_spawnattr_t* attributes = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  std::array<int, 3> kept_fds{}; // sorted: the run's stdout and stderr, and the report pipe
  int out_fd = -1;
  int err_fd = -1;
  int report_fd = -1;
  long open_max = 0;
};

// The keeper (child_process.hpp): a subreaper that starts the command, reports it, and reaps
// everything below it until nothing is left. It holds no descriptor of culprit's but the run's
// own: another run's pipe held open here would never reach end of file.
[[noreturn]] void keep_run(const KeeperPlan& plan) {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
  ::setpgid(0, 0); // apart from the run's group, which is killed before the keeper is done
  sigset_t all;
  ::sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, nullptr); // the command's mask is set by the attributes
  // Nor culprit's standard streams: a culprit killed while the run goes on must not leave its
  // reader waiting for the end of its output.
  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd <= 2 && null_fd >= 0; ++fd)
    if (fd != null_fd && std::ranges::find(plan.kept_fds, fd) == plan.kept_fds.end())
      ::dup2(null_fd, fd);
  close_other_descriptors(plan.kept_fds, plan.open_max);

  KeeperReport report;
  pid_t command = -1;
  timespec started{};
  ::clock_gettime(CLOCK_MONOTONIC, &started);
  const int error =
      ::posix_spawn(&command, plan.program, plan.actions, plan.attributes, plan.argv, plan.envp);
  if (error != 0) {
    report.kind = KeeperReport::failed;
    report.value = error;
    write_report(plan.report_fd, report);
    ::_exit(127);
  }
  ::close(plan.out_fd);
  ::close(plan.err_fd);
  report.kind = KeeperReport::started;
  report.value = command;
  write_report(plan.report_fd, report);
  while (true) {
    int status = 0;
    rusage usage{};
    const pid_t done = ::wait4(-1, &status, 0, &usage);
    if (done == command) {
      timespec ended{};
      ::clock_gettime(CLOCK_MONOTONIC, &ended);
      report.kind = KeeperReport::exited;
      report.elapsed_ns =
          (static_cast<long long>(ended.tv_sec) - started.tv_sec) * 1'000'000'000LL +
          (ended.tv_nsec - started.tv_nsec);
      report.status = status;
      report.usage = usage;
      write_report(plan.report_fd, report);
    } else if (done < 0 && errno != EINTR) {
      ::_exit(0); // nothing of the run is left
    }
  }
}

// Starts the keeper, which starts the command; returns once the keeper said whether it could.
Result<ChildProcess> spawn_kept(const LaunchPlan& launch, const ExecRequest& request,
                                KeeperPlan plan) {
  std::array<int, 2> fds{-1, -1};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0)
    return infra_error("cannot create a pipe to start '{}': {}", launch.program, errno_text(errno));
  UniqueFd report_read(fds[0]);
  UniqueFd report_write(fds[1]);
  plan.report_fd = report_write.get();
  plan.kept_fds = {plan.out_fd, plan.err_fd, plan.report_fd};
  std::ranges::sort(plan.kept_fds);
  plan.open_max = ::sysconf(_SC_OPEN_MAX);
  const pid_t keeper = ::fork();
  if (keeper < 0)
    return infra_error("cannot start a process to run '{}': {}", launch.program, errno_text(errno));
  if (keeper == 0)
    keep_run(plan);
  report_write.reset();
  KeeperReport first;
  ssize_t got = -1;
  do {
    got = ::read(report_read.get(), &first, sizeof first);
  } while (got < 0 && errno == EINTR);
  if (got != static_cast<ssize_t>(sizeof first) || first.kind != KeeperReport::started) {
    while (::waitpid(keeper, nullptr, 0) < 0 && errno == EINTR) {
    }
    const std::string where = request.cwd.empty() ? std::string() : " in " + request.cwd.string();
    const int error = got == static_cast<ssize_t>(sizeof first) ? first.value : ECHILD;
    return infra_error("cannot run '{}'{}: {}", launch.program, where, errno_text(error));
  }
  return ChildProcess(keeper, first.value, std::move(report_read));
}

} // namespace

void close_other_descriptors(std::span<const int> kept, long open_max, CloseRange close_range) {
  if (close_range == CloseRange::use) {
    std::array<int, 8> sorted{};
    const std::size_t count = std::min(kept.size(), sorted.size());
    std::copy_n(kept.begin(), count, sorted.begin());
    std::sort(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(count));
    bool closed = count == kept.size();
    unsigned low = 3;
    for (std::size_t i = 0; i < count && closed; ++i) {
      const int fd = sorted.at(i);
      if (fd < 0 || static_cast<unsigned>(fd) < low)
        continue;
      if (static_cast<unsigned>(fd) > low)
        closed = ::syscall(SYS_close_range, low, static_cast<unsigned>(fd) - 1, 0U) == 0;
      low = static_cast<unsigned>(fd) + 1;
    }
    if (closed && ::syscall(SYS_close_range, low, ~0U, 0U) == 0)
      return;
  }
  // Without close_range (ENOSYS before Linux 5.9): closing every number up to RLIMIT_NOFILE would
  // take a million calls per run where the limit is high.
  if (close_listed_descriptors(kept))
    return;
  for (long fd = 3; fd < open_max; ++fd)
    if (!is_kept(kept, static_cast<int>(fd)))
      ::close(static_cast<int>(fd));
}

Result<LaunchPlan> plan_launch(const ExecRequest& request) {
  std::map<std::string, std::string> variables;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals != std::string_view::npos &&
        std::ranges::find(k_git_repository_variables, text.substr(0, equals)) ==
            std::end(k_git_repository_variables))
      variables.emplace(text.substr(0, equals), text.substr(equals + 1));
  }
  for (const auto& [name, value] : request.env) {
    if (name.empty() || name.find('=') != std::string::npos || name.find('\0') != std::string::npos)
      return usage_error("invalid environment variable name '{}' for the benchmark; a name is "
                         "not empty and holds no '=' or NUL",
                         excerpt(name));
    if (value.find('\0') != std::string::npos)
      return usage_error("the value of the environment variable '{}' for the benchmark holds a "
                         "NUL character, which an environment cannot carry; remove it",
                         excerpt(name));
    variables[name] = value;
  }
  LaunchPlan plan;
  for (const auto& [name, value] : variables)
    plan.environ.push_back(fmt::format("{}={}", name, value));

  if (const auto* shell = std::get_if<std::string>(&request.command)) {
    if (shell->find_first_not_of(" \t\n") == std::string::npos)
      return usage_error("the benchmark command is empty");
    plan.program = "/bin/sh";
    plan.argv = {"sh", "-c", *shell};
  } else {
    plan.argv = std::get<std::vector<std::string>>(request.command);
    if (plan.argv.empty() || plan.argv.front().empty())
      return usage_error("the benchmark command is empty");
    const auto& program = plan.argv.front();
    if (program.find('/') != std::string::npos) {
      plan.program = program;
    } else {
      const auto path = variables.find("PATH");
      CULPRIT_TRY_ASSIGN(plan.program, find_on_path(program, path != variables.end()
                                                                 ? path->second
                                                                 : "/usr/local/bin:/usr/bin:/bin"));
    }
  }
  for (const auto& argument : plan.argv) {
    if (argument.find('\0') != std::string::npos)
      return usage_error("an argument of the benchmark command contains a NUL byte");
  }

  if (!request.cwd.empty()) {
    std::error_code error;
    if (!std::filesystem::is_directory(request.cwd, error))
      return infra_error("cannot run '{}': working directory {} does not exist", plan.argv.front(),
                         request.cwd.string());
  }
  for (const int cpu : request.cpus) {
    if (cpu < 0 || cpu >= CPU_SETSIZE)
      return usage_error("cannot pin the benchmark to CPU {}: CPUs are numbered 0 to {}", cpu,
                         CPU_SETSIZE - 1);
  }
  return plan;
}

Result<ChildProcess> spawn_child(const LaunchPlan& plan, const ExecRequest& request, int out_fd,
                                 int err_fd, Keeping keeping) {
  SpawnAttributes attributes;
  sigset_t defaults;
  sigemptyset(&defaults);
  for (const int signal_number : k_reset_signals)
    sigaddset(&defaults, signal_number);
  sigset_t empty_mask;
  sigemptyset(&empty_mask);
  posix_spawnattr_setflags(attributes.get(),
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(attributes.get(), 0);
  posix_spawnattr_setsigdefault(attributes.get(), &defaults);
  posix_spawnattr_setsigmask(attributes.get(), &empty_mask);

  SpawnFileActions actions;
  posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(actions.get(), out_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(actions.get(), err_fd, STDERR_FILENO);
  if (!request.cwd.empty())
    posix_spawn_file_actions_addchdir_np(actions.get(), request.cwd.c_str());

  CULPRIT_TRY_ASSIGN(const SpawnAffinity affinity, SpawnAffinity::pin(request.cpus));
  auto argv = c_strings(plan.argv);
  auto envp = c_strings(plan.environ);
  if (keeping == Keeping::yes)
    return spawn_kept(plan, request,
                      KeeperPlan{.program = plan.program.c_str(),
                                 .actions = actions.get(),
                                 .attributes = attributes.get(),
                                 .argv = argv.data(),
                                 .envp = envp.data(),
                                 .out_fd = out_fd,
                                 .err_fd = err_fd});
  pid_t pid = -1;
  const int error = posix_spawn(&pid, plan.program.c_str(), actions.get(), attributes.get(),
                                argv.data(), envp.data());
  if (error != 0) {
    const std::string where = request.cwd.empty() ? std::string() : " in " + request.cwd.string();
    return infra_error("cannot run '{}'{}: {}", plan.program, where, errno_text(error));
  }
  return ChildProcess(pid);
}

} // namespace culprit::exec
