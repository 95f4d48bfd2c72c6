#pragma once
// A spawned child that leads a process group of its own. The object owns the child: whatever
// path leaves the scope, the whole group is killed and the child is reaped, so no zombie and no
// stray process is left behind.
//
// A kept child (spawn_child with Keeping::yes, for contained runs) has a keeper between culprit and
// the command: a process of culprit's own, in a group of its own, that marks itself a child
// subreaper (prctl PR_SET_CHILD_SUBREAPER), starts the command, reports its exit status and
// resource usage on a pipe, and reaps everything below it, exiting once nothing is left. A process
// the run orphans (a daemon that forks twice, calls setsid and clears its environment) is then
// handed to the keeper, not to init: every process the run started stays below the keeper, whatever
// group, session or environment it chose, and is found from it by parent links. The subreaper is
// a process per run because the attribute is per process: culprit itself adopts no orphan, so no
// wait status is ever taken from code that waits for a child of its own, and runs made at once
// (lanes, duets) each keep their own.

#include <sys/resource.h>
#include <sys/types.h>

#include <optional>
#include <vector>

#include "core/exec/unique_fd.hpp"

namespace culprit::exec {

struct ChildExit {
  int status = 0; // as waitpid() reports it
  rusage usage{};
  // A kept child's own elapsed time in nanoseconds, from just before its keeper started it to
  // just after the keeper's wait for it returned (CLOCK_MONOTONIC): the run's wall time without
  // the keeper's fork, set-up, report and clean-up. -1 where no keeper measured it (a direct child,
  // or a keeper killed before it reported).
  long long elapsed_ns = -1;
};

// What a keeper writes on its report pipe: first that the command started (or why not), then,
// when it has exited, its status and usage. One record is one write, well under PIPE_BUF, so that
// it arrives whole.
struct KeeperReport {
  enum Kind : int { started = 1, failed = 2, exited = 3 };
  int kind = 0;
  int value = 0; // started: the command's pid; failed: the errno of posix_spawn
  int status = 0;
  rusage usage{};
  long long elapsed_ns = 0; // exited: ChildExit::elapsed_ns
};

class ChildProcess {
public:
  // Takes ownership of `pid`, which must lead its own process group (pgid == pid).
  explicit ChildProcess(pid_t pid);
  // Takes ownership of `keeper` and of the command `pid` it started (which leads its own process
  // group); `report` is the read end of the keeper's report pipe, past the record that it started.
  ChildProcess(pid_t keeper, pid_t pid, UniqueFd report);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) = delete;

  [[nodiscard]] pid_t pid() const { return m_pid; }
  // The keeper of a kept child; -1 for a direct child.
  [[nodiscard]] pid_t keeper() const { return m_keeper; }
  // A descriptor that poll() reports readable once the child has exited (a pidfd, or a kept
  // child's report pipe), or -1 where the kernel has none; then has_exited() must be polled.
  [[nodiscard]] int exit_fd() const { return m_keeper > 0 ? m_report.get() : m_pidfd.get(); }
  // True once the child has exited. A direct child stays a zombie until reap(), which keeps its
  // pid, and so its process group id, from being reused while we still signal the group.
  [[nodiscard]] bool has_exited();
  // Sends `signal_number` to every process of the child's group, and to the child itself by its
  // pid: a child that moved to another group (setpgid) is signalled all the same, which its
  // unreaped pid makes safe. A group already gone is fine. A kept child that has exited is no
  // longer signalled by its pid (the keeper reaped it); what is left of the run is below the
  // keeper.
  void signal_group(int signal_number) const;
  // The processes below the child now, found by parent links: its descendants, or, for a kept
  // child, everything below the keeper (the command and every orphan of the run).
  [[nodiscard]] std::vector<pid_t> descendants() const;
  // Waits for the child (blocking) and returns its status and resource usage. For a kept child,
  // whatever of the run is still alive below the keeper is killed first, and the keeper reaped.
  ChildExit reap();

private:
  void read_report();
  void finish_keeper();

  pid_t m_pid = -1;
  UniqueFd m_pidfd;
  bool m_reaped = false;
  pid_t m_keeper = -1; // > 0 for a kept child
  UniqueFd m_keeper_pidfd;
  UniqueFd m_report;
  std::optional<ChildExit> m_exit; // a kept child's, once reported
};

} // namespace culprit::exec
