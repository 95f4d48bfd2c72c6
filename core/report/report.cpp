#include "core/report/report.hpp"

namespace culprit::report {

Result<ReportFormat> parse_report_format(std::string_view name) {
  if (name == "text")
    return ReportFormat::text;
  if (name == "markdown" || name == "md")
    return ReportFormat::markdown;
  if (name == "html")
    return ReportFormat::html;
  if (name == "junit")
    return ReportFormat::junit;
  if (name == "summary")
    return ReportFormat::summary;
  return usage_error("unknown report format '{}'; use text, markdown, html, junit or summary",
                     name);
}

std::string_view to_string(ReportFormat format) {
  switch (format) {
  case ReportFormat::markdown:
    return "markdown";
  case ReportFormat::html:
    return "html";
  case ReportFormat::junit:
    return "junit";
  case ReportFormat::summary:
    return "summary";
  default:
    return "text";
  }
}

std::string render(const evidence::Evidence& evidence, ReportFormat format,
                   const RenderOptions& options) {
  switch (format) {
  case ReportFormat::markdown:
    return render_markdown(evidence, options);
  case ReportFormat::html:
    return render_html(evidence, options);
  case ReportFormat::junit:
    return render_junit(evidence, options);
  case ReportFormat::summary:
    return render_summary(evidence, options);
  default:
    return render_text(evidence, options);
  }
}

} // namespace culprit::report
