#include "core/exec/child_process.hpp"

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <utility>

#include <unistd.h>

#include "core/exec/strays.hpp"

namespace culprit::exec {
namespace {

// glibc 2.36's <sys/pidfd.h> lacks extern "C", so its wrapper cannot be called from C++.
int open_pidfd(pid_t pid) {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0U));
}

// Rounds of killing what is left below a keeper: a process may fork while it is killed.
constexpr int k_keeper_passes = 20;
constexpr int k_keeper_pass_ms = 50;

// True when `pid` (a child of ours) has exited within `timeout_ms`, without reaping it.
bool exits_within(pid_t pid, int pidfd, int timeout_ms) {
  if (pidfd >= 0) {
    pollfd ready{pidfd, POLLIN, 0};
    int got = -1;
    do {
      got = ::poll(&ready, 1, timeout_ms);
    } while (got < 0 && errno == EINTR);
    return got > 0;
  }
  for (int waited = 0;; waited += 5) {
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 &&
        errno != EINTR)
      return true; // not our child any more
    if (info.si_pid == pid)
      return true;
    if (waited >= timeout_ms)
      return false;
    ::usleep(5000);
  }
}

} // namespace

ChildProcess::ChildProcess(pid_t pid) : m_pid(pid), m_pidfd(open_pidfd(pid)) {}

ChildProcess::ChildProcess(pid_t keeper, pid_t pid, UniqueFd report)
    : m_pid(pid), m_keeper(keeper), m_keeper_pidfd(open_pidfd(keeper)),
      m_report(std::move(report)) {}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : m_pid(std::exchange(other.m_pid, -1)), m_pidfd(std::move(other.m_pidfd)),
      m_reaped(std::exchange(other.m_reaped, true)), m_keeper(std::exchange(other.m_keeper, -1)),
      m_keeper_pidfd(std::move(other.m_keeper_pidfd)), m_report(std::move(other.m_report)),
      m_exit(other.m_exit) {}

ChildProcess::~ChildProcess() {
  if (m_pid <= 0 || m_reaped)
    return;
  signal_group(SIGKILL);
  reap();
}

void ChildProcess::read_report() {
  KeeperReport report;
  ssize_t got = -1;
  do {
    got = ::read(m_report.get(), &report, sizeof report);
  } while (got < 0 && errno == EINTR);
  if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
    return;
  if (got == static_cast<ssize_t>(sizeof report) && report.kind == KeeperReport::exited) {
    m_exit = ChildExit{report.status, report.usage, report.elapsed_ns};
    return;
  }
  // The keeper is gone without a word (killed by someone else, the OOM killer): the command counts
  // as killed, and is killed, so that it does not run on unsupervised below init. Its group is
  // its own (pgid == m_pid); what left it went to init with the keeper's other orphans.
  ::kill(-m_pid, SIGKILL);
  m_exit = ChildExit{SIGKILL, {}};
}

bool ChildProcess::has_exited() {
  if (m_keeper > 0) {
    if (!m_exit) {
      pollfd ready{m_report.get(), POLLIN, 0};
      if (::poll(&ready, 1, 0) > 0)
        read_report();
    }
    return m_exit.has_value();
  }
  siginfo_t info{};
  while (waitid(P_PID, static_cast<id_t>(m_pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    if (errno != EINTR)
      return true; // not our child any more: nothing left to wait for
  }
  return info.si_pid == m_pid;
}

void ChildProcess::signal_group(int signal_number) const {
  if (m_pid <= 0 || m_reaped)
    return;
  if (m_keeper > 0) {
    if (!m_exit) {
      ::kill(-m_pid, signal_number);
      ::kill(m_pid, signal_number);
    }
    signal_each(descendants_of(m_keeper), signal_number);
    return;
  }
  ::kill(-m_pid, signal_number);
  ::kill(m_pid, signal_number);
}

std::vector<pid_t> ChildProcess::descendants() const {
  return descendants_of(m_keeper > 0 ? m_keeper : m_pid);
}

void ChildProcess::finish_keeper() {
  // The keeper exits once nothing is left below it; what is left is killed, pass after pass.
  bool gone = exits_within(m_keeper, m_keeper_pidfd.get(), 0);
  for (int pass = 0; pass < k_keeper_passes && !gone; ++pass) {
    signal_each(descendants_of(m_keeper), SIGKILL);
    gone = exits_within(m_keeper, m_keeper_pidfd.get(), k_keeper_pass_ms);
  }
  if (!gone)
    ::kill(m_keeper, SIGKILL); // something outran the passes: it goes to init, culprit goes on
  while (::waitpid(m_keeper, nullptr, 0) < 0 && errno == EINTR) {
  }
}

ChildExit ChildProcess::reap() {
  if (m_keeper > 0) {
    while (!m_exit) {
      pollfd ready{m_report.get(), POLLIN, 0};
      if (::poll(&ready, 1, -1) > 0 || errno != EINTR)
        read_report();
    }
    finish_keeper();
    m_reaped = true;
    return *m_exit;
  }
  ChildExit exit;
  while (wait4(m_pid, &exit.status, 0, &exit.usage) < 0) {
    if (errno != EINTR)
      break;
  }
  m_reaped = true;
  return exit;
}

} // namespace culprit::exec
