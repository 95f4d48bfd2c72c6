#pragma once
// What the measuring commands share (MeasureContext), and where their runs go (Lanes).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/progress.hpp"
#include "cli/report_outputs.hpp"
#include "core/build/builder.hpp"
#include "core/build/provider.hpp"
#include "core/evidence/evidence.hpp"
#include "core/exec/local_executor.hpp"
#include "core/exec/slurm_executor.hpp"
#include "core/git/repository.hpp"
#include "core/measure/compare.hpp"
#include "core/measure/session.hpp"
#include "core/recipe/recipe.hpp"
#include "core/roofline/peaks.hpp"

namespace culprit::cli {

struct MeasureFlags {
  recipe::RecipeOverrides overrides;
  bool fresh = false;
  bool rebuild = false;
  ReportOutputs outputs; // --json, --markdown, --html, --junit
};

// Adds --fresh, --rebuild, the output flags and the recipe flags to a measuring command.
void add_measure_flags(CLI::App& sub, MeasureFlags& flags);

// Checks that every revision resolves to a commit: a typo costs no build, no run and no write.
Status check_revisions(const git::Repository& repo, const std::vector<std::string>& revisions);

// Where a command's runs go: one sampler per lane (--parallel K). With the Slurm executor a lane
// is an allocation of its own (and builds may have one more); with --parallel-runs a lane is a
// local executor whose batches run at once beside the others'; otherwise every lane is the
// session's one sampler, and the runs of a round go one after the other on this machine.
class Lanes {
public:
  // The executors of the recipe's [executor]; none is started until a batch needs it.
  static Result<Lanes> make(const recipe::Recipe& recipe, const std::filesystem::path& cache);

  // Where the first lane measures and where builds run: a Slurm allocation, or `local`.
  [[nodiscard]] exec::Executor& measure_on(exec::LocalExecutor& local) const;
  [[nodiscard]] exec::Executor& build_on(exec::LocalExecutor& local) const;
  // Makes the samplers of the lanes after the first (Slurm), or of every local lane, once the
  // session is open.
  void add_samplers(measure::MeasureSession& session, const recipe::Recipe& recipe);
  // K samplers, K = [executor] parallel.
  [[nodiscard]] std::vector<measure::Sampler*> samplers(measure::MeasureSession& session,
                                                        int parallel) const;
  // Destroys the samplers add_samplers made, before the session they came from.
  void drop_samplers() { m_samplers.clear(); }

  // Gives back every Slurm allocation held (scancel).
  void release();
  // Adds the Slurm jobs ("jobs") and how many batches were retried ("retries") to the evidence's
  // executor object (Evidence::executor).
  void describe_jobs(nlohmann::json& executor) const;

private:
  std::vector<std::unique_ptr<exec::SlurmExecutor>> m_slurm;
  std::unique_ptr<exec::SlurmExecutor> m_slurm_builds;           // [executor] build_on = "slurm"
  std::vector<std::unique_ptr<exec::LocalLaneExecutor>> m_local; // --parallel-runs
  // Their samplers (Slurm: after the first).
  std::vector<std::unique_ptr<measure::Sampler>> m_samplers;
};

// What run, compare, bisect, track and triage share: the repository, the recipe, the cache and
// the store, the builder, the measurement session and its lanes. A command opens it, checks what
// it was given against repo() (nothing is written before that), then starts it.
class MeasureContext {
public:
  // Checks that the outputs can be written, opens the repository and loads the recipe.
  static Result<std::unique_ptr<MeasureContext>> open(const GlobalOptions& global,
                                                      const MeasureFlags& flags);
  // open, check_revisions, then start with no label of its own: what run and compare do.
  static Result<std::unique_ptr<MeasureContext>>
  open_started(const GlobalOptions& global, const MeasureFlags& flags,
               const std::vector<std::string>& revisions);
  ~MeasureContext();
  MeasureContext(const MeasureContext&) = delete;
  MeasureContext& operator=(const MeasureContext&) = delete;
  MeasureContext(MeasureContext&&) = delete;
  MeasureContext& operator=(MeasureContext&&) = delete;
  // Starts measuring: the store, the executors and lanes, the builder and the session. The runs
  // this command makes carry `runs_label` and are the only ones it counts
  // (SessionOptions::runs_label); without it every stored run counts, unless --fresh.
  Status start(std::optional<std::string> runs_label = std::nullopt);

  // Resolves and builds `revision`; a failed build is an infrastructure error that says where
  // the log is.
  Result<measure::Subject> build_subject(const std::string& revision);
  [[nodiscard]] measure::CompareSettings compare_settings() const;

  // The samplers of the lanes a driver may measure on at once (Lanes::samplers).
  [[nodiscard]] std::vector<measure::Sampler*> lanes() const;

  // What drivers build through: with --parallel K and local builds, a pool that builds a round's
  // commits in up to three slots at once; otherwise the builder, one commit at a time.
  [[nodiscard]] std::unique_ptr<build::BuildProvider> build_provider();
  // For the evidence: where builds and runs happened (Evidence::executor); the summary names the
  // Slurm allocations from it (report::render_executor_line).
  [[nodiscard]] nlohmann::json executor_json() const;
  // Gives back every Slurm allocation held (scancel): measuring is over.
  void release_allocations();
  // Where each measurement of the evidence stands against its roofline
  // (core/evidence/roofline_fill.hpp); the CPU's peaks are measured at most once, and only when
  // a case has work.
  Status fill_roofline(evidence::Evidence& evidence);

  // Called from each command's run callback: once per command, when one run of a suite that no
  // case filter narrows takes longer than k_slow_suite_seconds, a note that says how to measure
  // fewer cases (unless quiet).
  void observe_run(const measure::RunEvent& event, ProgressLine& progress);
  static constexpr double k_slow_suite_seconds = 5.0;

  [[nodiscard]] const git::Repository& repo() const { return m_repo; }
  [[nodiscard]] const recipe::Recipe& recipe() const { return m_recipe; }
  [[nodiscard]] const std::filesystem::path& cache() const { return m_store.cache_dir; }
  // Where the results live: the cache's files or a shared server.
  [[nodiscard]] const store::Location& store() const { return m_store; }
  // Builds (unless built on Slurm), culprit's own commands (nm), local runs.
  [[nodiscard]] exec::LocalExecutor& executor() { return m_executor; }
  [[nodiscard]] build::Builder& builder() { return *m_builder; }
  [[nodiscard]] const build::BuildOptions& build_options() const { return m_build_options; }
  [[nodiscard]] measure::MeasureSession& session() { return *m_session; }
  [[nodiscard]] const measure::MeasureSession& session() const { return *m_session; }
  // What build_subject built, in order.
  [[nodiscard]] const std::vector<build::BuildResult>& builds() const { return m_builds; }

private:
  MeasureContext(git::Repository repo, const MeasureFlags& flags, bool quiet);

  GlobalOptions m_global; // --repo, --config, --cache-dir and --store, for start()
  git::Repository m_repo;
  recipe::Recipe m_recipe;
  bool m_fresh = false;
  bool m_quiet = false;
  store::Location m_store;
  exec::LocalExecutor m_executor;
  Lanes m_lanes;
  std::unique_ptr<build::Builder> m_builder;
  build::BuildOptions m_build_options;
  std::unique_ptr<measure::MeasureSession> m_session;
  std::vector<build::BuildResult> m_builds;
  bool m_slow_suite_said = false;
  std::unique_ptr<roofline::PeakResolver> m_peaks;
};

// Prints the host's noise warnings (unless quiet): once an hour per cache while they stay the
// same, every time with -v.
void print_host_warnings(const MeasureContext& ctx, Verbosity verbosity);
// Adds to the evidence's warnings what the benchmark's output said beside its samples (skipped
// cases, GPU samples dropped while the clock was throttled: each sampler's output_warnings, each
// line once), and prints each on stderr unless quiet. Call it once the runs are made.
void add_output_warnings(MeasureContext& ctx, evidence::Evidence& evidence, Verbosity verbosity);

} // namespace culprit::cli
