#pragma once
// Runs measurement batches on a Slurm cluster, one allocation per executor (a "lane").
//
// - Allocation: `salloc --no-shell -J NAME ALLOC_ARGS...` (ALLOC_ARGS are the recipe's
//   sbatch_args, e.g. `-p gpu --gres=gpu:1 --exclusive`) holds one node until released. The
//   first step in it is an empty batch that tells which node and GPUs the lane got: runs are
//   stored under that device's host id, so a probe is only ever compared with references
//   measured on the same device.
// - A batch: the requests go to DIR/batch.json in the shared cache, `srun --jobid=ID -N1 -n1
//   SRUN_ARGS... culprit worker DIR` runs them on the node, and the results come back through
//   files (core/exec/batch_files.hpp). A whole batch costs one step, however many runs it holds.
// - Faults: an allocation that is not granted within the queue timeout, or a step that fails
//   (node failure, preemption, the allocation ending), costs that allocation; the batch is tried
//   again on a new one, up to max_attempts in all, and then reported as an infrastructure error.
//   A request that Slurm refuses outright (an unknown partition, an impossible request) is
//   reported at once. A step that succeeded but left missing or cut result files is an
//   infrastructure error: nothing of the batch is returned, so nothing is half-imported.
// - Interrupts: the step is stopped (srun forwards the signal to the worker, which stops its run),
//   the whole result lines the worker wrote are returned, the requests after them get the
//   interrupted error, and the allocation is cancelled (scancel) on the way out.
// - release() (and the destructor) cancel the allocation.
// Every Slurm command runs through a local executor, with `env` added (tests point SLURM_CONF at a
// cluster of their own).

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/exec/batch_files.hpp"
#include "core/exec/executor.hpp"
#include "core/exec/local_executor.hpp"

namespace culprit::exec {

struct SlurmOptions {
  std::vector<std::string> alloc_args; // sbatch_args: given to salloc
  std::vector<std::string> srun_args;  // given to each srun step
  std::filesystem::path worker;        // the culprit executable the nodes run
  std::filesystem::path batch_root;    // in the shared cache: one directory per batch
  std::string job_name = "culprit";
  int max_attempts = 3;                   // allocations tried for one batch
  Seconds queue_timeout{600};             // how long an allocation may wait to be granted
  std::map<std::string, std::string> env; // for every Slurm command
  // Keep the allocation between batches (a measuring lane keeps its device). false: release it
  // after each batch (builds, so that an idle build lane holds no node the lanes wait for).
  bool hold = true;
};

// What a lane did with one allocation, for the evidence.
struct SlurmJob {
  std::string job_id;
  std::string node;
  std::vector<std::string> gpus;
  std::string host_id;
  int batches = 0;
  int runs = 0;
  std::string ended; // "released", "failed: <why>", "interrupted", or empty while held
};

class SlurmExecutor final : public Executor {
public:
  SlurmExecutor(SlurmOptions options, std::string lane);
  ~SlurmExecutor() override;
  SlurmExecutor(const SlurmExecutor&) = delete;
  SlurmExecutor& operator=(const SlurmExecutor&) = delete;
  SlurmExecutor(SlurmExecutor&&) = delete;
  SlurmExecutor& operator=(SlurmExecutor&&) = delete;

  Result<ExecResult> run(const ExecRequest& request) override;
  std::vector<Result<ExecResult>> run_batch(std::span<const ExecRequest> requests) override;
  [[nodiscard]] bool ships_batches() const override { return true; }
  Result<std::optional<BatchDevice>> device() override;
  [[nodiscard]] std::optional<BatchDevice> batch_device() const override { return m_last_device; }
  [[nodiscard]] std::string_view name() const override { return "slurm"; }

  // Cancels the allocation held, if any.
  void release(std::string_view why = "released");
  [[nodiscard]] const std::vector<SlurmJob>& jobs() const { return m_jobs; }
  [[nodiscard]] int retries() const { return m_retries; }

private:
  struct Allocation {
    std::string job_id;
    BatchNode node;
  };
  enum class StepEnd : std::uint8_t { completed, interrupted, failed };
  // One attempt at an allocation; `retryable` says whether another attempt may do better.
  Result<Allocation> allocate(bool& retryable);
  // One srun step running `requests` in the allocation held.
  Result<BatchReadback> run_step(std::span<const ExecRequest> requests, StepEnd& end);
  [[nodiscard]] std::filesystem::path next_batch_dir();
  ExecRequest slurm_command(std::vector<std::string> argv, Seconds timeout) const;

  SlurmOptions m_options;
  std::string m_lane;
  LocalExecutor m_local;
  std::optional<Allocation> m_allocation;
  std::optional<BatchDevice> m_last_device;
  std::vector<SlurmJob> m_jobs;
  int m_batches = 0;
  int m_retries = 0;
};

} // namespace culprit::exec
