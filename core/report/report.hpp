#pragma once
// Reports people read, rendered from the evidence document. Each renderer is a pure function
// from an Evidence value to a string: no I/O, no clock, no environment, so that the same
// evidence gives the same bytes (tested against golden files in tests/fixtures/report/).
// Every string that came from outside culprit is escaped for the format (core/util/escape.hpp).

#include <string>
#include <string_view>

#include "core/evidence/evidence.hpp"
#include "core/report/view.hpp"
#include "core/util/error.hpp"

namespace culprit::report {

enum class ReportFormat { text, markdown, html, junit, summary };

// "text", "markdown" (or "md"), "html", "junit", "summary"; anything else is a usage error listing
// them.
Result<ReportFormat> parse_report_format(std::string_view name);
std::string_view to_string(ReportFormat format);

// For a terminal or a log: aligned plain text, control characters made visible.
std::string render_text(const evidence::Evidence& evidence, const RenderOptions& options = {});
// For a pull-request comment or a bug: the verdict on the first line, a table of cases, the
// culprits with owners, the command that reproduces it, the environment, raw numbers folded.
std::string render_markdown(const evidence::Evidence& evidence, const RenderOptions& options = {});
// One self-contained page (no network, scripts, external styles or fonts) with inline SVG
// plots: the bisection path, a forest plot of ratios, and samples in run order.
std::string render_html(const evidence::Evidence& evidence, const RenderOptions& options = {});
// JUnit XML: one test case per benchmark case; slower is a failure, inconclusive is skipped.
std::string render_junit(const evidence::Evidence& evidence, const RenderOptions& options = {});
// GitHub Actions workflow commands, one line each: ::error for slower cases and culprits,
// ::warning for inconclusive ones; empty when there is nothing to flag.
std::string github_annotations(const evidence::Evidence& evidence);

// What the machine did to the measurements, one line each, plain text with outside text made
// terminal-safe: per case, the interference its samples show ("noise: CASE: two speed states
// ...") and which statistic of each run then decided it; a slow-tail change beside the verdict
// ("tail: CASE: ..."); how many blocks ran as duets. Empty when there is nothing to say.
std::string render_noise_lines(const evidence::Evidence& evidence);

// What the command that wrote the evidence printed when it ended, byte for byte given the same
// options (its -q or -v as `detail`, its --json file as `evidence_file`): run's case table,
// compare's verdict table, bisect's culprits, track's counts and anchors, each with the
// roofline, noise, reuse and Slurm lines the command adds. Evidence of a command that failed or was
// interrupted (which printed an error), and other kinds (a triage's common part), get the text
// report.
std::string render_summary(const evidence::Evidence& evidence, const RenderOptions& options = {});
// What `culprit triage` printed, from its document (core/evidence/triage_document.hpp): each
// finding with its regression record and cases, the change points left open, the records not
// bisected, fixed or gone, and the counts. Keys of another type than written read as empty.
std::string render_triage_summary(const nlohmann::json& document,
                                  const RenderOptions& options = {});
// The Slurm allocations that measured, from the evidence's executor object: "measured on 2 Slurm
// allocations: job 41 on node3, job 42 on node5 (1 retried)"; empty for local runs.
std::string render_executor_line(const nlohmann::json& executor);

std::string render(const evidence::Evidence& evidence, ReportFormat format,
                   const RenderOptions& options = {});

} // namespace culprit::report
