// culprit run REV: measure one revision; per-case summary with confidence intervals.
// Runs are added in batches until every case's interval is narrower than the threshold (half
// of it on each side of the median) or max_runs is reached; then it says which intervals are
// still wider, and by how much.

#include <string>
#include <vector>

#include <fmt/ranges.h>

#include "cli/command.hpp"
#include "cli/measure_context.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "core/evidence/fill.hpp"
#include "core/measure/case_select.hpp"
#include "core/report/report.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::cli {
namespace {

// How far `run` got: whether the budget ran out before the runs asked for were made, and the
// cases whose interval is still wider than the target, with their half-width.
struct Precision {
  bool budget_hit = false;
  bool precise = true;
  std::vector<std::string> wide;
};

// Adds runs in batches of min_runs until every case's interval is within half the threshold on
// each side of its median, max_runs is reached, or the budget runs out; evidence.measurements
// are those of the last batch.
Result<Precision> measure_until_precise(measure::Sampler& sampler, const measure::Subject& subject,
                                        const measure::CompareSettings& settings,
                                        evidence::Evidence& evidence) {
  Precision out;
  for (std::size_t n = settings.min_runs();;
       n = std::min(n + settings.min_runs(), settings.max_runs())) {
    const std::vector<measure::RunsWanted> wants = {{&subject, n}};
    CULPRIT_TRY_ASSIGN(const bool complete, sampler.ensure(wants));
    auto selected = select_common_cases(sampler, {&subject}, settings);
    if (!selected && !complete)
      CULPRIT_TRY(budget_spent_if_nothing_reported(sampler, {&subject}));
    if (!selected)
      return std::unexpected(selected.error());
    evidence.measurements.clear();
    out.wide.clear();
    for (const auto& s : *selected) {
      CULPRIT_TRY_ASSIGN(auto m, evidence::measurement_entry(sampler, subject, s, n,
                                                             settings.decide.confidence,
                                                             settings.decide.seed));
      const double half_width = (m.summary.ci[1] - m.summary.ci[0]) / 2;
      if (m.runs.size() < 2 || half_width > settings.decide.threshold / 2 * m.summary.median)
        out.wide.push_back(fmt::format("{} ±{:.2g}%", excerpt(s.key.case_name),
                                       100 * half_width / m.summary.median));
      evidence.measurements.push_back(std::move(m));
    }
    out.precise = out.wide.empty();
    out.budget_hit = !complete;
    if (out.precise || out.budget_hit || n >= settings.max_runs())
      return out;
  }
}

class RunCommand final : public Command {
public:
  [[nodiscard]] bool handles_interrupts() const override { return true; }
  void add_flags(CLI::App& sub) override {
    sub.add_option("revision", m_revision, "the revision to measure")->required();
    add_measure_flags(sub, m_flags);
  }

  int run(const GlobalOptions& global) override {
    auto context = MeasureContext::open_started(global, m_flags, {m_revision});
    if (!context)
      return print_failure(context.error());
    auto& ctx = **context;
    print_host_warnings(ctx, global.verbosity);
    ProgressLine progress(global.verbosity);
    progress.update(fmt::format("building {}...", m_revision));
    auto subject = ctx.build_subject(m_revision);
    if (!subject)
      return print_failure(subject.error());
    auto& sampler = ctx.session().sampler();
    sampler.on_run([&](const measure::RunEvent& event) {
      ctx.observe_run(event, progress);
      progress.update(fmt::format("run: {}{}",
                                  counted(static_cast<std::size_t>(event.runs_made), "run", "runs"),
                                  event.status == store::RunStatus::ok ? "" : " (last failed)"));
    });
    const auto settings = ctx.compare_settings();
    evidence::Evidence evidence =
        evidence::evidence_header(global.argv, ctx.repo(), ctx.recipe(), ctx.store());
    evidence.kind = "run";
    evidence.revisions = {m_revision};
    evidence.status = "measured";
    evidence.host = ctx.session().host_json();
    evidence.warnings = ctx.session().warnings();
    auto reached = measure_until_precise(sampler, *subject, settings, evidence);
    if (!reached)
      return print_failure(reached.error());
    const auto [budget_hit, precise, wide] = *reached;
    progress.clear();
    ctx.release_allocations();
    add_output_warnings(ctx, evidence, global.verbosity);
    if (budget_hit)
      evidence.status = "inconclusive";
    else if (!precise)
      // The target is an interval within half the threshold on each side of the median.
      evidence.warnings.push_back(
          fmt::format("stopped at max_runs ({}) before every {:.0f}% interval was within ±{:.2g}% "
                      "of its median: {}; raise --max-runs, or see 'culprit env --noise'",
                      settings.max_runs(), settings.decide.confidence * 100,
                      settings.decide.threshold * 50, fmt::join(wide, ", ")));
    evidence.executor = ctx.executor_json();
    for (const auto& build : ctx.builds())
      evidence.builds.push_back(evidence::build_entry(build));
    if (auto filled = ctx.fill_roofline(evidence); !filled)
      return print_failure(filled.error());
    std::FILE* out = summary_stream(m_flags.outputs);
    print_to(out, "{}", report::render_summary(evidence, summary_options(global.verbosity)));
    if (budget_hit)
      print_warning(precise ? "the time budget ran out before the runs asked for were made"
                            : "the time budget ran out before every interval was narrow enough");
    else if (!precise)
      print_warning(evidence.warnings.back());
    std::fflush(out);
    if (auto written = write_report_outputs(evidence, m_flags.outputs,
                                            render_options(evidence, &ctx.repo(), global.color));
        !written)
      return print_failure(written.error());
    return static_cast<int>(budget_hit ? ExitCode::inconclusive : ExitCode::success);
  }

private:
  std::string m_revision;
  MeasureFlags m_flags;
};

} // namespace

std::unique_ptr<Command> make_run_command() {
  return std::make_unique<RunCommand>();
}

} // namespace culprit::cli
