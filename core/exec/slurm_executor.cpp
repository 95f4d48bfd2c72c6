#include "core/exec/slurm_executor.hpp"

#include <unistd.h>

#include <cctype>

#include <fmt/format.h>

namespace culprit::exec {
namespace {

// The last line of a command's stderr that says something, without Slurm's "salloc: error: ".
std::string last_line(const std::string& text) {
  std::string_view rest(text);
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back())) != 0)
    rest.remove_suffix(1);
  const auto newline = rest.rfind('\n');
  auto line = newline == std::string_view::npos ? rest : rest.substr(newline + 1);
  for (const std::string_view prefix : {"salloc: error: ", "srun: error: ", "salloc: ", "srun: "}) {
    if (line.starts_with(prefix)) {
      line.remove_prefix(prefix.size());
      break;
    }
  }
  return std::string(line);
}

std::string job_id_granted(const std::string& err) {
  constexpr std::string_view k_granted = "Granted job allocation ";
  const auto at = err.find(k_granted);
  if (at == std::string::npos)
    return {};
  std::string id;
  for (auto i = at + k_granted.size();
       i < err.size() && std::isdigit(static_cast<unsigned char>(err[i])) != 0; ++i)
    id += err[i];
  return id;
}

BatchDevice device_of(const BatchNode& node, const std::string& job_id) {
  return BatchDevice{node.host_id, node.host.dump(), node.node, job_id, node.gpus};
}

std::vector<Result<ExecResult>> all_failed(std::size_t count, const Error& error) {
  return std::vector<Result<ExecResult>>(count, std::unexpected(error));
}

} // namespace

SlurmExecutor::SlurmExecutor(SlurmOptions options, std::string lane)
    : m_options(std::move(options)), m_lane(std::move(lane)) {}

SlurmExecutor::~SlurmExecutor() {
  release();
}

ExecRequest SlurmExecutor::slurm_command(std::vector<std::string> argv, Seconds timeout) const {
  ExecRequest request;
  request.command = std::move(argv);
  request.env = m_options.env;
  request.timeout = timeout;
  request.kill_grace = Seconds(5); // time for srun to stop the step and the worker to flush
  return request;
}

std::filesystem::path SlurmExecutor::next_batch_dir() {
  return m_options.batch_root / fmt::format("{}-{}-{}", ::getpid(), m_lane, ++m_batches);
}

void SlurmExecutor::release(std::string_view why) {
  if (!m_allocation)
    return;
  auto request = slurm_command({"scancel", m_allocation->job_id}, Seconds(30));
  request.interruptible = false; // on the way out of an interrupt, too
  // A job that is already gone is what we want anyway; any other failure is worth a word.
  const auto cancelled = m_local.run(request);
  std::string ended(why);
  if (!cancelled)
    ended += fmt::format(" (scancel could not run: {})", cancelled.error().message);
  else if (!cancelled->succeeded() && cancelled->err.find("Invalid job id") == std::string::npos)
    ended += fmt::format(" (scancel: {})", last_line(cancelled->err));
  for (auto& job : m_jobs) {
    if (job.job_id == m_allocation->job_id && job.ended.empty())
      job.ended = ended;
  }
  m_allocation.reset();
}

Result<SlurmExecutor::Allocation> SlurmExecutor::allocate(bool& retryable) {
  retryable = false;
  std::vector<std::string> argv = {"salloc", "--no-shell", "-J", m_options.job_name};
  argv.insert(argv.end(), m_options.alloc_args.begin(), m_options.alloc_args.end());
  auto request = slurm_command(argv, m_options.queue_timeout);
  auto ran = m_local.run(request);
  if (!ran) {
    if (ran.error().code == ExitCode::interrupted)
      return std::unexpected(ran.error());
    return infra_error("cannot ask Slurm for an allocation: {}; install Slurm's client tools "
                       "(salloc, srun, scancel) or use --executor local",
                       ran.error().message);
  }
  if (ran->timed_out) {
    retryable = true;
    return infra_error("no allocation was granted within {:.0f} s",
                       m_options.queue_timeout.count());
  }
  const auto job_id = job_id_granted(ran->err);
  if (!ran->succeeded() || job_id.empty())
    return infra_error("Slurm refused the allocation ({}): {}; check [executor] sbatch_args",
                       command_line(request), last_line(ran->err));
  Allocation allocation{job_id, {}};
  m_allocation = allocation;
  m_jobs.push_back({job_id, "", {}, "", 0, 0, ""});
  // An empty batch: which node and GPUs did the lane get?
  StepEnd end = StepEnd::completed;
  auto probe = run_step({}, end);
  if (!probe || end != StepEnd::completed) {
    retryable = end == StepEnd::failed;
    if (probe)
      probe = std::unexpected(
          Error{ExitCode::interrupted, "interrupted; everything measured so far is kept"});
    release(fmt::format("failed: {}", probe.error().message));
    return std::unexpected(probe.error());
  }
  m_allocation->node = *probe->node;
  auto& job = m_jobs.back();
  job.node = probe->node->node;
  job.gpus = probe->node->gpus;
  job.host_id = probe->node->host_id;
  return *m_allocation;
}

Result<BatchReadback> SlurmExecutor::run_step(std::span<const ExecRequest> requests, StepEnd& end) {
  end = StepEnd::completed;
  const auto dir = next_batch_dir();
  CULPRIT_TRY(write_batch(dir, requests));
  std::vector<std::string> argv = {"srun", "--jobid=" + m_allocation->job_id, "-N1", "-n1"};
  argv.insert(argv.end(), m_options.srun_args.begin(), m_options.srun_args.end());
  argv.insert(argv.end(), {m_options.worker.string(), "worker", dir.string()});
  auto ran = m_local.run(slurm_command(std::move(argv), Seconds(0)));
  Result<BatchReadback> back;
  if (!ran) {
    if (ran.error().code != ExitCode::interrupted)
      return infra_error("cannot start a Slurm step: {}; install Slurm's client tools or use "
                         "--executor local",
                         ran.error().message);
    // Whatever the worker finished before it was stopped is kept; the interrupt is what the
    // caller must hear about, even when nothing could be read back.
    end = StepEnd::interrupted;
    back = read_batch_results(dir, requests.size(), false);
    if (!back)
      back = BatchReadback{};
  } else if (!ran->succeeded()) {
    end = StepEnd::failed;
    back = infra_error("the step in job {} {}: {}", m_allocation->job_id,
                       describe_outcome(*ran, {}), last_line(ran->err));
  } else {
    back = read_batch_results(dir, requests.size(), true);
    if (back && !back->node)
      back = infra_error("the worker in job {} did not say where it ran", m_allocation->job_id);
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored); // everything needed is in `back` now
  return back;
}

Result<std::optional<BatchDevice>> SlurmExecutor::device() {
  std::string last_failure;
  for (int attempt = 0; !m_allocation && attempt < m_options.max_attempts; ++attempt) {
    bool retryable = false;
    auto allocated = allocate(retryable);
    if (allocated)
      break;
    if (!retryable)
      return std::unexpected(allocated.error());
    last_failure = allocated.error().message;
    ++m_retries;
  }
  if (!m_allocation)
    return infra_error("no usable Slurm allocation after {} attempts; the last: {}",
                       m_options.max_attempts, last_failure);
  return device_of(m_allocation->node, m_allocation->job_id);
}

Result<ExecResult> SlurmExecutor::run(const ExecRequest& request) {
  auto outcomes = run_batch(std::span(&request, 1));
  return std::move(outcomes.front());
}

std::vector<Result<ExecResult>> SlurmExecutor::run_batch(std::span<const ExecRequest> requests) {
  std::string last_failure;
  for (int attempt = 0; attempt < m_options.max_attempts; ++attempt) {
    if (attempt > 0)
      ++m_retries;
    if (auto where = device(); !where)
      return all_failed(requests.size(), where.error());
    StepEnd end = StepEnd::completed;
    auto back = run_step(requests, end);
    if (end == StepEnd::failed) {
      // The node, the allocation or the worker failed: try again on a new allocation.
      last_failure = back.error().message;
      release(fmt::format("failed: {}", last_failure));
      continue;
    }
    if (!back) {
      release("failed: " + back.error().message);
      return all_failed(requests.size(), back.error());
    }
    m_last_device = device_of(back->node ? *back->node : m_allocation->node, m_allocation->job_id);
    auto& job = m_jobs.back();
    ++job.batches;
    job.runs += static_cast<int>(back->results.size());
    std::vector<Result<ExecResult>> outcomes;
    outcomes.reserve(requests.size());
    for (auto& result : back->results) {
      result.result.started_micros = result.started_micros;
      outcomes.emplace_back(std::move(result.result));
    }
    if (!m_options.hold && end != StepEnd::interrupted)
      release();
    if (end == StepEnd::interrupted) {
      release("interrupted");
      const Error interrupted{ExitCode::interrupted,
                              "interrupted; everything measured so far is kept"};
      while (outcomes.size() < requests.size())
        outcomes.emplace_back(std::unexpected(interrupted));
    }
    return outcomes;
  }
  return all_failed(requests.size(),
                    Error{ExitCode::infrastructure,
                          fmt::format("a measurement batch failed on {} Slurm allocations; the "
                                      "last: {}",
                                      m_options.max_attempts, last_failure)});
}

} // namespace culprit::exec
