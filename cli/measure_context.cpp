#include "cli/measure_context.hpp"

#include <fmt/ranges.h>
#include <unistd.h>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "cli/recipe_flags.hpp"
#include "core/build/pool.hpp"
#include "core/evidence/roofline_fill.hpp"
#include "core/host/cpus.hpp"
#include "core/util/fs.hpp"
#include "core/util/interrupt.hpp"

#include <utility>

namespace culprit::cli {
namespace {

// How long the same warning about the same host stays said.
constexpr auto k_host_warning_every = std::chrono::hours(1);

} // namespace

void add_measure_flags(CLI::App& sub, MeasureFlags& flags) {
  add_recipe_flags(sub, flags.overrides, FlagSet::measure);
  sub.add_flag("--fresh", flags.fresh, "measure anew: only the runs of this invocation count");
  sub.add_flag("--rebuild", flags.rebuild, "build again even when a build is cached or failed");
  add_report_output_flags(sub, flags.outputs);
}

Result<SlurmOptions> slurm_options(const Recipe& recipe, const std::filesystem::path& cache) {
  SlurmOptions options;
  options.alloc_args = recipe.executor.sbatch_args;
  options.srun_args = recipe.executor.srun_args;
  options.max_attempts = recipe.executor.max_attempts;
  options.queue_timeout = recipe.executor.queue_timeout;
  std::error_code error;
  options.worker = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error)
    return infra_error("cannot tell where culprit itself is ({}); the Slurm executor runs it on "
                       "the nodes",
                       error.message());
  options.batch_root = cache / "batches";
  CULPRIT_TRY(ensure_writable_dir(options.batch_root, "cache directory"));
  return options;
}

InputCheck revisions_resolve(std::vector<std::string> revisions) {
  return [revisions = std::move(revisions)](const git::Repository& repo) -> Status {
    for (const auto& revision : revisions)
      CULPRIT_TRY(repo.resolve(revision));
    return {};
  };
}

Result<std::unique_ptr<MeasureContext>>
MeasureContext::open(const GlobalOptions& global, const MeasureFlags& flags,
                     const InputCheck& check,
                     const std::function<std::optional<std::string>()>& runs_label) {
  install_interrupt_handlers();
  // Outputs that cannot be written are found before anything is measured.
  CULPRIT_TRY(flags.outputs.check());
  CULPRIT_TRY_ASSIGN(auto repo, open_repository(global));
  std::unique_ptr<MeasureContext> context(new MeasureContext(std::move(repo)));
  context->m_quiet = global.verbosity < 0;
  CULPRIT_TRY_ASSIGN(context->recipe,
                     load_recipe(global, context->repo, flags.overrides, RecipeUse::build_and_run));
  CULPRIT_TRY(check(context->repo));
  // Duets need two CPUs: found out before anything is written.
  std::array<std::vector<int>, 2> duet_cpus;
  if (context->recipe.run.duet != DuetMode::off && context->recipe.executor.kind == "local" &&
      !context->recipe.executor.parallel_runs) {
    auto cpus = host::duet_cpus(context->recipe.run.cpus, host::allowed_cpus());
    if (cpus)
      duet_cpus = std::move(*cpus);
    else if (context->recipe.run.duet == DuetMode::on)
      return std::unexpected(cpus.error());
  }
  CULPRIT_TRY_ASSIGN(context->store, store_location(global, context->repo));
  context->cache = context->store.cache_dir;
  const auto& where = context->recipe.executor;
  Executor* measure_on = &context->executor;
  Executor* build_on = &context->executor;
  if (where.kind == "slurm") {
    CULPRIT_TRY_ASSIGN(const auto options, slurm_options(context->recipe, context->cache));
    for (int lane = 0; lane < where.parallel; ++lane)
      context->slurm_lanes.push_back(
          std::make_unique<SlurmExecutor>(options, fmt::format("lane{}", lane)));
    measure_on = context->slurm_lanes.front().get();
    if (where.build_on == "slurm") {
      auto build_options = options;
      build_options.hold = false;
      context->slurm_builds = std::make_unique<SlurmExecutor>(build_options, "build");
      build_on = context->slurm_builds.get();
    }
  }
  context->builder =
      std::make_unique<Builder>(context->repo, context->recipe.build, context->cache, *build_on);
  context->build_options.rebuild = flags.rebuild;
  context->build_options.on_message = [](std::string_view message) { print_warning(message); };
  auto label = runs_label ? runs_label() : std::nullopt;
  // --fresh means the runs of this invocation alone: a time filter would also take the runs of
  // another command that started a moment later on the same cache, a label of its own does not.
  if (flags.fresh && !label)
    label = fmt::format("fresh:{}.{}", store::to_micros(store::now()), ::getpid());
  CULPRIT_TRY_ASSIGN(context->session, MeasureSession::open(*measure_on, context->recipe,
                                                            {.repo_cache = context->cache,
                                                             .store_url = context->store.url,
                                                             .fresh = flags.fresh,
                                                             .runs_label = std::move(label),
                                                             .probe_gpus = true,
                                                             .duet_cpus = std::move(duet_cpus)}));
  for (std::size_t lane = 1; lane < context->slurm_lanes.size(); ++lane)
    context->lane_samplers.push_back(context->session->make_sampler(*context->slurm_lanes[lane]));
  if (where.kind == "local" && where.parallel_runs) {
    // Every lane ships its batches, the first included, so that all of them run at once.
    const auto& host = context->session->sampler().options().host_id;
    for (int lane = 0; lane < where.parallel; ++lane) {
      context->local_lanes.push_back(
          std::make_unique<LocalLaneExecutor>(host, context->session->host_json().dump()));
      context->lane_samplers.push_back(
          context->session->make_sampler(*context->local_lanes.back()));
    }
  }
  return context;
}

std::vector<Sampler*> MeasureContext::lanes() {
  std::vector<Sampler*> lanes;
  if (local_lanes.empty())
    lanes.push_back(&session->sampler());
  for (const auto& sampler : lane_samplers)
    lanes.push_back(sampler.get());
  while (std::cmp_less(lanes.size(), recipe.executor.parallel))
    lanes.push_back(&session->sampler());
  return lanes;
}

nlohmann::json MeasureContext::executor_json() const {
  nlohmann::json out = {{"kind", recipe.executor.kind}, {"parallel", recipe.executor.parallel}};
  if (recipe.executor.kind != "slurm") {
    out["parallel_runs"] = recipe.executor.parallel_runs;
    return out;
  }
  out["build_on"] = recipe.executor.build_on;
  nlohmann::json jobs = nlohmann::json::array();
  int retries = 0;
  auto add = [&](const SlurmExecutor& lane, std::string_view role) {
    retries += lane.retries();
    for (const auto& job : lane.jobs())
      jobs.push_back({{"job_id", job.job_id},
                      {"role", role},
                      {"node", job.node},
                      {"gpus", job.gpus},
                      {"host_id", job.host_id},
                      {"batches", job.batches},
                      {"runs", job.runs},
                      {"ended", job.ended.empty() ? "held" : job.ended}});
  };
  for (const auto& lane : slurm_lanes)
    add(*lane, "measure");
  if (slurm_builds)
    add(*slurm_builds, "build");
  out["jobs"] = std::move(jobs);
  out["retries"] = retries;
  return out;
}

std::unique_ptr<BuildProvider> MeasureContext::build_provider() {
  const auto& where = recipe.executor;
  const bool local_builds = where.kind == "local" || where.build_on == "local";
  if (!local_builds || where.parallel <= 1)
    return std::make_unique<BuilderProvider>(*builder, build_options);
  const auto path = repo.workdir().empty() ? repo.common_dir() : repo.workdir();
  return std::make_unique<BuildPool>(*builder, build_options, path, recipe.build, cache,
                                     where.parallel);
}

void MeasureContext::release_allocations() {
  for (const auto& lane : slurm_lanes)
    lane->release();
  if (slurm_builds)
    slurm_builds->release();
}

std::string MeasureContext::executor_summary() const {
  std::vector<std::string> jobs;
  int retries = 0;
  for (const auto& lane : slurm_lanes) {
    retries += lane->retries();
    for (const auto& job : lane->jobs())
      jobs.push_back(fmt::format("job {} on {}", job.job_id, job.node.empty() ? "?" : job.node));
  }
  if (jobs.empty())
    return {};
  return fmt::format("measured on {} Slurm allocation{}: {}{}", jobs.size(),
                     jobs.size() == 1 ? "" : "s", fmt::join(jobs, ", "),
                     retries > 0 ? fmt::format(" ({} retried)", retries) : std::string());
}

Result<Subject> MeasureContext::build_subject(const std::string& revision) {
  CULPRIT_TRY_ASSIGN(const auto commit, repo.resolve(revision));
  CULPRIT_TRY_ASSIGN(auto built, builder->build(commit, revision, build_options));
  builds.push_back(built);
  if (!built.ok())
    return infra_error("cannot build {} ({}): {}{}", revision, commit.substr(0, 12), built.message,
                       built.status == BuildStatus::cached_failure
                           ? " (recorded earlier; pass --rebuild to try again)"
                           : "");
  return Subject{commit, revision, built.key, built.artifact_id, built.artifact_dir};
}

CompareSettings MeasureContext::compare_settings() const {
  return compare_settings_of(recipe);
}

Status MeasureContext::fill_roofline(Evidence& evidence) {
  if (!m_peaks) {
    PeakSetup setup{.recipe = recipe.roofline,
                    .host_id = session->sampler().options().host_id,
                    .cpus = recipe.run.cpus,
                    .gpu_names = {}};
    for (const auto& gpu : session->host().gpu.gpus)
      setup.gpu_names.push_back(gpu.name);
    m_peaks = std::make_unique<PeakResolver>(session->store(), std::move(setup));
  }
  RooflineInputs inputs{.store = session->store(),
                        .recipe_hash = session->sampler().options().recipe_hash,
                        .host_id = session->sampler().options().host_id,
                        .recipe = recipe.roofline,
                        .peaks = *m_peaks};
  return culprit::fill_roofline(evidence, inputs);
}

void MeasureContext::observe_run(const RunEvent& event, ProgressLine& progress) {
  if (m_quiet || m_slow_suite_said || !recipe.run.cases.empty() ||
      event.status != store::RunStatus::ok || !(event.wall_seconds > k_slow_suite_seconds))
    return;
  m_slow_suite_said = true;
  progress.clear();
  write_stderr(fmt::format("culprit: note: one run of the whole suite took {:.1f} s, and every "
                           "comparison needs many; measure only the cases you care about with "
                           "[run] cases = [\"GLOB\"] in culprit.toml, or --case GLOB\n",
                           event.wall_seconds));
}

void add_output_warnings(MeasureContext& ctx, Evidence& evidence, int verbosity) {
  for (const auto* sampler : ctx.lanes())
    for (auto& warning : sampler->output_warnings()) {
      if (std::ranges::find(evidence.warnings, warning) != evidence.warnings.end())
        continue;
      if (verbosity >= 0)
        print_warning(warning);
      evidence.warnings.push_back(std::move(warning));
    }
}

void print_host_warnings(const MeasureContext& ctx, int verbosity) {
  const auto& warnings = ctx.session->warnings();
  if (verbosity < 0 || warnings.empty())
    return;
  // The same warning about the same host, every command, is noise: it is said once an hour per
  // cache unless it changes (or with -v); the evidence keeps it every time.
  const auto said = ctx.cache / "host-warning";
  // What the warnings say, without their figures: a load average of 2.9 then 3.1 is no change.
  auto text = fmt::format("{}", fmt::join(warnings, "\n"));
  std::erase_if(text, [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
  std::error_code ec;
  const auto written = std::filesystem::last_write_time(said, ec);
  const bool recent =
      !ec && std::filesystem::file_time_type::clock::now() - written < k_host_warning_every;
  if (verbosity == 0 && recent && read_file(said).value_or("") == text)
    return;
  for (const auto& warning : warnings)
    print_warning(warning);
  // A cache that cannot keep the note only means the warning comes again next time.
  [[maybe_unused]] const auto kept = write_file_atomic(said, text);
}

} // namespace culprit::cli
