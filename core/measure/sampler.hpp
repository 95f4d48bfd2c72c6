#pragma once
// The measurement loop's hands: it runs subjects (builds) until each has the number of counted
// runs that a driver asks for, and reads their samples back.
//
// - Runs that the store already holds for the same artifact, run recipe and host count: asking
//   again costs nothing (unless the freshness filter, --fresh, excludes them).
// - Missing runs of several subjects are interleaved in a randomized balanced order: round after
//   round, every subject that still needs runs gets one, in a fresh random order each round
//   (ABBA...), so that drift hits every side alike. The order depends only on the seed and on how
//   many rounds came before, so a replay is the same.
// - Each round is a block: its runs are recorded with the block's id, so that comparisons can pair
//   them (stats/paired.hpp). Drivers that compare subjects ask for blocks of a group
//   (ensure_blocks): a block counts when it holds a counted run of every subject of the group, and
//   stored runs count only in such blocks, so reused runs never break the pairing.
// - Duets: a block of two subjects can run both at once, each pinned to CPUs of its own (the
//   options' duet_cpus, swapped from one block to the next so that a difference between the CPUs
//   cancels), so that both see the same interference.
// - A subject's first new run in this process is preceded by its warm-up runs, recorded and
//   never counted.
// - Each run goes to the store as soon as it finishes (one transaction per run): an interrupt
//   loses at most the run in flight.
// - A run that fails (non-zero exit, signal, timeout, unreadable output) is recorded with its
//   status and does not count; a subject whose runs keep failing is an infrastructure error.
// - A time budget stops the loop between runs; ensure() then reports that it could not finish.
// - With an executor that ships batches (a Slurm allocation), the missing runs are planned as one
//   batch in the same interleaved order, every subject's warm-up runs at the start of each batch
//   (a batch is a fresh process on a node that may have idled), and the batch is imported into the
//   store in one transaction once it is back. Runs are keyed by the device that made them (the
//   node's host id, GPUs included), so the runs a driver compares all come from one device.

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "core/exec/executor.hpp"
#include "core/host/gpu.hpp"
#include "core/measure/subject.hpp"
#include "core/parsers/output_format.hpp"
#include "core/recipe/recipe.hpp"
#include "core/store/store.hpp"
#include "core/util/error.hpp"
#include "core/util/tree_state.hpp"
#include "stats/types.hpp"

namespace culprit::measure {

// A subject whose runs fail this many times in a row is given up on.
inline constexpr int k_max_failures_in_a_row = 5;

struct SamplerOptions {
  recipe::RunRecipe run;
  parsers::ParseOptions parse; // parse_options_for(run)
  std::string recipe_hash;     // run_recipe_hash(run)
  std::string host_id;         // recorded in the store before the first run
  int warmup = 1;
  std::optional<std::chrono::duration<double>> budget;
  std::uint64_t seed = 1;
  store::Freshness freshness; // what stored runs may be reused (--fresh)
  std::optional<std::string> session;
  std::filesystem::path scratch_dir;        // working directory of the runs
  std::filesystem::path instrument_program; // valgrind or perf, under that instrument
  host::GpuProbe* gpu = nullptr; // snapshots before and after each run, when there are GPUs
  // The two CPU sets of a duet; both empty when duets cannot run here.
  std::array<std::vector<int>, 2> duet_cpus;
};

// What a driver learns after each run, for progress lines.
struct RunEvent {
  const Subject* subject = nullptr;
  bool warmup = false;
  store::RunStatus status = store::RunStatus::ok;
  std::string message;
  int runs_made = 0;       // by this sampler so far, warm-ups included
  double wall_seconds = 0; // of this run
};

struct RunsWanted {
  const Subject* subject = nullptr;
  std::size_t runs = 0; // counted runs it must have
};

// Blocks of a group of subjects: each block holds one counted run of every subject of the group,
// made in one round. The subjects must have distinct artifacts.
struct BlocksWanted {
  std::vector<const Subject*> group;
  std::size_t blocks = 0; // complete blocks the group must have
  bool duet = false;      // run each block's two runs at once (a group of two, duet_cpus set)
};

// The runs of one case in complete blocks of a group, aligned: runs[s][i] are the samples of the
// run of group[s] in block i. Blocks in the order they were made.
struct BlockRuns {
  std::vector<std::string> blocks;
  std::vector<bool> duets; // whether block i ran as a duet
  std::vector<stats::Runs> runs;
};

// A batch planned for an executor that ships batches: the requests and what each one is.
struct BatchPlan {
  std::vector<exec::ExecRequest> requests;
  std::vector<const Subject*> subjects;           // one per request
  std::vector<bool> warmups;                      // one per request
  std::vector<std::optional<std::string>> blocks; // one per request; none for warm-ups
};

class Sampler {
public:
  Sampler(exec::Executor& executor, store::Store& store, SamplerOptions options);

  // Runs what is missing. Returns false when the budget ran out first. Errors: interrupted
  // (ExitCode::interrupted), a subject whose runs keep failing, the store failing.
  Result<bool> ensure(std::span<const RunsWanted> wants);
  // Makes blocks until the group has want.blocks complete ones; the same return and errors.
  Result<bool> ensure_blocks(const BlocksWanted& want);
  // How many complete blocks the group has (stored runs under the freshness filter included).
  Result<std::size_t> complete_blocks(std::span<const Subject* const> group);
  // The runs of a case in the group's first `first_n` complete blocks (all when 0) in which every
  // run reported the case.
  Result<BlockRuns> block_runs(std::span<const Subject* const> group, const CaseKey& key,
                               std::size_t first_n = 0);
  // Whether blocks of two can run as duets here.
  [[nodiscard]] bool can_duet() const;
  // Whether this sampler made the block (else an earlier command did, and it is reused).
  [[nodiscard]] bool made_block(std::string_view block) const {
    return block.size() > m_block_prefix.size() && block.starts_with(m_block_prefix) &&
           block[m_block_prefix.size()] == '-';
  }

  // The first `first_n` counted runs of a case (all of them when 0), in run order.
  Result<store::CaseRuns> runs(const Subject& subject, const CaseKey& key, std::size_t first_n = 0);
  Result<std::vector<store::CaseMetric>> cases(const Subject& subject);
  Result<std::size_t> counted_runs(const Subject& subject);

  [[nodiscard]] int runs_made() const { return m_runs_made; }
  [[nodiscard]] bool budget_exhausted() const;
  [[nodiscard]] int throttled_runs() const { return m_throttled; }
  void on_run(std::function<void(const RunEvent&)> callback) { m_on_run = std::move(callback); }
  // What the benchmark's output said beside its samples (skipped cases, GPU samples dropped while
  // the clock was throttled, ...), each distinct line once, in the order first seen; at most
  // k_max_output_warnings, then one line that counts the rest.
  [[nodiscard]] std::vector<std::string> output_warnings() const;
  static constexpr std::size_t k_max_output_warnings = 20;
  [[nodiscard]] const SamplerOptions& options() const { return m_options; }
  [[nodiscard]] exec::Executor& executor() { return m_executor; }

  // The batch steps of ensure(), for drivers that run several samplers' batches at once
  // (ensure_lanes). plan_batch first moves the sampler to the executor's device (which may ask for
  // an allocation); it returns nullopt when every want is met.
  Result<std::optional<BatchPlan>> plan_batch(std::span<const RunsWanted> wants);
  Result<std::optional<BatchPlan>> plan_batch(const BlocksWanted& want);
  // Imports the outcomes of a planned batch in one transaction. Errors: interrupted (after the
  // finished runs are stored), a batch that could not run, a subject whose runs keep failing.
  Status import_batch(const BatchPlan& plan, std::vector<Result<exec::ExecResult>> outcomes);

private:
  // One round: a run of each subject (warm-ups first where due), all under one new block id.
  // nullopt when the budget ran out before the round was done; else each subject's status.
  Result<std::optional<std::vector<store::RunStatus>>>
  run_round(const std::vector<const Subject*>& subjects, bool duet);
  Result<bool> ensure_batched(std::span<const RunsWanted> wants);
  Result<bool> ensure_blocks_batched(const BlocksWanted& want);
  Result<std::optional<BatchPlan>>
  plan_rounds(const std::vector<std::vector<const Subject*>>& rounds);
  [[nodiscard]] std::vector<const Subject*> shuffled(std::vector<const Subject*> subjects);
  [[nodiscard]] std::string next_block_id();
  Status use_device(const exec::BatchDevice& device);
  [[nodiscard]] Result<exec::ExecRequest> request_for(const Subject& subject) const;
  [[nodiscard]] store::RunRecord record_for(const Subject& subject, bool warmup) const;
  // Fills the record of a run from what it did, and keeps what its output said beside the samples
  // (output_warnings). Returns the error when the output shows that the run command itself is
  // wrong (another tool's console text where its JSON was wanted): no further run can succeed,
  // so the caller stops at once after storing the record.
  [[nodiscard]] std::optional<Error> fill_record(store::RunRecord& record,
                                                 const exec::ExecRequest& request,
                                                 const exec::ExecResult& ran);
  [[nodiscard]] store::MeasurementKey key_of(const Subject& subject) const;
  Result<store::RunStatus> run_once(const Subject& subject, bool warmup,
                                    const std::optional<std::string>& block = std::nullopt);
  Result<std::vector<store::RunStatus>> run_duet(const Subject& first, const Subject& second,
                                                 const std::string& block);
  // Stores the outcome of a run; an executor error is returned after the record of an
  // interrupted run is kept.
  Result<store::RunStatus> record_outcome(const Subject& subject, store::RunRecord record,
                                          const exec::ExecRequest& request,
                                          const Result<exec::ExecResult>& ran,
                                          const std::optional<host::GpuSnapshot>& before);
  // Counts a counted run's status against the subject's failures in a row.
  Status count_failure(const Subject& subject, store::RunStatus status);
  // The state of a subject's artifacts when this sampler first ran them (nullopt: none on this
  // machine, as with a fake build); and an infrastructure error when a run changed them since.
  std::optional<TreeState> artifact_state(const Subject& subject);
  Status check_artifacts(const Subject& subject, const std::optional<TreeState>& before);

  exec::Executor& m_executor;
  store::Store& m_store;
  SamplerOptions m_options;
  std::chrono::steady_clock::time_point m_started;
  std::uint64_t m_rounds = 0;
  std::string m_block_prefix; // unique to this sampler
  std::uint64_t m_blocks = 0;
  int m_runs_made = 0;
  int m_throttled = 0;
  std::map<std::string, bool> m_warmed;           // artifact id -> warm-up done in this process
  std::string m_last_message;                     // of the last run that failed
  std::map<std::string, int> m_failures_in_a_row; // artifact id -> failed runs since the last ok
  std::set<std::string> m_recorded_hosts;         // devices recorded in the store
  std::map<std::string, TreeState> m_artifact_states; // artifact dir -> as first run
  std::function<void(const RunEvent&)> m_on_run;
  std::vector<std::string> m_output_warnings;
  std::size_t m_output_warnings_left_out = 0;
};

// Wants of several samplers (one per lane of a cluster), met together: in each round every lane
// with something missing ships one batch, lanes on executors that ship batches at the same time
// (one thread each, waiting on its executor; the store is only touched from the calling thread).
// Returns false when a budget ran out.
struct LaneWants {
  Sampler* sampler = nullptr;
  std::vector<RunsWanted> wants;
  std::optional<BlocksWanted> blocks; // instead of wants: blocks of a group
};
Result<bool> ensure_lanes(std::span<LaneWants> lanes);

} // namespace culprit::measure
