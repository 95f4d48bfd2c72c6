// culprit bisect --good REV --bad REV: find the commit(s) that changed performance.

#include <cmath>

#include "cli/command.hpp"
#include "cli/measure_context.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "core/bisect/bisect.hpp"
#include "core/bisect/counters.hpp"
#include "core/bisect/merges.hpp"
#include "core/evidence/culprit_hints.hpp"
#include "core/evidence/fill.hpp"
#include "core/report/report.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::cli {
namespace {

Result<bisect::BisectRange> resolve_range(const git::Repository& repo, const std::string& good_rev,
                                          const std::string& bad_rev, git::History history) {
  bisect::BisectRange range;
  range.good_rev = good_rev;
  range.bad_rev = bad_rev;
  CULPRIT_TRY_ASSIGN(range.good, repo.resolve(good_rev));
  CULPRIT_TRY_ASSIGN(range.bad, repo.resolve(bad_rev));
  // Revisions as messages quote them: short, and without control characters.
  const auto good = excerpt(good_rev);
  const auto bad = excerpt(bad_rev);
  if (range.good == range.bad)
    return usage_error("--good {} and --bad {} are the same commit; give a good revision from "
                       "before the slowdown",
                       good, bad);
  CULPRIT_TRY_ASSIGN(const bool ordered, repo.is_ancestor(range.good, range.bad));
  if (!ordered) {
    CULPRIT_TRY_ASSIGN(const bool swapped, repo.is_ancestor(range.bad, range.good));
    if (swapped)
      return usage_error("--good {} is newer than --bad {}: did you swap them? (to find a "
                         "speed-up, keep the order and pass --improvement)",
                         good, bad);
    if (repo.is_shallow())
      return usage_error("--good {} is not in the history of --bad {} that this shallow clone "
                         "holds; run 'git fetch --unshallow' first",
                         good, bad);
    return usage_error("--good {} is not an ancestor of --bad {}; bisect needs a good commit in "
                       "the bad one's history",
                       good, bad);
  }
  CULPRIT_TRY_ASSIGN(range.commits, repo.range(range.good, range.bad, history));
  if (range.commits.empty())
    return usage_error("there are no commits between --good {} and --bad {}", good, bad);
  return range;
}

class BisectCommand final : public Command {
public:
  [[nodiscard]] bool handles_interrupts() const override { return true; }
  void add_flags(CLI::App& sub) override {
    sub.add_option("--good", m_good, "a revision with the old performance")->required();
    sub.add_option("--bad", m_bad, "a revision with the new performance")->required();
    sub.add_flag("--improvement", m_improvement,
                 "look for the commit that made things faster instead of slower");
    sub.add_flag("--no-counters", m_no_counters,
                 "do not count each culprit and its parent under Valgrind for its counter diff");
    sub.add_flag("--all-commits", m_all_commits,
                 "consider every commit of merged branches, not only the first-parent chain");
    add_measure_flags(sub, m_flags);
  }

  int run(const GlobalOptions& global) override {
    auto context = MeasureContext::open(global, m_flags);
    if (!context)
      return print_failure(context.error());
    auto& ctx = **context;
    auto range = resolve_bisect_range(ctx.repo());
    if (!range)
      return print_failure(range.error());
    // A session whose runs are this bisection's own: run again, it replays what it found, and
    // the runs of other commands (a compare of the same commits) never change a closed verdict.
    if (auto started = ctx.start(fmt::format("bisect:{}..{}{}{}", range->good, range->bad,
                                             m_all_commits ? ":all-commits" : "",
                                             m_improvement ? ":improvement" : ""));
        !started)
      return print_failure(started.error());
    print_host_warnings(ctx, global.verbosity);

    bisect::BisectSettings settings;
    settings.compare = ctx.compare_settings();
    settings.improvement = m_improvement;
    settings.timer = ctx.session().time_sampler();
    bisect::BisectOutcome so_far;
    auto outcome = search(global.verbosity, ctx, *range, settings, so_far);
    if (outcome && !m_no_counters && !outcome->culprits.empty())
      if (auto* counter = ctx.session().counter_sampler(); counter != nullptr) {
        ProgressLine progress(global.verbosity);
        progress.step("counting the culprits and their parents under Valgrind...");
        if (auto counted = bisect::count_culprits(*outcome, *counter); !counted) {
          so_far = std::move(*outcome); // interrupted: the culprits found are kept
          so_far.status = bisect::BisectStatus::interrupted;
          outcome = std::unexpected(counted.error());
        }
        progress.clear();
      }
    ctx.release_allocations();
    if (!outcome && outcome.error().code == ExitCode::interrupted)
      return keep_interrupted(global, ctx, *range, so_far, settings);
    if (!outcome)
      return print_failure(outcome.error());
    return conclude(global, ctx, *range, *outcome, settings);
  }

private:
  // The range: the search walks the first-parent chain; --all-commits descends into the branches
  // of the merges it names (core/bisect/merges.hpp), and the range counts them all.
  Result<bisect::BisectRange> resolve_bisect_range(const git::Repository& repo) {
    CULPRIT_TRY_ASSIGN(auto range, resolve_range(repo, m_good, m_bad, git::History::first_parent));
    if (m_all_commits) {
      CULPRIT_TRY_ASSIGN(const auto all, repo.range(range.good, range.bad, git::History::full_dag));
      m_commits_in_dag = all.size();
    }
    return range;
  }

  // The bisection, with a progress line: the ends compared, then round after round of probes.
  Result<bisect::BisectOutcome> search(Verbosity verbosity, MeasureContext& ctx,
                                       const bisect::BisectRange& range,
                                       const bisect::BisectSettings& settings,
                                       bisect::BisectOutcome& so_far) {
    ProgressLine progress(verbosity);
    std::string status_line = "building the ends...";
    progress.step(status_line);
    const auto builds = ctx.build_provider();
    const auto lanes = ctx.lanes();
    bool searching = false;
    const auto observe = [&](bool timing) {
      return [&, timing](const measure::RunEvent& event) {
        ctx.observe_run(event, progress);
        // Runs before the first round compare the two ends; timed runs after it confirm a
        // culprit that counts located (or bisect by time when the ends' counts agree).
        if (!searching)
          status_line = fmt::format("comparing the ends {}..{}{}", range.good.substr(0, 12),
                                    range.bad.substr(0, 12), timing ? " in time" : "");
        else if (timing)
          status_line = "confirming a culprit in time";
        progress.update(
            fmt::format("{} ({})", status_line,
                        counted(static_cast<std::size_t>(event.runs_made), "run", "runs")));
      };
    };
    for (auto* lane : lanes)
      lane->on_run(observe(false));
    if (settings.timer != nullptr)
      settings.timer->on_run(observe(true));
    bisect::GitMergeGraph graph(ctx.repo());
    const auto run = [&](auto&&... args) {
      return m_all_commits
                 ? run_bisect_through_merges(range, graph, *builds, lanes, settings, args...)
                 : run_bisect(range, *builds, lanes, settings, args...);
    };
    auto outcome = run(
        [&](const bisect::BisectProgress& p) {
          searching = true;
          auto info = ctx.repo().commit_info(p.commit);
          status_line = fmt::format(
              "{}{}: round {} of about {}: {} {}",
              p.cases > 1 ? fmt::format("case {} of {}, ", p.case_index, p.cases) : "",
              terminal_safe(p.case_name), p.round, p.expected_rounds, p.commit.substr(0, 12),
              info ? terminal_safe(ellipsize(info->subject, 40)) : std::string());
          progress.step(fmt::format("{} ({})", status_line,
                                    counted(static_cast<std::size_t>(p.runs_made), "run", "runs")));
        },
        &so_far);
    for (auto* lane : lanes)
      lane->on_run(nullptr);
    if (settings.timer != nullptr)
      settings.timer->on_run(nullptr);
    progress.clear();
    return outcome;
  }

  // The evidence kept (in the cache unless --json says where), the summary, the reports and the
  // exit code of the outcome.
  int conclude(const GlobalOptions& global, MeasureContext& ctx, const bisect::BisectRange& range,
               const bisect::BisectOutcome& outcome, const bisect::BisectSettings& settings) {
    auto evidence = bisect_evidence(global, ctx, range, outcome, settings);
    if (!evidence)
      return print_failure(evidence.error());
    if (auto described = evidence::describe_culprits(*evidence, ctx.repo(), &ctx.builder().cache(),
                                                     &ctx.executor());
        !described)
      return print_failure(described.error());
    auto outputs = m_flags.outputs;
    if (outputs.json.empty() || outputs.json == "-") {
      auto file = save_in_cache(ctx, range, *evidence);
      if (!file)
        return print_failure(file.error());
      if (outputs.json.empty())
        outputs.json = file->string();
    }
    std::FILE* out = summary_stream(outputs);
    print_to(out, "{}",
             report::render_summary(*evidence, summary_options(global.verbosity, outputs.json)));
    std::fflush(out);
    if (auto written = write_report_outputs(*evidence, outputs,
                                            render_options(*evidence, &ctx.repo(), global.color));
        !written)
      return print_failure(written.error());
    if (outcome.status == bisect::BisectStatus::not_reproduced)
      return static_cast<int>(ExitCode::not_reproduced);
    if (outcome.status == bisect::BisectStatus::inconclusive)
      return static_cast<int>(ExitCode::inconclusive);
    return 0;
  }

  Result<evidence::Evidence> bisect_evidence(const GlobalOptions& global, MeasureContext& ctx,
                                             const bisect::BisectRange& range,
                                             const bisect::BisectOutcome& outcome,
                                             const bisect::BisectSettings& settings) const {
    evidence::Evidence evidence =
        evidence::evidence_header(global.argv, ctx.repo(), ctx.recipe(), ctx.store());
    evidence.kind = "bisect";
    evidence.revisions = {m_good, m_bad};
    evidence.status = std::string(to_string(outcome.status));
    evidence.host = ctx.session().host_json();
    evidence.executor = ctx.executor_json();
    evidence.warnings = ctx.session().warnings();
    add_output_warnings(ctx, evidence, global.verbosity);
    evidence.settings.direction = m_improvement ? "improvement" : "regression";
    CULPRIT_TRY(evidence::fill_bisect_evidence(evidence, range, outcome, ctx.lanes(),
                                               settings.compare.decide.confidence,
                                               settings.compare.decide.seed, settings.timer));
    if (m_all_commits && evidence.bisect)
      evidence.bisect->commits_in_range = static_cast<int>(m_commits_in_dag);
    CULPRIT_TRY(ctx.fill_roofline(evidence));
    return evidence;
  }

  static Result<std::filesystem::path> save_in_cache(const MeasureContext& ctx,
                                                     const bisect::BisectRange& range,
                                                     const evidence::Evidence& evidence) {
    const auto dir = ctx.cache() / "evidence";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    auto file =
        dir / fmt::format("bisect-{}-{}.json", range.good.substr(0, 12), range.bad.substr(0, 12));
    CULPRIT_TRY(evidence::save_evidence(evidence, file));
    return file;
  }

  // Ctrl-C: the runs are in the store already; the evidence of what is known so far (status
  // "interrupted") is written where a finished bisection's would go, atomically, and said where.
  int keep_interrupted(const GlobalOptions& global, MeasureContext& ctx,
                       const bisect::BisectRange& range, const bisect::BisectOutcome& so_far,
                       const bisect::BisectSettings& settings) const {
    auto evidence = bisect_evidence(global, ctx, range, so_far, settings);
    Result<std::filesystem::path> file = std::unexpected(Error{});
    const auto& json = m_flags.outputs.json;
    if (!evidence) {
      file = std::unexpected(evidence.error());
    } else if (json.empty() || json == "-") {
      file = save_in_cache(ctx, range, *evidence);
    } else if (auto saved = evidence::save_evidence(*evidence, json); saved) {
      file = std::filesystem::path(json);
    } else {
      file = std::unexpected(saved.error());
    }
    return print_failure(Error{
        ExitCode::interrupted,
        fmt::format("interrupted; everything measured is kept{}: run the same "
                    "command again to resume",
                    file ? ", and the evidence so far is in " + file->string()
                         : " (the evidence so far could not be written: " + file.error().message +
                               ")")});
  }

  std::string m_good;
  std::string m_bad;
  bool m_improvement = false;
  bool m_all_commits = false;
  bool m_no_counters = false;
  std::size_t m_commits_in_dag = 0; // with --all-commits: good..bad with every merged branch
  MeasureFlags m_flags;
};

} // namespace

std::unique_ptr<Command> make_bisect_command() {
  return std::make_unique<BisectCommand>();
}

} // namespace culprit::cli
