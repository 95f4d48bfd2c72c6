// culprit track RANGE: measure a series of commits into the store, incrementally (nightly use).

#include <limits>

#include "cli/command.hpp"
#include "cli/flag_checks.hpp"
#include "cli/measure_context.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/recipe_flags.hpp"
#include "core/history/git_support.hpp"
#include "core/history/track.hpp"
#include "core/report/escape.hpp"

namespace culprit::cli {
namespace {

class TrackCommand final : public Command {
public:
  [[nodiscard]] bool handles_interrupts() const override { return true; }
  void add_flags(CLI::App& sub) override {
    sub.add_option("range", m_range,
                   "OLD..NEW (first-parent commits after OLD up to NEW), or one "
                   "revision")
        ->required();
    sub.add_option("--every", m_every, "measure every N-th commit of the range (and its newest)")
        ->check(whole_number(1, k_max_run_count));
    sub.add_option("--since", m_since, "only commits committed on or after DATE (2026-01-31)");
    sub.add_option("--runs", m_runs, "counted runs per commit (default: min_runs)")
        ->check(whole_number(1, k_max_run_count));
    add_recipe_flags(sub, m_flags.overrides, FlagSet::measure);
    sub.add_flag("--fresh", m_flags.fresh, "measure again, ignoring runs stored earlier");
    sub.add_flag("--rebuild", m_flags.rebuild, "build again even when a build is cached or failed");
  }

  int run(const GlobalOptions& global) override {
    history::Selection selection{.every = m_every, .since = std::nullopt};
    if (!m_since.empty()) {
      auto since = history::parse_since(m_since);
      if (!since)
        return report(since.error());
      selection.since = *since;
    }
    // A range that does not resolve costs no write to the cache.
    auto context =
        MeasureContext::open(global, m_flags, [&](const git::Repository& repo) -> Status {
          CULPRIT_TRY(history::range_commits(repo, m_range));
          return {};
        });
    if (!context)
      return report(context.error());
    auto& ctx = **context;
    auto range = history::range_commits(ctx.repo, m_range);
    if (!range)
      return report(range.error());
    const auto commits = history::select_commits(*range, selection);
    if (commits.empty())
      return report(usage_error("no commit of {} was committed since {}", report::excerpt(m_range),
                                report::excerpt(m_since))
                        .error());
    auto ledger = history::Ledger::open_in(ctx.cache);
    if (!ledger)
      return report(ledger.error());
    print_host_warnings(*ctx.session, global.verbosity);

    history::TrackSettings settings;
    settings.runs = m_runs > 0 ? m_runs : static_cast<std::size_t>(ctx.recipe.decide.min_runs);
    ProgressLine progress(global.verbosity);
    std::string status_line;
    const auto lanes = ctx.lanes();
    for (auto* lane : lanes)
      lane->on_run([&](const RunEvent& event) {
        progress.update(fmt::format("{} ({} runs)", status_line, event.runs_made));
      });
    const auto builds = ctx.build_provider();
    auto outcome = history::track_commits(
        commits, *builds, lanes, *ledger, settings, [&](const history::TrackProgress& p) {
          status_line =
              fmt::format("commit {} of {}: {}", p.done + 1, p.total, p.commit.substr(0, 12));
          progress.update(status_line);
        });
    progress.clear();
    ctx.release_allocations();
    if (!outcome) {
      if (outcome.error().code == ExitCode::interrupted)
        return report(Error{ExitCode::interrupted, "interrupted; everything measured is kept: "
                                                   "run the same command again to go on"});
      return report(outcome.error());
    }
    for (const auto& commit : outcome->commits)
      if (!commit.build.ok())
        print_warning(fmt::format("{} does not build, skipped: {} (log: {})",
                                  commit.commit.substr(0, 12), commit.build.message,
                                  commit.build.log.string()));
    fmt::print("tracked {} of {} commits of {} ({} runs each; {} new runs){}\n", outcome->measured,
               commits.size(), on_terminal(m_range), settings.runs, outcome->runs_made,
               outcome->failed_builds > 0
                   ? fmt::format(", {} did not build", outcome->failed_builds)
                   : std::string());
    if (global.verbosity >= 0)
      for (const auto& noise : outcome->noise)
        fmt::print("noise: {}: {} (in {} of {} commits)\n", on_terminal(noise.case_name),
                   noise.summary, noise.affected, noise.measured);
    if (const auto where = ctx.executor_summary(); !where.empty())
      fmt::print("{}\n", where);
    return 0;
  }

private:
  std::string m_range;
  std::size_t m_every = 1;
  std::string m_since;
  std::size_t m_runs = 0;
  MeasureFlags m_flags;
};

} // namespace

std::unique_ptr<Command> make_track_command() {
  return std::make_unique<TrackCommand>();
}

} // namespace culprit::cli
