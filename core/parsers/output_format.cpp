#include "core/parsers/output_format.hpp"

#include <array>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "core/parsers/culprit_jsonl.hpp"
#include "core/parsers/json_support.hpp"
#include "core/parsers/parse_support.hpp"

namespace culprit::parsers {
namespace {

constexpr std::array<std::pair<OutputFormat, std::string_view>, 7> k_names = {{
    {OutputFormat::auto_detect, "auto"},
    {OutputFormat::culprit, "culprit"},
    {OutputFormat::gbench, "gbench"},
    {OutputFormat::nvbench, "nvbench"},
    {OutputFormat::csv, "csv"},
    {OutputFormat::regex, "regex"},
    {OutputFormat::time, "time"},
}};

constexpr std::string_view k_detect = "output format";
constexpr std::string_view k_formats_hint = "give --format culprit, gbench, nvbench, csv (with its "
                                            "columns), regex (with a pattern) or time";

// Google Benchmark's console table or nvbench's markdown where their JSON was wanted: the
// usual first mistake, and one that no number of runs will fix. Says what to add, or nothing.
std::optional<std::string> console_text_hint(std::string_view text) {
  LineReader lines(text);
  for (int seen = 0; seen < 200; ++seen) {
    const auto line = lines.next();
    if (!line)
      break;
    if (line->starts_with("Run on (") ||
        (line->starts_with("Benchmark ") && line->find("Iterations") != std::string_view::npos))
      return "the output is Google Benchmark's console table, not its JSON: add "
             "--benchmark_format=json to the run command ([run] command)";
    if (line->starts_with("# Benchmark Results") || line->starts_with("# Devices") ||
        (line->starts_with("|") && line->find("GPU Time") != std::string_view::npos))
      return "the output is nvbench's markdown, not its JSON: add --json stdout --md stderr to "
             "the run command ([run] command)";
  }
  return std::nullopt;
}

struct Detected {
  OutputFormat format = OutputFormat::culprit;
  std::optional<Json> document; // for gbench and nvbench, parsed once
  std::vector<std::string> warnings;
};

Result<Detected> detect(std::string_view text) {
  Detected detected;
  if (looks_like_culprit_jsonl(text))
    return detected;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos)
    return output_error(k_detect, "line 1", fmt::format("the output is empty; {}", k_formats_hint));
  const bool starts_as_json = text[first] == '{';
  const auto fixed = replace_non_finite_literals(text);
  auto document =
      parse_json_document(fixed ? std::string_view(*fixed) : text, k_detect, detected.warnings);
  if (!document) {
    if (starts_as_json)
      return std::unexpected(document.error());
    if (auto hint = console_text_hint(text))
      return usage_error("{}", *hint);
    LineReader lines(text);
    return output_error(k_detect, "line 1",
                        fmt::format("not culprit JSON lines, Google Benchmark JSON or nvbench "
                                    "JSON (the output starts with \"{}\"); {}",
                                    printable(lines.next().value_or("")), k_formats_hint));
  }
  if (looks_like_gbench(*document))
    detected.format = OutputFormat::gbench;
  else if (looks_like_nvbench(*document))
    detected.format = OutputFormat::nvbench;
  else
    return output_error(k_detect, "top level",
                        fmt::format("a JSON document, but neither Google Benchmark's (\"context\" "
                                    "and \"benchmarks\") nor nvbench's (\"benchmarks\" with "
                                    "\"states\"); {}",
                                    k_formats_hint));
  detected.document = std::move(*document);
  return detected;
}

Result<ParsedOutput> parse_detected(std::string_view text, const ParseOptions& options) {
  CULPRIT_TRY_ASSIGN(Detected detected, detect(text));
  Result<ParsedOutput> output = std::unexpected(Error{});
  if (detected.format == OutputFormat::gbench)
    output = read_gbench_document(*detected.document, options.gbench);
  else if (detected.format == OutputFormat::nvbench)
    output = read_nvbench_document(*detected.document, options.nvbench);
  else
    output = parse_culprit_jsonl(text);
  if (output)
    output->warnings.insert(output->warnings.begin(), detected.warnings.begin(),
                            detected.warnings.end());
  return output;
}

} // namespace

std::string_view to_string(OutputFormat format) {
  for (const auto& [value, name] : k_names) {
    if (value == format)
      return name;
  }
  return "unknown";
}

Result<OutputFormat> parse_output_format(std::string_view name) {
  for (const auto& [value, known] : k_names) {
    if (known == name)
      return value;
  }
  return usage_error("unknown output format '{}'; expected one of auto, culprit, gbench, "
                     "nvbench, csv, regex, time",
                     printable(name));
}

Result<OutputFormat> detect_output_format(std::string_view text) {
  CULPRIT_TRY_ASSIGN(const Detected detected, detect(text));
  return detected.format;
}

Result<ParsedOutput> parse_output_text(std::string_view text, const ParseOptions& options) {
  switch (options.format) {
  case OutputFormat::auto_detect:
    return parse_detected(text, options);
  case OutputFormat::culprit:
    return parse_culprit_jsonl(text);
  case OutputFormat::gbench:
  case OutputFormat::nvbench: {
    auto output = options.format == OutputFormat::gbench
                      ? parse_gbench_json(text, options.gbench)
                      : parse_nvbench_json(text, options.nvbench);
    if (!output)
      if (auto hint = console_text_hint(text))
        return usage_error("{}", *hint);
    return output;
  }
  case OutputFormat::csv:
    return parse_csv_table(text, options.csv);
  case OutputFormat::regex:
    return parse_regex_lines(text, options.regex);
  case OutputFormat::time:
    break;
  }
  return usage_error("the time format reads a run's times, not its output");
}

Result<ParsedOutput> parse_run_output(const exec::ExecResult& result, const ParseOptions& options) {
  if (options.format == OutputFormat::time)
    return parse_process_time(result, options.time);
  auto output = parse_output_text(result.out, options);
  if (!result.out_truncated)
    return output;
  const auto cut = fmt::format("standard output was cut at {} of {} bytes by the output limit",
                               result.out.size(), result.out_bytes);
  if (!output) {
    output.error().message += fmt::format(" ({}; raise the limit)", cut);
    return output;
  }
  output->warnings.push_back(cut + "; the samples are from what was kept");
  return output;
}

} // namespace culprit::parsers
