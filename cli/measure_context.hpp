#pragma once
// What run, compare and bisect share: the repository, the recipe, the cache, a builder, and a
// measurement session over the local executor.

#include <functional>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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
  RecipeOverrides overrides;
  bool fresh = false;
  bool rebuild = false;
  ReportOutputs outputs; // --json, --markdown, --html, --junit
};

// Adds --fresh, --rebuild, the output flags and the recipe flags to a measuring command.
void add_measure_flags(CLI::App& sub, MeasureFlags& flags);

// Checks what a command was given (its revisions) against the repository before the cache is
// written: a typo costs no build, no run and no write.
using InputCheck = std::function<Status(const git::Repository&)>;

// An InputCheck that every revision resolves to a commit.
InputCheck revisions_resolve(std::vector<std::string> revisions);

class MeasureContext {
public:
  // `runs_label`, asked after `check` passed, names the runs this command makes and is the only
  // ones it counts (SessionOptions::runs_label); without it every stored run counts.
  static Result<std::unique_ptr<MeasureContext>>
  open(const GlobalOptions& global, const MeasureFlags& flags, const InputCheck& check,
       const std::function<std::optional<std::string>()>& runs_label = {});

  // Resolves and builds `revision`; a failed build is an infrastructure error that says where
  // the log is.
  Result<Subject> build_subject(const std::string& revision);
  [[nodiscard]] CompareSettings compare_settings() const;

  // Samplers of the lanes a driver may measure on at once (--parallel K): with Slurm, one per
  // allocation; locally the session's sampler K times (runs stay serial on one machine).
  [[nodiscard]] std::vector<Sampler*> lanes();

  // What drivers build through: with --parallel K and local builds, a pool that builds a round's
  // commits in up to three slots at once; otherwise the builder, one commit at a time.
  [[nodiscard]] std::unique_ptr<BuildProvider> build_provider();
  // For the evidence: where builds and runs happened (Evidence::executor).
  [[nodiscard]] nlohmann::json executor_json() const;
  // Gives back every Slurm allocation held (scancel): measuring is over.
  void release_allocations();
  // One line for people when runs happened elsewhere ("measured on 2 Slurm allocations: job 41
  // on gpu07, ..."); empty for the local executor.
  [[nodiscard]] std::string executor_summary() const;
  // Where each measurement of the evidence stands against its roofline (core/measure/
  // roofline_fill.hpp); the CPU's peaks are measured at most once, and only when a case has work.
  Status fill_roofline(Evidence& evidence);

  git::Repository repo;
  Recipe recipe;
  std::filesystem::path cache;
  store::Location store;  // where the results live: the cache's files or a shared server
  LocalExecutor executor; // builds (unless built on Slurm), culprit's own commands, local runs
  std::vector<std::unique_ptr<SlurmExecutor>> slurm_lanes;
  std::unique_ptr<SlurmExecutor> slurm_builds; // [executor] build_on = "slurm"
  std::unique_ptr<Builder> builder;
  std::unique_ptr<MeasureSession> session;
  std::vector<std::unique_ptr<LocalLaneExecutor>> local_lanes; // --parallel-runs
  std::vector<std::unique_ptr<Sampler>> lane_samplers;         // lanes after the first
  BuildOptions build_options;
  std::vector<BuildResult> builds;

  // Called from each command's run callback: once per command, when one run of a suite that no
  // case filter narrows takes longer than k_slow_suite_seconds, a note that says how to measure
  // fewer cases (unless quiet).
  void observe_run(const RunEvent& event, ProgressLine& progress);
  static constexpr double k_slow_suite_seconds = 5.0;

private:
  explicit MeasureContext(git::Repository r) : repo(std::move(r)) {}
  bool m_quiet = false;
  bool m_slow_suite_said = false;
  std::unique_ptr<PeakResolver> m_peaks;
};

// Prints the host's noise warnings (unless quiet): once an hour per cache while they stay the
// same, every time with -v.
void print_host_warnings(const MeasureContext& ctx, int verbosity);
// Adds to the evidence's warnings what the benchmark's output said beside its samples (skipped
// cases, GPU samples dropped while the clock was throttled: each sampler's output_warnings, each
// line once), and prints each on stderr unless quiet. Call it once the runs are made.
void add_output_warnings(MeasureContext& ctx, Evidence& evidence, int verbosity);

} // namespace culprit::cli
