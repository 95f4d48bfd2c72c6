#pragma once
// A spawned child that leads a process group of its own. The object owns the child: whatever
// path leaves the scope, the whole group is killed and the child is reaped, so no zombie and no
// stray process is left behind.

#include <sys/resource.h>
#include <sys/types.h>

#include "core/exec/unique_fd.hpp"

namespace culprit::exec {

struct ChildExit {
  int status = 0; // as waitpid() reports it
  rusage usage{};
};

class ChildProcess {
public:
  // Takes ownership of `pid`, which must lead its own process group (pgid == pid).
  explicit ChildProcess(pid_t pid);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) = delete;

  [[nodiscard]] pid_t pid() const { return m_pid; }
  // A descriptor that poll() reports readable once the child has exited (a pidfd), or -1 where
  // the kernel has none; then has_exited() must be polled.
  [[nodiscard]] int exit_fd() const { return m_pidfd.get(); }
  // True once the child has exited. It stays a zombie until reap(), which keeps its pid, and so
  // its process group id, from being reused while we still signal the group.
  [[nodiscard]] bool has_exited() const;
  // Sends `signal_number` to every process of the child's group, and to the child itself by its
  // pid: a child that moved to another group (setpgid) is signalled all the same, which its
  // unreaped pid makes safe. A group already gone is fine.
  void signal_group(int signal_number) const;
  // Waits for the child (blocking) and returns its status and resource usage.
  ChildExit reap();

private:
  pid_t m_pid = -1;
  UniqueFd m_pidfd;
  bool m_reaped = false;
};

} // namespace culprit::exec
