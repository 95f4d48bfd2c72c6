#include "cli/measure_context.hpp"

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "cli/recipe_flags.hpp"
#include "core/interrupt.hpp"

namespace culprit::cli {

void add_measure_flags(CLI::App& sub, MeasureFlags& flags) {
  add_recipe_flags(sub, flags.overrides, FlagSet::measure);
  sub.add_flag("--fresh", flags.fresh, "measure again, ignoring runs stored by earlier commands");
  sub.add_flag("--rebuild", flags.rebuild, "build again even when a build is cached or failed");
  add_report_output_flags(sub, flags.outputs);
}

InputCheck revisions_resolve(std::vector<std::string> revisions) {
  return [revisions = std::move(revisions)](const git::Repository& repo) -> Status {
    for (const auto& revision : revisions)
      CULPRIT_TRY(repo.resolve(revision));
    return {};
  };
}

Result<std::unique_ptr<MeasureContext>> MeasureContext::open(const GlobalOptions& global,
                                                             const MeasureFlags& flags,
                                                             const InputCheck& check) {
  install_interrupt_handlers();
  // Outputs that cannot be written are found before anything is measured.
  for (const auto& [file, flag] :
       {std::pair{&flags.outputs.json, "--json"}, std::pair{&flags.outputs.markdown, "--markdown"},
        std::pair{&flags.outputs.html, "--html"}, std::pair{&flags.outputs.junit, "--junit"}})
    CULPRIT_TRY(check_output_path(*file, flag));
  CULPRIT_TRY_ASSIGN(auto repo, open_repository(global));
  std::unique_ptr<MeasureContext> context(new MeasureContext(std::move(repo)));
  CULPRIT_TRY_ASSIGN(context->recipe,
                     load_recipe(global, context->repo, flags.overrides, RecipeUse::build_and_run));
  CULPRIT_TRY(check(context->repo));
  CULPRIT_TRY_ASSIGN(context->cache, repository_cache(global, context->repo));
  context->builder = std::make_unique<Builder>(context->repo, context->recipe.build, context->cache,
                                               context->executor);
  context->build_options.rebuild = flags.rebuild;
  context->build_options.on_message = [](std::string_view message) { print_warning(message); };
  CULPRIT_TRY_ASSIGN(context->session,
                     MeasureSession::open(context->executor, context->recipe,
                                          {.repo_cache = context->cache, .fresh = flags.fresh}));
  return context;
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
  CompareSettings settings;
  settings.threshold = recipe.decide.threshold;
  settings.confidence = recipe.decide.confidence;
  settings.min_runs = static_cast<std::size_t>(recipe.decide.min_runs);
  settings.max_runs = static_cast<std::size_t>(recipe.decide.max_runs);
  settings.seed = recipe.decide.seed;
  settings.case_globs = recipe.run.cases;
  settings.metric = recipe.run.metric;
  return settings;
}

void print_host_warnings(const MeasureSession& session, int verbosity) {
  if (verbosity < 0)
    return;
  for (const auto& warning : session.warnings())
    print_warning(warning);
}

} // namespace culprit::cli
