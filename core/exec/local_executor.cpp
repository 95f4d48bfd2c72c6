#include "core/exec/local_executor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <system_error>

#include "core/exec/child_process.hpp"
#include "core/exec/spawn.hpp"
#include "core/exec/strays.hpp"
#include "core/exec/unique_fd.hpp"
#include "core/util/interrupt.hpp"

namespace culprit::exec {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How often the interrupt flag is looked at: a signal may land on another thread, so poll()
// cannot be relied on to wake up with EINTR.
constexpr milliseconds k_poll_tick{50};
constexpr milliseconds k_drain_grace{500};
constexpr std::size_t k_read_chunk = std::size_t{64} << 10;
// Bounded so that a stream that never runs dry cannot starve the timeout and interrupt checks.
constexpr int k_reads_per_wakeup = 16;

// One output stream of the child, read as it comes; the first `limit` bytes are kept.
class CapturedStream {
public:
  CapturedStream(UniqueFd fd, std::size_t limit) : m_fd(std::move(fd)), m_limit(limit) {}

  [[nodiscard]] bool open() const { return m_fd.valid(); }
  [[nodiscard]] int fd() const { return m_fd.get(); }
  void close() { m_fd.reset(); }

  // Reads what is there without blocking; closes the stream at end of file.
  void read_available() {
    std::array<char, k_read_chunk> buffer; // NOLINT(cppcoreguidelines-pro-type-member-init)
    for (int reads = 0; reads < k_reads_per_wakeup && m_fd.valid(); ++reads) {
      const ssize_t count = ::read(m_fd.get(), buffer.data(), buffer.size());
      if (count > 0) {
        keep(buffer.data(), static_cast<std::size_t>(count));
      } else if (count < 0 && errno == EINTR) {
        continue;
      } else if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return;
      } else {
        m_fd.reset();
      }
    }
  }

  void move_into(std::string& text, bool& truncated, std::uint64_t& total) {
    text = std::move(m_kept);
    truncated = m_truncated;
    total = m_total;
  }

private:
  void keep(const char* data, std::size_t size) {
    m_total += size;
    const std::size_t room = m_limit - std::min(m_limit, m_kept.size());
    if (size > room)
      m_truncated = true;
    m_kept.append(data, std::min(size, room));
  }

  UniqueFd m_fd;
  std::size_t m_limit;
  std::string m_kept;
  std::uint64_t m_total = 0;
  bool m_truncated = false;
};

struct Pipe {
  UniqueFd read_end;
  UniqueFd write_end;
};

Result<Pipe> make_pipe() {
  std::array<int, 2> fds{-1, -1};
  if (pipe2(fds.data(), O_CLOEXEC) != 0)
    return infra_error("cannot create a pipe for the benchmark's output: {}",
                       std::error_code(errno, std::generic_category()).message());
  Pipe pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
  fcntl(pipe.read_end.get(), F_SETFL, O_NONBLOCK);
  return pipe;
}

enum class StopReason { none, timeout, interrupt };

struct Supervision {
  StopReason stop = StopReason::none;
  bool output_abandoned = false;
};

int poll_timeout_ms(Clock::time_point now, Clock::time_point wake) {
  if (wake <= now)
    return 0;
  const auto wait = std::chrono::ceil<milliseconds>(wake - now);
  return static_cast<int>(std::min<milliseconds::rep>(wait.count(), k_poll_tick.count()));
}

// Runs until the child has exited and its output is drained (or abandoned), stopping the child's
// group on timeout or interrupt. The child is still to be reaped.
Supervision supervise(ChildProcess& child, CapturedStream& out, CapturedStream& err,
                      const ExecRequest& request, Clock::time_point start, std::string_view token) {
  constexpr auto never = Clock::time_point::max();
  const auto deadline = request.timeout > Seconds::zero()
                            ? start + std::chrono::duration_cast<Clock::duration>(request.timeout)
                            : never;
  const auto grace = std::chrono::duration_cast<Clock::duration>(request.kill_grace);
  auto kill_at = never;
  auto drain_until = never;
  auto idle_wait = milliseconds(1);
  bool exited = false;
  // The child's descendants when it was asked to stop: they get the same signals as its group,
  // also those that left the group and carry no token.
  std::vector<pid_t> stopped;
  Supervision supervision;

  while (true) {
    if (!exited && child.has_exited()) {
      exited = true;
      // Whatever it left running in its group; in a contained run, everything below its keeper
      // too, orphans included.
      child.signal_group(SIGKILL);
      if (!token.empty())
        kill_strays(token); // and whatever left the group but carries the token
      drain_until = Clock::now() + k_drain_grace;
    }
    if (exited && !out.open() && !err.open())
      break;
    const auto now = Clock::now();
    if (exited && now >= drain_until) {
      supervision.output_abandoned = true;
      break;
    }
    if (!exited && supervision.stop == StopReason::none) {
      if (request.interruptible && interrupt_requested())
        supervision.stop = StopReason::interrupt;
      else if (now >= deadline)
        supervision.stop = StopReason::timeout;
      if (supervision.stop != StopReason::none) {
        stopped = child.descendants();
        child.signal_group(SIGTERM);
        signal_each(stopped, SIGTERM);
        kill_at = grace > Clock::duration::zero() ? now + grace : now;
      }
    }
    if (!exited && now >= kill_at) {
      // Those asked to stop that have since lost their parent are no longer in the tree.
      for (const pid_t pid : child.descendants())
        if (std::ranges::find(stopped, pid) == stopped.end())
          stopped.push_back(pid);
      child.signal_group(SIGKILL);
      signal_each(stopped, SIGKILL);
      if (!token.empty())
        kill_strays(token);
      kill_at = never;
    }

    auto wake = std::min({kill_at, drain_until, now + k_poll_tick});
    if (supervision.stop == StopReason::none)
      wake = std::min(wake, deadline);
    std::array<pollfd, 3> fds{};
    nfds_t count = 0;
    for (const auto* stream : {&out, &err}) {
      if (stream->open())
        fds.at(count++) = pollfd{stream->fd(), POLLIN, 0};
    }
    if (!exited && child.exit_fd() >= 0) {
      fds.at(count++) = pollfd{child.exit_fd(), POLLIN, 0};
    } else if (!exited && count == 0) {
      // No pidfd and no output left to wait on: look again soon, then less often.
      wake = std::min(wake, now + idle_wait);
      idle_wait = std::min(idle_wait * 2, k_poll_tick);
    }
    if (::poll(fds.data(), count, poll_timeout_ms(now, wake)) > 0) {
      for (auto* stream : {&out, &err}) {
        if (stream->open())
          stream->read_available();
      }
    }
  }
  out.close();
  err.close();
  return supervision;
}

Seconds to_seconds(const timeval& time) {
  return Seconds(static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) * 1e-6);
}

} // namespace

Result<ExecResult> LocalExecutor::run(const ExecRequest& request) {
  if (request.interruptible && interrupt_requested())
    return fail(ExitCode::interrupted,
                "interrupted before running '" + command_line(request) + "'");
  if (request.timeout < Seconds::zero() || request.kill_grace < Seconds::zero())
    return usage_error("the timeout and the kill grace period must not be negative");
  // Every process of a contained run carries the token, so that those that leave its group are
  // found.
  const auto token = request.contain ? new_run_token() : std::string();
  ExecRequest marked = request;
  if (request.contain)
    marked.env[std::string(k_run_token_variable)] = token;
  CULPRIT_TRY_ASSIGN(const LaunchPlan plan, plan_launch(marked));
  CULPRIT_TRY_ASSIGN(Pipe out_pipe, make_pipe());
  CULPRIT_TRY_ASSIGN(Pipe err_pipe, make_pipe());

  // The outer clock bounds the run (its timeout); a kept run's wall time is the command's own,
  // measured by its keeper, so that the keeper's fork, set-up and clean-up are not in it.
  const auto start = Clock::now();
  CULPRIT_TRY_ASSIGN(ChildProcess child,
                     spawn_child(plan, marked, out_pipe.write_end.get(), err_pipe.write_end.get(),
                                 request.contain ? Keeping::yes : Keeping::no));
  out_pipe.write_end.reset();
  err_pipe.write_end.reset();
  CapturedStream out(std::move(out_pipe.read_end), request.output_limit);
  CapturedStream err(std::move(err_pipe.read_end), request.output_limit);

  const Supervision supervision = supervise(child, out, err, request, start, token);
  const ChildExit exit = child.reap();
  const auto end = Clock::now();

  // A run that failed once an interrupt was asked for was cut by it, even when its signal came
  // before the loop above saw the flag (srun signals every process of a step; an executor that
  // stops a worker signals the worker's children too): it is not a measured run. One that
  // finished well is kept.
  const bool failed = WIFSIGNALED(exit.status) || WEXITSTATUS(exit.status) != 0;
  const bool cut = request.interruptible && failed && interrupt_requested();
  if (supervision.stop == StopReason::interrupt || cut)
    return fail(ExitCode::interrupted, "interrupted while running '" + command_line(request) +
                                           "'; its process group was stopped");
  ExecResult result;
  if (WIFSIGNALED(exit.status)) {
    result.signal = WTERMSIG(exit.status);
    result.exit_code = -1;
  } else {
    result.exit_code = WEXITSTATUS(exit.status);
  }
  result.timed_out = supervision.stop == StopReason::timeout;
  out.move_into(result.out, result.out_truncated, result.out_bytes);
  err.move_into(result.err, result.err_truncated, result.err_bytes);
  result.wall = exit.elapsed_ns >= 0 ? Seconds(static_cast<double>(exit.elapsed_ns) * 1e-9)
                                     : Seconds(end - start);
  result.user = to_seconds(exit.usage.ru_utime);
  result.sys = to_seconds(exit.usage.ru_stime);
  result.max_rss_kb = exit.usage.ru_maxrss;
  if (supervision.output_abandoned)
    result.notes.emplace_back("a process that left the command's process group kept its output "
                              "open after the command exited; the rest of its output was dropped");
  return result;
}

} // namespace culprit::exec
