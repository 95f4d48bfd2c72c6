#include "core/measure/session.hpp"

#include <unistd.h>

#include "core/host/json.hpp"
#include "core/host/noise.hpp"
#include "core/measure/instrument.hpp"
#include "core/measure/parse_options.hpp"
#include "core/util/fs.hpp"
#include "core/util/json_text.hpp"

namespace culprit::measure {

Result<std::unique_ptr<MeasureSession>> MeasureSession::open(exec::Executor& executor,
                                                             const recipe::Recipe& recipe,
                                                             const SessionOptions& options) {
  // A recipe whose output options are wrong is refused before the store is touched.
  CULPRIT_TRY_ASSIGN(auto parse, parse_options_for(recipe.run));
  std::unique_ptr<MeasureSession> session(new MeasureSession());
  CULPRIT_TRY_ASSIGN(auto store, store::Store::open_at(
                                     {.cache_dir = options.repo_cache, .url = options.store_url}));
  session->m_store = std::make_unique<store::Store>(std::move(store));

  host::HostProbeOptions probe;
  probe.query_gpus = options.probe_gpus;
  session->m_host = host::probe_host(probe);
  // Once per command, and once per report, in one short line; the evidence's host object keeps
  // each warning whole, with what to do.
  const auto warnings = host::noise_warnings(session->m_host);
  if (auto summary = host::noise_summary(warnings); !summary.empty())
    session->m_warnings.push_back(std::move(summary));
  session->m_host_json = host::render_json(session->m_host, warnings);
  const auto now = store::now();
  const std::string host_id = host::host_id(session->m_host);
  CULPRIT_TRY(session->m_store->record_host(
      {host_id, json_text(host::to_json(session->m_host)), now, now}));
  if (session->m_host.gpu.available)
    session->m_gpu = std::make_unique<host::GpuProbe>();

  CULPRIT_TRY_ASSIGN(auto scratch, ScratchDir::open(options.repo_cache / "scratch"));
  session->m_scratch = scratch.path();
  session->m_scratch_dir = std::make_unique<ScratchDir>(std::move(scratch));

  SamplerOptions sampler;
  sampler.run = recipe.run;
  sampler.parse = std::move(parse);
  sampler.parse.nvbench.base_dir = session->m_scratch;
  sampler.recipe_hash = run_recipe_hash(recipe.run);
  // A benchmark that runs git never looks above the cache for the user's repository (the cache
  // may live inside the user's working tree); not part of the hash: it changes no result.
  sampler.run.env.try_emplace("GIT_CEILING_DIRECTORIES", options.repo_cache.string());
  sampler.host_id = host_id;
  // Counts on a simulated CPU start cold every time: a warm-up run would only cost time.
  sampler.warmup = recipe.run.instrument == recipe::Instrument::valgrind ? 0 : recipe.decide.warmup;
  if (recipe.run.instrument == recipe::Instrument::valgrind) {
    CULPRIT_TRY_ASSIGN(sampler.instrument_program, find_valgrind());
  }
  if (recipe.run.instrument == recipe::Instrument::perf) {
    CULPRIT_TRY_ASSIGN(sampler.instrument_program, find_perf());
  }
  if (recipe.run.instrument == recipe::Instrument::ncu) {
    CULPRIT_TRY_ASSIGN(sampler.instrument_program, find_ncu(session->m_host.gpu.available));
  }
  sampler.budget = recipe.decide.budget;
  sampler.seed = recipe.decide.seed;
  sampler.scratch_dir = session->m_scratch;
  sampler.gpu = session->m_gpu.get();
  // A label already says which runs count: those of this invocation (--fresh), or of a track
  // session, which an interrupted track resumes. A time filter as well would drop the runs the
  // interrupted part of that session made, and measure them again.
  if (options.fresh && !options.runs_label)
    sampler.freshness.started_after = now;
  sampler.session = options.runs_label;
  sampler.freshness.session = options.runs_label;
  if (recipe.run.duet != recipe::DuetMode::off && recipe.run.instrument == recipe::Instrument::time)
    sampler.duet_cpus = options.duet_cpus;
  if (recipe.run.instrument != recipe::Instrument::time) {
    // The same runs timed: what confirms in time the changes that counts found.
    auto timed = sampler;
    timed.run = timed_run(sampler.run);
    timed.recipe_hash = run_recipe_hash(timed_run(recipe.run));
    timed.warmup = recipe.decide.warmup;
    timed.instrument_program.clear();
    if (recipe.run.duet != recipe::DuetMode::off)
      timed.duet_cpus = options.duet_cpus;
    session->m_time_sampler =
        std::make_unique<Sampler>(executor, *session->m_store, std::move(timed));
  }
  if (recipe.run.instrument == recipe::Instrument::time &&
      recipe.executor.kind == recipe::ExecutorKind::local) {
    // Valgrind installed: the same runs counted, for the counter diff of a culprit.
    if (auto valgrind = find_valgrind()) {
      auto counted = sampler;
      counted.run = counted_run(sampler.run);
      counted.recipe_hash = run_recipe_hash(counted_run(recipe.run));
      counted.warmup = 0;
      counted.instrument_program = std::move(*valgrind);
      counted.duet_cpus = options.duet_cpus; // the culprit and its parent counted at once
      session->m_counter_sampler =
          std::make_unique<Sampler>(executor, *session->m_store, std::move(counted));
    }
  }
  session->m_sampler = std::make_unique<Sampler>(executor, *session->m_store, std::move(sampler));
  return session;
}

recipe::RunRecipe timed_run(recipe::RunRecipe run) {
  run.instrument = recipe::Instrument::time;
  if (is_count_metric(run.metric))
    run.metric.clear(); // the format's own time
  return run;
}

recipe::RunRecipe counted_run(recipe::RunRecipe run) {
  run.instrument = recipe::Instrument::valgrind;
  run.metric = "instructions";
  run.duet = recipe::DuetMode::off;
  return run;
}

Sampler* MeasureSession::counter_sampler() {
  if (m_sampler->options().run.instrument == recipe::Instrument::valgrind)
    return m_sampler.get();
  return m_counter_sampler.get();
}

std::unique_ptr<Sampler> MeasureSession::make_sampler(exec::Executor& executor) const {
  auto options = m_sampler->options();
  options.gpu = nullptr; // the lane's GPUs are on its node, not here
  return std::make_unique<Sampler>(executor, *m_store, std::move(options));
}

MeasureSession::~MeasureSession() = default; // the scratch directory removes itself

} // namespace culprit::measure
