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

enum class ReportFormat { text, markdown, html, junit };

// "text", "markdown" (or "md"), "html", "junit"; anything else is a usage error listing them.
Result<ReportFormat> parse_report_format(std::string_view name);
std::string_view to_string(ReportFormat format);

// For a terminal or a log: aligned plain text, control characters made visible.
std::string render_text(const Evidence& evidence, const RenderOptions& options = {});
// For a pull-request comment or a bug: the verdict on the first line, a table of cases, the
// culprits with owners, the command that reproduces it, the environment, raw numbers folded.
std::string render_markdown(const Evidence& evidence, const RenderOptions& options = {});
// One self-contained page (no network, scripts, external styles or fonts) with inline SVG
// plots: the bisection path, a forest plot of ratios, and samples in run order.
std::string render_html(const Evidence& evidence, const RenderOptions& options = {});
// JUnit XML: one test case per benchmark case; slower is a failure, inconclusive is skipped.
std::string render_junit(const Evidence& evidence, const RenderOptions& options = {});
// GitHub Actions workflow commands, one line each: ::error for slower cases and culprits,
// ::warning for inconclusive ones; empty when there is nothing to flag.
std::string github_annotations(const Evidence& evidence);

// What the machine did to the measurements, one line each, plain text with outside text made
// terminal-safe: per case, the interference its samples show ("noise: CASE: two speed states
// ...") and which statistic of each run then decided it; a slow-tail change beside the verdict
// ("tail: CASE: ..."); how many blocks ran as duets. Empty when there is nothing to say.
std::string render_noise_lines(const Evidence& evidence);

std::string render(const Evidence& evidence, ReportFormat format,
                   const RenderOptions& options = {});

} // namespace culprit::report
