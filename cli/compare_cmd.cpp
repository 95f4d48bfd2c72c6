// culprit compare BASE HEAD: interleaved A/B runs; per-case ratio, CI and verdict.

#include "cli/command.hpp"
#include "cli/measure_context.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "core/evidence/fill.hpp"
#include "core/report/report.hpp"
#include "core/util/format.hpp"

namespace culprit::cli {
namespace {

class CompareCommand final : public Command {
public:
  [[nodiscard]] bool handles_interrupts() const override { return true; }
  void add_flags(CLI::App& sub) override {
    sub.add_option("base", m_base, "the revision to compare against")->required();
    sub.add_option("head", m_head, "the revision under test")->required();
    add_measure_flags(sub, m_flags);
  }

  int run(const GlobalOptions& global) override {
    auto context = MeasureContext::open_started(global, m_flags, {m_base, m_head});
    if (!context)
      return print_failure(context.error());
    auto& ctx = **context;
    print_host_warnings(ctx, global.verbosity);
    ProgressLine progress(global.verbosity);
    progress.update(fmt::format("building {}...", m_base));
    auto base = ctx.build_subject(m_base);
    if (!base)
      return print_failure(base.error());
    progress.update(fmt::format("building {}...", m_head));
    auto head = ctx.build_subject(m_head);
    if (!head)
      return print_failure(head.error());
    ctx.session().sampler().on_run([&](const measure::RunEvent& event) {
      ctx.observe_run(event, progress);
      progress.update(fmt::format("compare: {}, last {} {}{}",
                                  counted(static_cast<std::size_t>(event.runs_made), "run", "runs"),
                                  event.subject->rev, event.warmup ? "(warm-up) " : "",
                                  event.status == store::RunStatus::ok ? "" : "failed"));
    });
    const auto settings = ctx.compare_settings();
    auto outcome = measure::compare_subjects(ctx.session().sampler(), *base, *head, settings);
    progress.clear();
    ctx.release_allocations();
    if (!outcome)
      return print_failure(outcome.error());

    evidence::Evidence evidence =
        evidence::evidence_header(global.argv, ctx.repo(), ctx.recipe(), ctx.store());
    evidence.kind = "compare";
    evidence.revisions = {m_base, m_head};
    evidence.status = evidence::verdict_status(*outcome);
    evidence.host = ctx.session().host_json();
    evidence.executor = ctx.executor_json();
    evidence.warnings = ctx.session().warnings();
    add_output_warnings(ctx, evidence, global.verbosity);
    for (const auto& build : ctx.builds())
      evidence.builds.push_back(evidence::build_entry(build));
    for (const auto& verdict : outcome->cases) {
      evidence.comparisons.push_back(
          evidence::comparison_entry(*base, *head, verdict, evidence.settings.statistic));
      for (const auto* subject : {&*base, &*head}) {
        auto m =
            evidence::measurement_entry(ctx.session().sampler(), *subject, verdict.selected,
                                        subject == &*base ? verdict.base_runs : verdict.head_runs,
                                        settings.decide.confidence, settings.decide.seed);
        if (!m)
          return print_failure(m.error());
        if (!m->runs.empty())
          evidence.measurements.push_back(std::move(*m));
      }
    }
    if (auto filled = ctx.fill_roofline(evidence); !filled)
      return print_failure(filled.error());
    std::FILE* out = summary_stream(m_flags.outputs);
    print_to(out, "{}", report::render_summary(evidence, summary_options(global.verbosity)));
    std::fflush(out);
    if (auto written = write_report_outputs(evidence, m_flags.outputs,
                                            render_options(evidence, &ctx.repo(), global.color));
        !written)
      return print_failure(written.error());
    if (evidence.status == "slower")
      return static_cast<int>(ExitCode::regression);
    if (evidence.status == "inconclusive")
      return static_cast<int>(ExitCode::inconclusive);
    return 0;
  }

private:
  std::string m_base;
  std::string m_head;
  MeasureFlags m_flags;
};

} // namespace

std::unique_ptr<Command> make_compare_command() {
  return std::make_unique<CompareCommand>();
}

} // namespace culprit::cli
