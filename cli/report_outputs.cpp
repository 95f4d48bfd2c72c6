#include "cli/report_outputs.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <utility>
#include <vector>

#include <unistd.h>

#include "cli/output.hpp"
#include "core/report/report.hpp"
#include "core/util/escape.hpp"
#include "core/util/fs.hpp"
#include "core/util/json_text.hpp"

namespace culprit::cli {
Status check_output_path(const std::string& file, std::string_view flag) {
  if (file.empty() || file == "-")
    return {};
  const auto dir = std::filesystem::path(file).parent_path();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
    return usage_error("{} {}: the directory {} does not exist; create it or choose another path",
                       flag, file, dir.string());
  if (std::filesystem::is_directory(file, ec))
    return usage_error("{} {}: that is a directory; give a file name", flag, file);
  return {};
}

Status check_outputs(std::span<const NamedOutput> outputs) {
  std::vector<std::pair<const NamedOutput*, std::filesystem::path>> seen;
  for (const auto& output : outputs) {
    if (output.file.empty())
      continue;
    CULPRIT_TRY(check_output_path(std::string(output.file), output.flag));
    std::error_code ec;
    auto path = output.file == "-" ? std::filesystem::path("-")
                                   : std::filesystem::weakly_canonical(output.file, ec);
    if (ec)
      path = std::filesystem::absolute(output.file).lexically_normal();
    for (const auto& [other, other_path] : seen) {
      if (other_path != path)
        continue;
      if (output.file == "-")
        return usage_error("{} - and {} - would both write to standard output; send one of them "
                           "to a file",
                           other->flag, output.flag);
      return usage_error("{} and {} both name {}; give each output a file of its own", other->flag,
                         output.flag, excerpt(output.file, 200));
    }
    seen.emplace_back(&output, std::move(path));
  }
  return {};
}

bool any_to_stdout(std::span<const NamedOutput> outputs) {
  return std::ranges::any_of(outputs, [](const NamedOutput& output) { return output.file == "-"; });
}

Status write_output(const std::string& file, std::string_view contents) {
  return file == "-" ? write_stdout(contents) : write_file_atomic(file, contents);
}

Status write_output(const std::string& file, const NextPiece& next) {
  if (file != "-")
    return write_file_atomic(file, next);
  while (const auto piece = next())
    CULPRIT_TRY(write_stdout(*piece));
  return {};
}

std::array<NamedOutput, 4> ReportOutputs::named() const {
  return {NamedOutput{"--json", json}, NamedOutput{"--markdown", markdown},
          NamedOutput{"--html", html}, NamedOutput{"--junit", junit}};
}

Status ReportOutputs::check() const {
  return check_outputs(named());
}

bool ReportOutputs::any() const {
  return !json.empty() || !markdown.empty() || !html.empty() || !junit.empty();
}

void add_report_output_flags(CLI::App& sub, ReportOutputs& outputs) {
  sub.add_option("--json", outputs.json, "write the evidence JSON to FILE ('-': stdout)")
      ->option_text("FILE")
      ->group("Output");
  sub.add_option("--markdown", outputs.markdown,
                 "write a Markdown report to FILE, for a pull request or a bug ('-': stdout)")
      ->option_text("FILE")
      ->group("Output");
  sub.add_option("--html", outputs.html,
                 "write a self-contained HTML report with plots to FILE ('-': stdout)")
      ->option_text("FILE")
      ->group("Output");
  sub.add_option("--junit", outputs.junit,
                 "write JUnit XML to FILE, one test case per benchmark case ('-': stdout)")
      ->option_text("FILE")
      ->group("Output");
}

report::RenderOptions render_options(const evidence::Evidence& evidence,
                                     const git::Repository* repo, ColorWhen color,
                                     std::FILE* stream) {
  report::RenderOptions options;
  const bool no_color = std::getenv("NO_COLOR") != nullptr && *std::getenv("NO_COLOR") != '\0';
  options.color = color == ColorWhen::always ||
                  (color == ColorWhen::automatic && !no_color && isatty(fileno(stream)) != 0);
  if (repo != nullptr && evidence.bisect)
    if (auto range =
            repo->range(evidence.bisect->good, evidence.bisect->bad, git::History::full_dag))
      options.commit_order = std::move(*range);
  return options;
}

report::RenderOptions summary_options(Verbosity verbosity, const std::string& json) {
  report::RenderOptions options;
  options.detail = verbosity == Verbosity::quiet     ? report::Detail::quiet
                   : verbosity == Verbosity::verbose ? report::Detail::verbose
                                                     : report::Detail::normal;
  options.evidence_file = json == "-" ? "standard output" : json;
  return options;
}

std::FILE* summary_stream(const ReportOutputs& outputs) {
  return any_to_stdout(outputs.named()) ? stderr : stdout;
}

Status write_report_outputs(const evidence::Evidence& evidence, const ReportOutputs& outputs,
                            const report::RenderOptions& options) {
  CULPRIT_TRY(outputs.check());
  auto plain = options;
  plain.color = false;
  std::vector<std::pair<std::string, std::string>> documents; // file, contents
  if (!outputs.json.empty())
    documents.emplace_back(outputs.json, json_text(to_json(evidence), 2) + "\n");
  if (!outputs.markdown.empty())
    documents.emplace_back(outputs.markdown, report::render_markdown(evidence, plain));
  if (!outputs.html.empty())
    documents.emplace_back(outputs.html, report::render_html(evidence, plain));
  if (!outputs.junit.empty())
    documents.emplace_back(outputs.junit, report::render_junit(evidence, plain));
  for (const auto& [file, contents] : documents)
    CULPRIT_TRY(write_output(file, contents));
  const bool to_stdout = any_to_stdout(outputs.named());
  if (const char* actions = std::getenv("GITHUB_ACTIONS"); actions != nullptr && *actions != '\0') {
    const auto annotations = report::github_annotations(evidence);
    write_to(to_stdout ? stderr : stdout, annotations);
    std::fflush(to_stdout ? stderr : stdout);
  }
  return {};
}

} // namespace culprit::cli
