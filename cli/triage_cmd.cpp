// culprit triage: confirm and bisect every new change point of the tracked history, and group
// the culprits found by commit.

#include <algorithm>

#include "cli/command.hpp"
#include "cli/measure_context.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "core/evidence/fill.hpp"
#include "core/evidence/triage_document.hpp"
#include "core/history/git_support.hpp"
#include "core/history/search_window.hpp"
#include "core/report/report.hpp"
#include "core/util/clock.hpp"
#include "core/util/format.hpp"
#include "core/util/fs.hpp"
#include "core/util/json_text.hpp"

namespace culprit::cli {
namespace {

class TriageCommand final : public Command {
public:
  [[nodiscard]] bool handles_interrupts() const override { return true; }
  void add_flags(CLI::App& sub) override {
    sub.add_flag("--no-improvements", m_no_improvements,
                 "leave change points that made things faster alone");
    sub.add_flag("--full", m_full,
                 "search every tracked point for change points, not only the newest ones and "
                 "the 48 before them");
    add_measure_flags(sub, m_flags);
  }

  int run(const GlobalOptions& global) override {
    // Triage takes no revision: what it works on is the tracked history.
    auto context = MeasureContext::open_started(global, m_flags, {});
    if (!context)
      return print_failure(context.error());
    auto& ctx = **context;
    auto& sampler = ctx.session().sampler();
    auto ledger = history::Ledger::open_at(ctx.store());
    if (!ledger)
      return print_failure(ledger.error());
    auto searched = load_history(ctx, *ledger, m_full, !m_no_improvements);
    if (!searched)
      return print_failure(searched.error());
    const auto& history = searched->history;
    print_host_warnings(ctx, global.verbosity);

    history::TriageSettings settings;
    settings.bisect.compare = ctx.compare_settings();
    settings.host_id = sampler.options().host_id;
    settings.improvements = !m_no_improvements;
    auto outcome = search(global.verbosity, ctx, history, *ledger, settings);
    ctx.release_allocations();
    if (!outcome) {
      if (outcome.error().code == ExitCode::interrupted)
        return print_failure(Error{ExitCode::interrupted,
                                   "interrupted; everything measured is kept: "
                                   "run the same command again to resume"});
      return print_failure(outcome.error());
    }
    evidence::Evidence header =
        evidence::evidence_header(global.argv, ctx.repo(), ctx.recipe(), ctx.store());
    header.host = ctx.session().host_json();
    header.executor = ctx.executor_json();
    header.warnings = ctx.session().warnings();
    add_output_warnings(ctx, header, global.verbosity);
    auto record_ids = evidence::regression_record_ids(*ledger, *outcome, settings.host_id);
    if (!record_ids)
      return print_failure(record_ids.error());
    auto document = evidence::triage_document(std::move(header), *outcome, ctx.repo(),
                                              &ctx.builder().cache(), &ctx.executor(), sampler,
                                              settings.bisect.compare.decide.confidence,
                                              settings.bisect.compare.decide.seed, *record_ids);
    if (!document)
      return print_failure(document.error());
    evidence::add_search(*document, searched->window);
    // Written before the ledger names it, and again with what became of the records.
    const auto file = document_path(ctx);
    if (auto written = write_document(file, *document, false); !written)
      return print_failure(written.error());
    auto regressions =
        evidence::update_regressions(*ledger, *outcome, *document, history, settings.host_id,
                                     file.string(), settings.bisect.compare.decide.threshold,
                                     [&ctx](const std::string& culprit, const std::string& fix) {
                                       return ctx.repo().is_ancestor(culprit, fix);
                                     });
    if (!regressions)
      return print_failure(regressions.error());
    evidence::add_regressions(*document, *regressions);
    // The next triage keeps what this one found before its newest points.
    if (auto kept = ledger->record_search(settled(*searched, *outcome)); !kept)
      return print_failure(kept.error());
    if (auto rewritten = write_document(file, *document, true); !rewritten)
      return print_failure(rewritten.error());
    print_to(summary_stream(m_flags.outputs), "{}",
             report::render_triage_summary(document->json,
                                           summary_options(global.verbosity, file.string())));
    auto others = m_flags.outputs;
    others.json.clear();
    if (others.any()) {
      if (auto written =
              write_report_outputs(document->evidence, others,
                                   render_options(document->evidence, &ctx.repo(), global.color));
          !written)
        return print_failure(written.error());
    }
    return exit_code(*outcome);
  }

private:
  // Each change point confirmed and bisected, with a progress line.
  static Result<history::TriageOutcome> search(Verbosity verbosity, MeasureContext& ctx,
                                               const history::History& history,
                                               history::Ledger& ledger,
                                               const history::TriageSettings& settings) {
    auto& sampler = ctx.session().sampler();
    ProgressLine progress(verbosity);
    std::string status_line = "confirming change points...";
    sampler.on_run([&](const measure::RunEvent& event) {
      ctx.observe_run(event, progress);
      progress.update(
          fmt::format("{} ({})", status_line,
                      counted(static_cast<std::size_t>(event.runs_made), "run", "runs")));
    });
    build::BuilderProvider builds(ctx.builder(), ctx.build_options());
    history::RepositoryGraph graph(ctx.repo());
    auto outcome = history::run_triage(
        history, builds, sampler, graph, ledger, settings, [&](const history::TriageProgress& p) {
          status_line = fmt::format("change {} of {}: bisecting {}: round {} of about {}",
                                    p.group + 1, p.groups, terminal_safe(p.bisect.case_name),
                                    p.bisect.round, p.bisect.expected_rounds);
          progress.step(status_line);
        });
    sampler.on_run(nullptr);
    progress.clear();
    return outcome;
  }

  // The triage document has keys of its own (change_points, findings, regressions), so it is
  // written here, in the cache unless --json says where; the other formats render its common part
  // like any evidence. In the cache, a triage in the same second as another gets a name of its
  // own (triage-TIME-2.json), so that neither document replaces the other.
  [[nodiscard]] std::filesystem::path document_path(const MeasureContext& ctx) const {
    const auto& json_flag = m_flags.outputs.json;
    if (!json_flag.empty() && json_flag != "-")
      return json_flag;
    auto stamp = utc_now_iso8601();
    std::ranges::replace(stamp, ':', '-');
    const auto dir = ctx.cache() / "evidence";
    auto file = dir / fmt::format("triage-{}.json", stamp);
    std::error_code error;
    for (int n = 2; std::filesystem::exists(file, error); ++n)
      file = dir / fmt::format("triage-{}-{}.json", stamp, n);
    return file;
  }

  // Atomically; `show`: also on standard output, when --json says '-'.
  Status write_document(const std::filesystem::path& file, const evidence::TriageDocument& document,
                        bool show) const {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path().empty() ? "." : file.parent_path(), ec);
    const std::string text = json_text(document.json, 2) + "\n";
    CULPRIT_TRY(write_file_atomic(file, text));
    if (show && m_flags.outputs.json == "-")
      CULPRIT_TRY(write_stdout(text));
    return {};
  }

  // 1 for a new regression, else what kept a change point from an answer.
  static int exit_code(const history::TriageOutcome& outcome) {
    if (outcome.new_regressions())
      return 1;
    if (outcome.count(history::TriageStatus::inconclusive) > 0)
      return static_cast<int>(ExitCode::inconclusive);
    if (outcome.count(history::TriageStatus::failed) > 0)
      return static_cast<int>(ExitCode::infrastructure);
    return 0;
  }

  struct Searched {
    history::History history;
    history::SearchWindow window;
    std::string scope;
    std::vector<history::TrackedPoint> points; // all of the history
  };

  // What the next triage need not search again: not the newest points, nor those around a change
  // point this one left open.
  static history::SearchMark settled(const Searched& searched,
                                     const history::TriageOutcome& outcome) {
    std::vector<std::string> open;
    for (const auto& triaged : outcome.changes)
      if (triaged.status == history::TriageStatus::inconclusive ||
          triaged.status == history::TriageStatus::failed)
        open.push_back(triaged.change.before);
    return history::settled_by_search(searched.scope, searched.points, open);
  }

  // The change points of this host's tracked history: of its newest points, when the last triage
  // searched the ones before them (core/history/search_window.hpp), else of all.
  static Result<Searched> load_history(MeasureContext& ctx, history::Ledger& ledger, bool full,
                                       bool improvements) {
    history::HistoryOptions options;
    options.case_globs = ctx.recipe().run.cases;
    options.metric = ctx.recipe().run.metric;
    options.host = ctx.session().sampler().options().host_id;
    options.decide_by(ctx.recipe().decide);
    CULPRIT_TRY_ASSIGN(const auto tracked, ledger.tracked());
    CULPRIT_TRY_ASSIGN(auto points, history::choose_points(tracked, options));
    if (points.empty())
      return usage_error("nothing is tracked on this host ({}); run 'culprit track OLD..NEW' "
                         "first",
                         options.host->substr(0, 12));
    Searched searched;
    searched.scope = history::search_scope(options, improvements);
    if (full) {
      searched.window.points = points.size();
    } else {
      CULPRIT_TRY_ASSIGN(const auto last, ledger.last_search(searched.scope));
      searched.window = history::plan_search(points, last);
    }
    const std::vector<history::TrackedPoint> taken(
        points.begin() + static_cast<std::ptrdiff_t>(searched.window.first), points.end());
    CULPRIT_TRY_ASSIGN(searched.history,
                       history::load_history(ctx.session().store(), taken, options));
    searched.points = std::move(points);
    return searched;
  }

  bool m_full = false;
  bool m_no_improvements = false;
  MeasureFlags m_flags;
};

} // namespace

std::unique_ptr<Command> make_triage_command() {
  return std::make_unique<TriageCommand>();
}

} // namespace culprit::cli
