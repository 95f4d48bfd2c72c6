#pragma once
// Runs benchmark commands on this machine.
//
// Each run is a fresh process leading a process group of its own, with stdin on /dev/null.
// - Timeout: when request.timeout passes, the whole group gets SIGTERM, and SIGKILL once
//   request.kill_grace has passed too; the result says timed_out. So do the child itself by its
//   pid (it may have moved to another group) and its descendants by their parent links (they may
//   have left the group and cleared their environment, which hides them from the token below).
// - Interrupt: when interrupt_requested() becomes true (checked at least every 50 ms), the group
//   is stopped the same way and run() returns an error with ExitCode::interrupted.
// - When the command itself exits, anything left in its group (background processes) gets
//   SIGKILL: a benchmark must not leave load behind for the next run. In a contained run
//   (request.contain: the benchmark runs) so does every process of the run, wherever it went: the
//   command is started under a keeper, a child subreaper that every orphan of the run is handed
//   to (core/exec/child_process.hpp), so a daemon that forked twice, called setsid and cleared its
//   environment is still found below it; and every process that carries the run's token
//   (core/exec/strays.hpp). Both at the timeout and at the end; run() returns once they are gone.
//   A process that escaped that (an uncontained run's daemon) and still holds the output open is
//   waited for at most half a second; then reading stops and a note says so.
// - Output: stdout and stderr are read concurrently as they come (no deadlock however much is
//   written); the first output_limit bytes of each are kept, the rest is read, counted and
//   dropped, and the result says it was truncated.
// - Resources: wall time from a steady clock around the run; user and system time and max RSS
//   of the child and the descendants it waited for (wait4).
// - Pinning: request.cpus is applied with sched_setaffinity to the spawning thread just before
//   the process is created, so the child inherits it from its first instruction.
// Safe to call from several threads at once (each call owns its child).

#include "core/exec/executor.hpp"

namespace culprit::exec {

class LocalExecutor final : public Executor {
public:
  Result<ExecResult> run(const ExecRequest& request) override;
  [[nodiscard]] std::string_view name() const override { return "local"; }
};

// A lane of this machine for drivers that measure several probes at once when asked (the
// recipe's [executor] parallel_runs): it ships batches, so that the lanes' batches run at the same
// time, each a series of local runs; its device is this host. Runs side by side on one machine
// disturb each other, which is why this is never the default.
class LocalLaneExecutor final : public Executor {
public:
  LocalLaneExecutor(std::string host_id, std::string host_json)
      : m_device{std::move(host_id), std::move(host_json), "localhost", "", {}} {}
  Result<ExecResult> run(const ExecRequest& request) override { return m_local.run(request); }
  [[nodiscard]] bool ships_batches() const override { return true; }
  Result<std::optional<BatchDevice>> device() override { return m_device; }
  [[nodiscard]] std::optional<BatchDevice> batch_device() const override { return m_device; }
  [[nodiscard]] std::string_view name() const override { return "local"; }

private:
  LocalExecutor m_local;
  BatchDevice m_device;
};

} // namespace culprit::exec
