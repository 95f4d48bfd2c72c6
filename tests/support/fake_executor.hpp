#pragma once
// An Executor for tests of what sits above it (the measurement loop, compare, bisect): it runs
// nothing, and answers each request with culprit JSON lines drawn from the distributions that a
// table assigns to the commit in the request's CULPRIT_COMMIT variable. Exact, fast and free of
// timing noise, so that tests of statistical drivers can plant a regression of a known size.
//
// Each sample of a case is lognormal around its median: value = median * exp(run_sigma * Z_run +
// sigma * Z), with Z_run drawn once per run (the process-to-process noise that makes the run the
// unit of replication) and Z per sample; with probability outlier_rate a sample is multiplied by
// outlier_factor. The output of the k-th run of a commit depends only on the seed, the commit and
// k, not on what else ran in between, so interleaving orders do not change the numbers.
// CULPRIT_FAKE_SCALE in the request's environment multiplies every level: a device that runs
// everything a fixed fraction faster or slower than another.
//
// A machine model (set_machine) adds the noise of a shared machine: the whole guest flips between
// a fast state and one slow_min to slow_max times slower, in stretches of exponentially
// distributed length in simulated time, and the fast level may drift. The state belongs to the
// machine: samples taken at the same simulated time see the same state. Each sample of a time
// takes its own value in simulated time; runs one after the other follow each other in time (with
// run_overhead between them), while run_together starts its runs at the same instant (a duet).
// The numbers then depend on what ran before, but still only on the seed and the requests.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/exec/executor.hpp"
#include "core/parsers/metric.hpp"

namespace culprit {

struct FakeCase {
  std::string name;
  std::string metric = "time";
  std::string unit = "s";
  parsers::Direction direction = parsers::Direction::lower_is_better;
  double median = 1e-3;      // > 0, in `unit`
  double sigma = 0.01;       // >= 0: spread of log(sample) within a run
  double run_sigma = 0;      // >= 0: spread of log(level) between runs
  double outlier_rate = 0;   // in [0, 1]
  double outlier_factor = 3; // > 0
};

enum class FakeBehaviour {
  measure,  // exit 0 with samples
  fail,     // exit status 1, a message on stderr, no samples
  crash,    // killed by SIGSEGV
  time_out, // timed out (killed by SIGKILL after request.timeout)
};

struct FakeCommit {
  std::vector<FakeCase> cases;
  int samples_per_run = 5; // >= 1
  FakeBehaviour behaviour = FakeBehaviour::measure;
};

struct FakeMachine {
  double slow_share = 0.0;            // share of the time in the slow state; 0: a quiet machine
  double mean_slow_seconds = 4e-3;    // mean length of a stretch in the slow state
  double slow_min = 1.5;              // each slow stretch slows everything by a factor drawn
  double slow_max = 2.0;              // uniformly from [slow_min, slow_max]
  double run_overhead_seconds = 5e-3; // simulated time from one run to the next
  double drift_per_second = 0.0;      // relative drift of every level per simulated second
};

class FakeExecutor final : public exec::Executor {
public:
  explicit FakeExecutor(std::uint64_t seed = 1);

  // The model for every commit whose id starts with `commit` (a full id or a prefix of one; the
  // longest matching prefix wins). Throws std::invalid_argument for a model that cannot be drawn
  // from (a test's mistake, not a runtime condition).
  void set_commit(const std::string& commit, FakeCommit model);
  // The model for commits that have none of their own; without it, running one is an error.
  void set_default(FakeCommit model);

  // The machine runs share; throws std::invalid_argument for one that cannot be simulated.
  void set_machine(const FakeMachine& machine);

  // Errors: no CULPRIT_COMMIT in request.env, no model for the commit (ExitCode::usage), or
  // interrupt_requested() (ExitCode::interrupted; the run is not counted).
  Result<exec::ExecResult> run(const exec::ExecRequest& request) override;
  // The runs start at the same simulated instant and see the same machine states.
  std::vector<Result<exec::ExecResult>>
  run_together(std::span<const exec::ExecRequest> requests) override;
  [[nodiscard]] std::string_view name() const override { return "fake"; }

  // Runs so far of commits whose id starts with `commit`.
  [[nodiscard]] int run_count(std::string_view commit) const;
  [[nodiscard]] int total_runs() const;
  // The CULPRIT_COMMIT of every run, in the order they ran.
  [[nodiscard]] std::vector<std::string> run_order() const;

  // How many duets (run_together calls) ran.
  [[nodiscard]] int duets() const;

private:
  [[nodiscard]] const FakeCommit* model_for(const std::string& commit) const;
  // One run starting at simulated time `clock`, which it advances; m_mutex is held.
  Result<exec::ExecResult> run_locked(const exec::ExecRequest& request, double& clock);
  // The factor by which the machine slows a sample that starts at simulated time t.
  double machine_factor(double t);

  std::uint64_t m_seed;
  std::map<std::string, FakeCommit> m_models;
  std::optional<FakeCommit> m_default;
  mutable std::mutex m_mutex;
  std::map<std::string, int> m_runs;
  std::vector<std::string> m_order;
  std::optional<FakeMachine> m_machine;
  double m_clock = 0.0; // simulated seconds
  // The machine's states: stretch i starts at m_switches[i] and slows samples by m_factors[i].
  std::vector<double> m_switches;
  std::vector<double> m_factors;
  std::uint64_t m_machine_state = 0; // of the generator that draws the stretches
  int m_duets = 0;
};

} // namespace culprit
