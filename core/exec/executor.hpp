#pragma once
// Running one benchmark process: what to run (ExecRequest), what came of it (ExecResult), and the
// Executor seam that drivers call without knowing where the process runs (this machine, a fake
// for tests, a cluster allocation).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/util/error.hpp"

namespace culprit::exec {

using Seconds = std::chrono::duration<double>;

// Bytes of each output stream kept by default; more is read and counted, not kept.
inline constexpr std::size_t k_default_output_limit = std::size_t{64} << 20;

struct ExecRequest {
  // An argument vector runs as is, its program looked up on the PATH of the child's environment
  // when it has no '/'; a string runs under /bin/sh -c.
  std::variant<std::vector<std::string>, std::string> command;
  std::filesystem::path cwd;              // empty: the caller's working directory
  std::map<std::string, std::string> env; // added to the caller's environment, overriding it
  Seconds timeout{0};                     // zero: no timeout
  Seconds kill_grace{1.0};                // between SIGTERM and SIGKILL when the run is stopped
  std::vector<int> cpus;                  // empty: no pinning
  std::size_t output_limit = k_default_output_limit; // bytes kept of stdout and of stderr each
  // false: runs to its end even once an interrupt is requested (clean-up commands such as
  // scancel, which must run on the way out).
  bool interruptible = true;
  // true (benchmark runs): the processes that left the run's group die with it too
  // (core/exec/strays.hpp). Builds and tools may start daemons that are meant to stay (a compiler
  // server, a Slurm daemon), so for them only the group is stopped.
  bool contain = false;
};

struct ExecResult {
  int exit_code = 0;      // meaningful when signal == 0; -1 when a signal ended the process
  int signal = 0;         // the signal that ended the process, or 0
  bool timed_out = false; // the run outlived its timeout and was killed
  std::string out;        // the first output_limit bytes of stdout
  std::string err;        // the first output_limit bytes of stderr
  bool out_truncated = false;
  bool err_truncated = false;
  std::uint64_t out_bytes = 0; // everything the process wrote to stdout, kept or not
  std::uint64_t err_bytes = 0;
  Seconds wall{0};
  Seconds user{0};                // of the process and the descendants it waited for
  Seconds sys{0};                 // likewise
  long max_rss_kb = 0;            // the largest resident set among those processes
  std::vector<std::string> notes; // what a person should know about the run, one line each
  // When the run started, in microseconds since the epoch, from executors that ran it elsewhere
  // (a cluster node); the caller's own clock otherwise.
  std::optional<std::int64_t> started_micros;

  // Exited with status 0, not by a signal, within its timeout.
  [[nodiscard]] bool succeeded() const { return exit_code == 0 && signal == 0 && !timed_out; }
};

// "exited with status 3", "killed by signal 11 (Segmentation fault)", "timed out after 2 s".
[[nodiscard]] std::string describe_outcome(const ExecResult& result, const ExecRequest& request);

// The command as a person would type it, for messages: the shell string, or the argument vector
// with each argument quoted where the shell would need it.
[[nodiscard]] std::string command_line(const ExecRequest& request);

// A short name for the command: the file name of the program (argv[0], or the first word of a
// shell string), e.g. "bench" for "{build}/bench --fast". Used as the case of the `time` format.
[[nodiscard]] std::string command_name(const ExecRequest& request);

// A device that runs batches elsewhere: the id its runs are stored under (host::host_id of the
// node's fingerprint, GPUs included) and what to record about it.
struct BatchDevice {
  std::string host_id;
  std::string host_json; // the node's fingerprint as JSON text
  std::string node;
  std::string job_id;
  std::vector<std::string> gpus; // UUIDs
};

class Executor {
public:
  Executor() = default;
  virtual ~Executor() = default;
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  Executor(Executor&&) = delete;
  Executor& operator=(Executor&&) = delete;

  // Runs one command to completion. A command that ran and failed (non-zero status, signal,
  // timeout) is an ExecResult that says so. An Error means it could not be run at all: not
  // found, not executable, a bad working directory or CPU list (ExitCode::infrastructure or
  // usage), or interrupt_requested() became true (ExitCode::interrupted; the process group was
  // killed and reaped). No child process outlives the call in either case.
  virtual Result<ExecResult> run(const ExecRequest& request) = 0;

  // Runs the requests in order and returns one outcome each. Once a run is interrupted, the
  // requests after it are not run and get the same error. An executor that ships work elsewhere
  // (a cluster allocation) overrides this to send the whole batch at once.
  virtual std::vector<Result<ExecResult>> run_batch(std::span<const ExecRequest> requests);

  // Runs the requests at the same time (a duet: each normally pinned to CPUs of its own) and
  // returns one outcome each, in order. They are released together: every process is created
  // before any is waited for. The default starts one thread per request on run(), which must then
  // be safe to call concurrently; executors with their own notion of time override it.
  virtual std::vector<Result<ExecResult>> run_together(std::span<const ExecRequest> requests);

  // Whether run_batch sends a batch elsewhere as one unit (a cluster allocation) rather than
  // running the requests one by one here. Callers then plan whole batches instead of single runs.
  [[nodiscard]] virtual bool ships_batches() const { return false; }

  // Where the next batch will run, when that is not this machine: the node and its host id, found
  // by asking for an allocation if there is none yet. nullopt for executors that run here.
  virtual Result<std::optional<BatchDevice>> device() { return std::nullopt; }
  // The device that ran the last batch (an allocation may change when a batch is retried).
  [[nodiscard]] virtual std::optional<BatchDevice> batch_device() const { return std::nullopt; }

  // "local", "fake", ...: where the runs happen, for evidence and messages.
  [[nodiscard]] virtual std::string_view name() const = 0;
};

} // namespace culprit::exec
