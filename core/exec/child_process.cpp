#include "core/exec/child_process.hpp"

#include <sys/syscall.h>
#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <utility>

#include <unistd.h>

namespace culprit::exec {
namespace {

// glibc 2.36's <sys/pidfd.h> lacks extern "C", so its wrapper cannot be called from C++.
int open_pidfd(pid_t pid) {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0U));
}

} // namespace

ChildProcess::ChildProcess(pid_t pid) : m_pid(pid), m_pidfd(open_pidfd(pid)) {}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : m_pid(std::exchange(other.m_pid, -1)), m_pidfd(std::move(other.m_pidfd)),
      m_reaped(std::exchange(other.m_reaped, true)) {}

ChildProcess::~ChildProcess() {
  if (m_pid <= 0 || m_reaped)
    return;
  signal_group(SIGKILL);
  reap();
}

bool ChildProcess::has_exited() const {
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
  ::kill(-m_pid, signal_number);
  ::kill(m_pid, signal_number);
}

ChildExit ChildProcess::reap() {
  ChildExit exit;
  while (wait4(m_pid, &exit.status, 0, &exit.usage) < 0) {
    if (errno != EINTR)
      break;
  }
  m_reaped = true;
  return exit;
}

} // namespace culprit::exec
