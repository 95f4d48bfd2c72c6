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
// - A subject's first new run in this process is preceded by its warm-up runs, recorded and
//   never counted.
// - Each run goes to the store as soon as it finishes (one transaction per run): an interrupt
//   loses at most the run in flight.
// - A run that fails (non-zero exit, signal, timeout, unreadable output) is recorded with its
//   status and does not count; a subject whose runs keep failing is an infrastructure error.
// - A time budget stops the loop between runs; ensure() then reports that it could not finish.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/exec/executor.hpp"
#include "core/host/gpu.hpp"
#include "core/measure/subject.hpp"
#include "core/parsers/output_format.hpp"
#include "core/recipe.hpp"
#include "core/store/store.hpp"

namespace culprit {

struct SamplerOptions {
  RunRecipe run;
  ParseOptions parse;      // parse_options_for(run)
  std::string recipe_hash; // run_recipe_hash(run)
  std::string host_id;     // recorded in the store before the first run
  int warmup = 1;
  std::optional<std::chrono::duration<double>> budget;
  std::uint64_t seed = 1;
  store::Freshness freshness; // what stored runs may be reused (--fresh)
  std::optional<std::string> session;
  std::filesystem::path scratch_dir; // working directory of the runs
  host::GpuProbe* gpu = nullptr;     // snapshots before and after each run, when there are GPUs
};

// What a driver learns after each run, for progress lines.
struct RunEvent {
  const Subject* subject = nullptr;
  bool warmup = false;
  store::RunStatus status = store::RunStatus::ok;
  std::string message;
  int runs_made = 0; // by this sampler so far, warm-ups included
};

struct Want {
  const Subject* subject = nullptr;
  std::size_t runs = 0; // counted runs it must have
};

class Sampler {
public:
  Sampler(Executor& executor, store::Store& store, SamplerOptions options);

  // Runs what is missing. Returns false when the budget ran out first. Errors: interrupted
  // (ExitCode::interrupted), a subject whose runs keep failing, the store failing.
  Result<bool> ensure(std::span<const Want> wants);

  // The first `first_n` counted runs of a case (all of them when 0), in run order.
  Result<store::CaseRuns> runs(const Subject& subject, const CaseKey& key, std::size_t first_n = 0);
  Result<std::vector<store::CaseMetric>> cases(const Subject& subject);
  Result<std::size_t> counted_runs(const Subject& subject);

  [[nodiscard]] int runs_made() const { return m_runs_made; }
  [[nodiscard]] bool budget_exhausted() const;
  [[nodiscard]] int throttled_runs() const { return m_throttled; }
  void on_run(std::function<void(const RunEvent&)> callback) { m_on_run = std::move(callback); }
  [[nodiscard]] const SamplerOptions& options() const { return m_options; }

private:
  [[nodiscard]] store::MeasurementKey key_of(const Subject& subject) const;
  Result<store::RunStatus> run_once(const Subject& subject, bool warmup);

  Executor& m_executor;
  store::Store& m_store;
  SamplerOptions m_options;
  std::chrono::steady_clock::time_point m_started;
  std::uint64_t m_rounds = 0;
  int m_runs_made = 0;
  int m_throttled = 0;
  std::map<std::string, bool> m_warmed; // artifact id -> warm-up done in this process
  std::string m_last_message;           // of the last run that failed
  std::function<void(const RunEvent&)> m_on_run;
};

} // namespace culprit
