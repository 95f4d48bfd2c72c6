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

Result<exec::SlurmOptions> slurm_options(const recipe::Recipe& recipe,
                                         const std::filesystem::path& cache) {
  exec::SlurmOptions options;
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

Status check_revisions(const git::Repository& repo, const std::vector<std::string>& revisions) {
  for (const auto& revision : revisions)
    CULPRIT_TRY(repo.resolve(revision));
  return {};
}

Result<Lanes> Lanes::make(const recipe::Recipe& recipe, const std::filesystem::path& cache) {
  Lanes lanes;
  const auto& where = recipe.executor;
  if (where.kind != recipe::ExecutorKind::slurm)
    return lanes;
  CULPRIT_TRY_ASSIGN(const auto options, slurm_options(recipe, cache));
  for (int lane = 0; lane < where.parallel; ++lane)
    lanes.m_slurm.push_back(
        std::make_unique<exec::SlurmExecutor>(options, fmt::format("lane{}", lane)));
  if (where.build_on == recipe::ExecutorKind::slurm) {
    auto build_options = options;
    build_options.hold = false;
    lanes.m_slurm_builds = std::make_unique<exec::SlurmExecutor>(build_options, "build");
  }
  return lanes;
}

exec::Executor& Lanes::measure_on(exec::LocalExecutor& local) const {
  return m_slurm.empty() ? static_cast<exec::Executor&>(local) : *m_slurm.front();
}

exec::Executor& Lanes::build_on(exec::LocalExecutor& local) const {
  return m_slurm_builds ? static_cast<exec::Executor&>(*m_slurm_builds) : local;
}

void Lanes::add_samplers(measure::MeasureSession& session, const recipe::Recipe& recipe) {
  for (std::size_t lane = 1; lane < m_slurm.size(); ++lane)
    m_samplers.push_back(session.make_sampler(*m_slurm[lane]));
  const auto& where = recipe.executor;
  if (where.kind == recipe::ExecutorKind::local && where.parallel_runs) {
    // Every lane ships its batches, the first included, so that all of them run at once.
    const auto& host = session.sampler().options().host_id;
    for (int lane = 0; lane < where.parallel; ++lane) {
      m_local.push_back(
          std::make_unique<exec::LocalLaneExecutor>(host, session.host_json().dump()));
      m_samplers.push_back(session.make_sampler(*m_local.back()));
    }
  }
}

std::vector<measure::Sampler*> Lanes::samplers(measure::MeasureSession& session,
                                               int parallel) const {
  std::vector<measure::Sampler*> lanes;
  if (m_local.empty())
    lanes.push_back(&session.sampler());
  for (const auto& sampler : m_samplers)
    lanes.push_back(sampler.get());
  while (std::cmp_less(lanes.size(), parallel))
    lanes.push_back(&session.sampler());
  return lanes;
}

void Lanes::release() {
  for (const auto& lane : m_slurm)
    lane->release();
  if (m_slurm_builds)
    m_slurm_builds->release();
}

void Lanes::describe_jobs(nlohmann::json& executor) const {
  nlohmann::json jobs = nlohmann::json::array();
  int retries = 0;
  auto add = [&](const exec::SlurmExecutor& lane, std::string_view role) {
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
  for (const auto& lane : m_slurm)
    add(*lane, "measure");
  if (m_slurm_builds)
    add(*m_slurm_builds, "build");
  executor["jobs"] = std::move(jobs);
  executor["retries"] = retries;
}

MeasureContext::MeasureContext(git::Repository repo, const MeasureFlags& flags, bool quiet)
    : m_repo(std::move(repo)), m_fresh(flags.fresh), m_quiet(quiet) {
  m_build_options.rebuild = flags.rebuild;
  m_build_options.on_message = [](std::string_view message) { print_warning(message); };
}

Result<std::unique_ptr<MeasureContext>> MeasureContext::open(const GlobalOptions& global,
                                                             const MeasureFlags& flags) {
  install_interrupt_handlers();
  // Outputs that cannot be written are found before anything is measured.
  CULPRIT_TRY(flags.outputs.check());
  CULPRIT_TRY_ASSIGN(auto repo, open_repository(global));
  std::unique_ptr<MeasureContext> context(
      new MeasureContext(std::move(repo), flags, global.verbosity == Verbosity::quiet));
  CULPRIT_TRY_ASSIGN(context->m_recipe, load_recipe(global, context->m_repo, flags.overrides,
                                                    RecipeUse::build_and_run));
  context->m_global = global;
  return context;
}

Result<std::unique_ptr<MeasureContext>>
MeasureContext::open_started(const GlobalOptions& global, const MeasureFlags& flags,
                             const std::vector<std::string>& revisions) {
  CULPRIT_TRY_ASSIGN(auto context, open(global, flags));
  CULPRIT_TRY(check_revisions(context->repo(), revisions));
  CULPRIT_TRY(context->start());
  return context;
}

// The lanes' samplers go before the session that made them; the session, before the executors
// (in m_lanes) it measures on.
MeasureContext::~MeasureContext() {
  m_lanes.drop_samplers();
}

Status MeasureContext::start(std::optional<std::string> runs_label) {
  // Duets need two CPUs: found out before anything is written.
  std::array<std::vector<int>, 2> duet_cpus;
  if (m_recipe.run.duet != recipe::DuetMode::off &&
      m_recipe.executor.kind == recipe::ExecutorKind::local && !m_recipe.executor.parallel_runs) {
    auto cpus = host::duet_cpus(m_recipe.run.cpus, host::allowed_cpus());
    if (cpus)
      duet_cpus = std::move(*cpus);
    else if (m_recipe.run.duet == recipe::DuetMode::on)
      return std::unexpected(cpus.error());
  }
  CULPRIT_TRY_ASSIGN(m_store, store_location(m_global, m_repo));
  CULPRIT_TRY_ASSIGN(m_lanes, Lanes::make(m_recipe, cache()));
  m_builder = std::make_unique<build::Builder>(m_repo, m_recipe.build, cache(),
                                               m_lanes.build_on(m_executor));
  // --fresh means the runs of this invocation alone: a time filter would also take the runs of
  // another command that started a moment later on the same cache, a label of its own does not.
  if (m_fresh && !runs_label)
    runs_label = fmt::format("fresh:{}.{}", store::to_micros(store::now()), ::getpid());
  CULPRIT_TRY_ASSIGN(m_session,
                     measure::MeasureSession::open(m_lanes.measure_on(m_executor), m_recipe,
                                                   {.repo_cache = cache(),
                                                    .store_url = m_store.url,
                                                    .fresh = m_fresh,
                                                    .runs_label = std::move(runs_label),
                                                    .probe_gpus = true,
                                                    .duet_cpus = std::move(duet_cpus)}));
  m_lanes.add_samplers(*m_session, m_recipe);
  return {};
}

std::vector<measure::Sampler*> MeasureContext::lanes() const {
  return m_lanes.samplers(*m_session, m_recipe.executor.parallel);
}

nlohmann::json MeasureContext::executor_json() const {
  const auto& where = m_recipe.executor;
  nlohmann::json out = {{"kind", to_string(where.kind)}, {"parallel", where.parallel}};
  if (where.kind != recipe::ExecutorKind::slurm) {
    out["parallel_runs"] = where.parallel_runs;
    return out;
  }
  out["build_on"] = to_string(where.build_on);
  m_lanes.describe_jobs(out);
  return out;
}

std::unique_ptr<build::BuildProvider> MeasureContext::build_provider() {
  const auto& where = m_recipe.executor;
  const bool local_builds =
      where.kind == recipe::ExecutorKind::local || where.build_on == recipe::ExecutorKind::local;
  if (!local_builds || where.parallel <= 1)
    return std::make_unique<build::BuilderProvider>(*m_builder, m_build_options);
  const auto path = m_repo.workdir().empty() ? m_repo.common_dir() : m_repo.workdir();
  return std::make_unique<build::BuildPool>(*m_builder, m_build_options, path, m_recipe.build,
                                            cache(), where.parallel);
}

void MeasureContext::release_allocations() {
  m_lanes.release();
}

Result<measure::Subject> MeasureContext::build_subject(const std::string& revision) {
  CULPRIT_TRY_ASSIGN(const auto commit, m_repo.resolve(revision));
  CULPRIT_TRY_ASSIGN(auto built, m_builder->build(commit, revision, m_build_options));
  m_builds.push_back(built);
  if (!built.ok())
    return infra_error("cannot build {} ({}): {}{}", revision, commit.substr(0, 12), built.message,
                       built.status == build::BuildStatus::cached_failure
                           ? " (recorded earlier; pass --rebuild to try again)"
                           : "");
  return measure::Subject{commit, revision, built.key, built.artifact_id, built.artifact_dir};
}

measure::CompareSettings MeasureContext::compare_settings() const {
  return measure::compare_settings_of(m_recipe);
}

Status MeasureContext::fill_roofline(evidence::Evidence& evidence) {
  if (!m_peaks) {
    roofline::PeakSetup setup{.recipe = m_recipe.roofline,
                              .host_id = m_session->sampler().options().host_id,
                              .cpus = m_recipe.run.cpus,
                              .gpu_names = {}};
    for (const auto& gpu : m_session->host().gpu.gpus)
      setup.gpu_names.push_back(gpu.name);
    m_peaks = std::make_unique<roofline::PeakResolver>(m_session->store(), std::move(setup));
  }
  evidence::RooflineInputs inputs{.store = m_session->store(),
                                  .recipe_hash = m_session->sampler().options().recipe_hash,
                                  .host_id = m_session->sampler().options().host_id,
                                  .recipe = m_recipe.roofline,
                                  .peaks = *m_peaks};
  return evidence::fill_roofline(evidence, inputs);
}

void MeasureContext::observe_run(const measure::RunEvent& event, ProgressLine& progress) {
  if (m_quiet || m_slow_suite_said || !m_recipe.run.cases.empty() ||
      event.status != store::RunStatus::ok || !(event.wall_seconds > k_slow_suite_seconds))
    return;
  m_slow_suite_said = true;
  progress.clear();
  write_stderr(fmt::format("culprit: note: one run of the whole suite took {:.1f} s, and every "
                           "comparison needs many; measure only the cases you care about with "
                           "[run] cases = [\"GLOB\"] in culprit.toml, or --case GLOB\n",
                           event.wall_seconds));
}

void add_output_warnings(MeasureContext& ctx, evidence::Evidence& evidence, Verbosity verbosity) {
  for (const auto* sampler : ctx.lanes())
    for (auto& warning : sampler->output_warnings()) {
      if (std::ranges::find(evidence.warnings, warning) != evidence.warnings.end())
        continue;
      if (verbosity != Verbosity::quiet)
        print_warning(warning);
      evidence.warnings.push_back(std::move(warning));
    }
}

void print_host_warnings(const MeasureContext& ctx, Verbosity verbosity) {
  const auto& warnings = ctx.session().warnings();
  if (verbosity == Verbosity::quiet || warnings.empty())
    return;
  // The same warning about the same host, every command, is noise: it is said once an hour per
  // cache unless it changes (or with -v); the evidence keeps it every time.
  const auto said = ctx.cache() / "host-warning";
  // What the warnings say, without their figures: a load average of 2.9 then 3.1 is no change.
  auto text = fmt::format("{}", fmt::join(warnings, "\n"));
  std::erase_if(text, [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
  std::error_code ec;
  const auto written = std::filesystem::last_write_time(said, ec);
  const bool recent =
      !ec && std::filesystem::file_time_type::clock::now() - written < k_host_warning_every;
  if (verbosity == Verbosity::normal && recent && read_file(said).value_or("") == text)
    return;
  for (const auto& warning : warnings)
    print_warning(warning);
  // A cache that cannot keep the note only means the warning comes again next time.
  [[maybe_unused]] const auto kept = write_file_atomic(said, text);
}

} // namespace culprit::cli
