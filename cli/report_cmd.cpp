// culprit report EVIDENCE.json: render an evidence document as text, Markdown, HTML or JUnit.

#include <array>
#include <cstdio>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/report_outputs.hpp"
#include "core/report/report.hpp"
#include "core/util/fs.hpp"

namespace culprit::cli {
namespace {

class ReportCommand final : public Command {
public:
  void add_flags(CLI::App& sub) override {
    sub.add_option("evidence", m_evidence, "the evidence JSON that --json wrote")
        ->required()
        ->option_text("EVIDENCE.json");
    sub.add_option("--format", m_format,
                   "text (default), markdown, html, junit, or summary: what the command printed")
        ->option_text("FORMAT");
    sub.add_option("-o,--output", m_output, "write to FILE instead of stdout (atomically)")
        ->option_text("FILE");
    add_report_output_flags(sub, m_outputs);
  }

  int run(const GlobalOptions& global) override {
    // With only output flags (--markdown FILE, ...), nothing else is printed.
    const bool main_output = !m_outputs.any() || !m_format.empty() || !m_output.empty();
    auto format = report::parse_report_format(m_format.empty() ? "text" : m_format);
    if (!format)
      return print_failure(format.error());
    // The report itself goes to -o FILE, or to standard output.
    const std::string main_file = !main_output ? "" : m_output.empty() ? "-" : m_output;
    const std::array<NamedOutput, 5> outputs = {
        NamedOutput{m_output.empty() ? "--format" : "-o", main_file},
        NamedOutput{"--json", m_outputs.json}, NamedOutput{"--markdown", m_outputs.markdown},
        NamedOutput{"--html", m_outputs.html}, NamedOutput{"--junit", m_outputs.junit}};
    if (auto writable = check_outputs(outputs); !writable)
      return print_failure(writable.error());
    // The JSON is kept: a triage document's summary comes from its own keys.
    auto document = evidence::load_evidence_json(m_evidence);
    auto evidence = document ? evidence::evidence_from_json(*document)
                             : Result<evidence::Evidence>(std::unexpected(document.error()));
    if (!evidence) {
      auto error = evidence.error();
      if (error.message.find(m_evidence) == std::string::npos)
        error.message = fmt::format("{}: {}", m_evidence, error.message);
      return print_failure(error);
    }
    // The repository gives a bisection's commits in order; without it the order is inferred.
    auto repo =
        git::Repository::open(evidence->repo_path.empty() ? global.repo : evidence->repo_path);
    if (!repo && !evidence->repo_path.empty())
      repo = git::Repository::open(global.repo);
    const bool to_file = !m_output.empty() && m_output != "-";
    auto options = render_options(
        *evidence, repo ? &*repo : nullptr,
        to_file || *format != report::ReportFormat::text ? ColorWhen::never : global.color);
    // The summary as the command printed it: with its -q or -v, and naming this file where its
    // evidence is.
    const auto as_printed = summary_options(global.verbosity, m_evidence);
    options.detail = as_printed.detail;
    options.evidence_file = as_printed.evidence_file;
    if (m_outputs.any())
      if (auto written = write_report_outputs(*evidence, m_outputs, options); !written)
        return print_failure(written.error());
    if (!main_output)
      return static_cast<int>(ExitCode::success);
    const auto text = *format == report::ReportFormat::summary && evidence->kind == "triage"
                          ? report::render_triage_summary(*document, options)
                          : report::render(*evidence, *format, options);
    if (auto written = write_output(m_output.empty() ? "-" : m_output, text); !written)
      return print_failure(written.error());
    return static_cast<int>(ExitCode::success);
  }

private:
  std::string m_evidence;
  std::string m_format;
  std::string m_output;
  ReportOutputs m_outputs;
};

} // namespace

std::unique_ptr<Command> make_report_command() {
  return std::make_unique<ReportCommand>();
}

} // namespace culprit::cli
