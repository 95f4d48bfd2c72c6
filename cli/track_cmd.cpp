// culprit track RANGE: measure a series of commits into the store, incrementally (nightly use).

#include <chrono>
#include <limits>
#include <optional>

#include "cli/command.hpp"
#include "cli/context.hpp"
#include "cli/flag_checks.hpp"
#include "cli/measure_context.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/recipe_flags.hpp"
#include "cli/report_outputs.hpp"
#include "core/evidence/fill.hpp"
#include "core/history/git_support.hpp"
#include "core/history/series.hpp"
#include "core/history/track.hpp"
#include "core/report/report.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::cli {
namespace {

constexpr std::size_t k_max_anchors = 100;
constexpr auto k_resume_window = std::chrono::hours(12);

class TrackCommand final : public Command {
public:
  [[nodiscard]] bool handles_interrupts() const override { return true; }
  void add_flags(CLI::App& sub) override {
    sub.add_option("range", m_range,
                   "OLD..NEW (first-parent commits after OLD up to NEW), or one "
                   "revision")
        ->required();
    sub.add_option("--every", m_every, "measure every N-th commit of the range (and its newest)")
        ->check(whole_number(1, recipe::k_max_run_count));
    sub.add_option("--since", m_since, "only commits committed on or after DATE (2026-01-31)");
    sub.add_option("--runs", m_runs, "counted runs per commit (default: min_runs)")
        ->check(whole_number(1, recipe::k_max_run_count));
    sub.add_option("--anchors", m_anchors,
                   "commits tracked before to measure again with the new ones, so that this "
                   "session can be aligned with the earlier ones (default 1)")
        ->check(whole_number(0, k_max_anchors));
    add_recipe_flags(sub, m_flags.overrides, FlagSet::measure);
    sub.add_flag("--fresh", m_flags.fresh,
                 "measure every selected commit again, also those tracked before");
    sub.add_flag("--rebuild", m_flags.rebuild, "build again even when a build is cached or failed");
    sub.add_option("--json", m_flags.outputs.json,
                   "write the session's evidence to FILE ('-': stdout); 'culprit report FILE "
                   "--format summary' prints this summary again")
        ->option_text("FILE")
        ->group("Output");
  }

  int run(const GlobalOptions& global) override {
    if (auto writable = m_flags.outputs.check(); !writable)
      return print_failure(writable.error());
    history::Selection selection{.every = m_every, .since = std::nullopt};
    if (!m_since.empty()) {
      auto since = history::parse_since(m_since);
      if (!since)
        return print_failure(since.error());
      selection.since = *since;
    }
    // A range that does not resolve, or selects nothing, costs no write to the cache. The runs of
    // this session carry its label, so that history can tell them from other nights' runs of the
    // same commit. An interrupted track of the same command goes on in its session, so that the
    // runs it made count and no commit is measured twice over.
    auto context = MeasureContext::open(global, m_flags);
    if (!context)
      return print_failure(context.error());
    auto& ctx = **context;
    auto commits = commits_to_track(ctx.repo(), selection);
    if (!commits)
      return print_failure(commits.error());
    const auto unfinished = session_to_resume(global, ctx.repo());
    const std::string resumed = unfinished.value_or("");
    const std::string label = unfinished.value_or(history::new_session_label());
    if (auto started = ctx.start(label); !started)
      return print_failure(started.error());
    auto ledger = history::Ledger::open_at(ctx.store());
    if (!ledger)
      return print_failure(ledger.error());
    if (const auto begun = ledger->begin_session(command_key(), label); !begun)
      return print_failure(begun.error());
    print_host_warnings(ctx, global.verbosity);
    if (!resumed.empty() && global.verbosity != Verbosity::quiet)
      write_stderr(fmt::format("culprit: note: going on with the interrupted session of {}\n",
                               history::session_label(resumed)));

    history::TrackSettings settings;
    settings.runs = m_runs > 0 ? m_runs : static_cast<std::size_t>(ctx.recipe().decide.min_runs);
    settings.anchors = m_anchors;
    settings.remeasure = m_flags.fresh;
    ProgressLine progress(global.verbosity);
    std::string status_line;
    const auto lanes = ctx.lanes();
    for (auto* lane : lanes)
      lane->on_run([&](const measure::RunEvent& event) {
        ctx.observe_run(event, progress);
        progress.update(
            fmt::format("{} ({})", status_line,
                        counted(static_cast<std::size_t>(event.runs_made), "run", "runs")));
      });
    const auto builds = ctx.build_provider();
    auto outcome = history::track_commits(
        *commits, *builds, lanes, *ledger, settings, [&](const history::TrackProgress& p) {
          status_line =
              fmt::format("commit {} of {}: {}{}", p.done + 1, p.total, p.commit.substr(0, 12),
                          p.anchor ? " (anchor, tracked before)" : "");
          progress.step(status_line);
        });
    progress.clear();
    ctx.release_allocations();
    if (!outcome && outcome.error().code == ExitCode::interrupted)
      return print_failure(Error{ExitCode::interrupted, "interrupted; everything measured is kept: "
                                                        "run the same command again to go on"});
    if (const auto ended = ledger->end_session(command_key()); !ended)
      return print_failure(ended.error());
    if (!outcome)
      return print_failure(outcome.error());
    warn_about(*outcome, global.verbosity);
    const auto evidence =
        track_evidence(global, ctx, *outcome, commits->size(), settings, label, !resumed.empty());
    const auto& json = m_flags.outputs.json;
    std::FILE* out = summary_stream(m_flags.outputs);
    print_to(out, "{}", report::render_summary(evidence, summary_options(global.verbosity, json)));
    std::fflush(out);
    if (!json.empty())
      if (auto written = write_report_outputs(evidence, m_flags.outputs); !written)
        return print_failure(written.error());
    return 0;
  }

private:
  // What makes two track commands the same, so that the second goes on with the first's session.
  [[nodiscard]] std::string command_key() const {
    return fmt::format("track {} --every {} --since {} --runs {}{}", m_range, m_every, m_since,
                       m_runs, m_flags.fresh ? " --fresh" : "");
  }

  // The session of the same command that was interrupted in the last twelve hours; an older one
  // is another night, whose machine may have been in another state.
  [[nodiscard]] std::optional<std::string> session_to_resume(const GlobalOptions& global,
                                                             const git::Repository& repo) const {
    const auto cache = store_location(global, repo);
    if (!cache)
      return std::nullopt;
    auto ledger = history::Ledger::open_at(*cache);
    if (!ledger)
      return std::nullopt;
    auto label = ledger->unfinished_session(command_key(), store::now() - k_resume_window);
    return label ? *label : std::nullopt;
  }

  // The first-parent commits of the range that the selection (--every, --since) keeps; none is a
  // usage error.
  [[nodiscard]] Result<std::vector<history::RangeCommit>>
  commits_to_track(const git::Repository& repo, const history::Selection& selection) const {
    CULPRIT_TRY_ASSIGN(const auto range, history::range_commits(repo, m_range));
    auto commits = history::select_commits(range, selection);
    if (commits.empty())
      return usage_error("no commit of {} was committed since {}", excerpt(m_range),
                         excerpt(m_since));
    return commits;
  }

  // What the summary does not say: builds that failed, and that --anchors 0 (or anchors that did
  // not build) leave this session unaligned with the earlier ones.
  void warn_about(const history::TrackOutcome& outcome, Verbosity verbosity) const {
    for (const auto& commit : outcome.commits)
      if (!commit.build.ok())
        print_warning(fmt::format(
            "{} does not build, skipped: {}{}", commit.commit.substr(0, 12), commit.build.message,
            // The build's message names its log already, but for builds that never ran.
            commit.build.message.find(commit.build.log.string()) == std::string::npos
                ? fmt::format(" (log: {})", commit.build.log.string())
                : std::string()));
    if (outcome.anchors.empty() && outcome.measured > 0 && outcome.already_tracked > 0 &&
        m_anchors == 0 && verbosity != Verbosity::quiet)
      print_warning("--anchors 0: no commit tracked before was measured again, so history "
                    "cannot align this session with the earlier ones");
    if (outcome.anchors.empty() && !outcome.anchors_not_measured.empty() &&
        verbosity != Verbosity::quiet)
      print_warning(fmt::format("the anchor {} could not be measured again (it did not build), so "
                                "history cannot align this session with the earlier ones; "
                                "--anchors {} tries more",
                                outcome.anchors_not_measured.front().substr(0, 12),
                                m_anchors + outcome.anchors_not_measured.size()));
  }

  // The session as evidence: what the summary says, the builds, and where it ran. Its runs stay
  // in the store, where `culprit history` reads them.
  evidence::Evidence track_evidence(const GlobalOptions& global, MeasureContext& ctx,
                                    const history::TrackOutcome& outcome, std::size_t selected,
                                    const history::TrackSettings& settings,
                                    const std::string& label, bool resumed) const {
    evidence::Evidence evidence =
        evidence::evidence_header(global.argv, ctx.repo(), ctx.recipe(), ctx.store());
    evidence.kind = "track";
    evidence.status = "measured";
    evidence.revisions = {m_range};
    evidence.host = ctx.session().host_json();
    evidence.executor = ctx.executor_json();
    evidence.warnings = ctx.session().warnings();
    add_output_warnings(ctx, evidence, global.verbosity);
    for (const auto& commit : outcome.commits)
      evidence.builds.push_back(evidence::build_entry(commit.build));
    evidence::EvidenceTrack t;
    t.session = label;
    t.resumed = resumed;
    t.selected = static_cast<int>(selected);
    t.measured = static_cast<int>(outcome.measured);
    t.runs = static_cast<int>(settings.runs);
    t.runs_made = outcome.runs_made;
    t.already_tracked = static_cast<int>(outcome.already_tracked);
    t.failed_builds = static_cast<int>(outcome.failed_builds);
    t.anchors_wanted = static_cast<int>(m_anchors);
    t.anchors = outcome.anchors;
    for (const auto& noise : outcome.noise)
      t.noise.push_back({noise.case_name, noise.summary, static_cast<int>(noise.affected),
                         static_cast<int>(noise.measured)});
    evidence.track = std::move(t);
    return evidence;
  }

  std::string m_range;
  std::size_t m_every = 1;
  std::string m_since;
  std::size_t m_runs = 0;
  std::size_t m_anchors = 1;
  MeasureFlags m_flags;
};

} // namespace

std::unique_ptr<Command> make_track_command() {
  return std::make_unique<TrackCommand>();
}

} // namespace culprit::cli
