// culprit build REV...: build revisions into the cache and print their build keys.

#include <cstdio>

#include "cli/command.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "cli/recipe_flags.hpp"
#include "core/build/builder.hpp"
#include "core/exec/local_executor.hpp"
#include "core/util/escape.hpp"
#include "core/util/interrupt.hpp"

namespace culprit::cli {
namespace {

class BuildCommand final : public Command {
public:
  [[nodiscard]] bool handles_interrupts() const override { return true; }
  void add_flags(CLI::App& sub) override {
    sub.add_option("revisions", m_revisions, "revisions to build (branches, tags, commits)")
        ->required();
    sub.add_flag("--rebuild", m_rebuild, "build again even when the build key is cached");
    add_recipe_flags(sub, m_overrides, FlagSet::build);
  }

  int run(const GlobalOptions& global) override {
    install_interrupt_handlers();
    auto repo = open_repository(global);
    if (!repo)
      return print_failure(repo.error());
    auto recipe = load_recipe(global, *repo, m_overrides, RecipeUse::build);
    if (!recipe)
      return print_failure(recipe.error());
    auto cache = repository_cache(global, *repo);
    if (!cache)
      return print_failure(cache.error());
    // Resolve everything first: a typo in the third revision should not cost two builds.
    std::vector<std::string> commits;
    for (const auto& revision : m_revisions) {
      auto commit = repo->resolve(revision);
      if (!commit)
        return print_failure(commit.error());
      commits.push_back(*commit);
    }

    exec::LocalExecutor executor;
    build::Builder builder(*repo, recipe->build, *cache, executor);
    build::BuildOptions options;
    options.rebuild = m_rebuild;
    options.on_message = [](std::string_view message) { print_warning(message); };
    bool all_ok = true;
    for (std::size_t i = 0; i < commits.size(); ++i) {
      if (global.verbosity != Verbosity::quiet && isatty(fileno(stderr)) != 0)
        write_stderr(fmt::format("building {} ({})...\n", terminal_safe(m_revisions[i]),
                                 commits[i].substr(0, 12)));
      auto result = builder.build(commits[i], m_revisions[i], options);
      if (!result)
        return print_failure(result.error());
      all_ok = all_ok && result->ok();
      fmt::print(
          "{} {} {:<15} {:>7.1f}s {}\n", result->commit.substr(0, 12), result->key.substr(0, 16),
          to_string(result->status), result->seconds,
          terminal_safe(result->ok() ? result->artifact_dir.string() : result->log.string()));
      if (!result->ok())
        print_error(fmt::format("build of {} failed: {}{}", excerpt(m_revisions[i]),
                                result->message,
                                result->status == build::BuildStatus::cached_failure
                                    ? " (recorded earlier; pass --rebuild to try again)"
                                    : ""));
      std::fflush(stdout);
    }
    return static_cast<int>(all_ok ? ExitCode::success : ExitCode::infrastructure);
  }

private:
  std::vector<std::string> m_revisions;
  bool m_rebuild = false;
  recipe::RecipeOverrides m_overrides;
};

} // namespace

std::unique_ptr<Command> make_build_command() {
  return std::make_unique<BuildCommand>();
}

} // namespace culprit::cli
