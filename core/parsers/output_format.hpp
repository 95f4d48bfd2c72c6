#pragma once
// Turning a run's output into samples: the formats culprit reads, detection for --format auto,
// and one entry point that the measurement loop calls.
//
// Detection (--format auto) looks at stdout:
// 1. a line whose first non-blank character is '{' and that is a JSON object with a string
//    "type": culprit JSON lines;
// 2. otherwise a JSON object (after any lines of other output) with "benchmarks" and "context":
//    Google Benchmark; with "benchmarks" whose entries have "states": nvbench;
// 3. otherwise an error that lists the formats (csv, regex and time are never guessed: they need
//    options).

#include <string_view>

#include "core/exec/executor.hpp"
#include "core/parsers/csv_table.hpp"
#include "core/parsers/gbench_json.hpp"
#include "core/parsers/metric.hpp"
#include "core/parsers/nvbench_json.hpp"
#include "core/parsers/process_time.hpp"
#include "core/parsers/regex_lines.hpp"
#include "core/util/error.hpp"

namespace culprit::parsers {

enum class OutputFormat { auto_detect, culprit, gbench, nvbench, csv, regex, time };

// "auto", "culprit", "gbench", "nvbench", "csv", "regex", "time".
[[nodiscard]] std::string_view to_string(OutputFormat format);
// The inverse; an unknown name is a usage error that lists the names.
[[nodiscard]] Result<OutputFormat> parse_output_format(std::string_view name);

struct ParseOptions {
  OutputFormat format = OutputFormat::auto_detect;
  GbenchOptions gbench;
  NvbenchOptions nvbench;
  CsvOptions csv;
  RegexOptions regex;
  TimeOptions time;
};

// culprit, gbench or nvbench for `text`, by the rules above.
[[nodiscard]] Result<OutputFormat> detect_output_format(std::string_view text);

// Parses `text` (a run's stdout) in options.format; the time format needs a run, not text, and
// is a usage error here.
[[nodiscard]] Result<ParsedOutput> parse_output_text(std::string_view text,
                                                     const ParseOptions& options);

// Parses a run: its stdout, or for the time format its times. When stdout was cut by the output
// limit, success carries a warning and an error says so.
[[nodiscard]] Result<ParsedOutput> parse_run_output(const exec::ExecResult& result,
                                                    const ParseOptions& options);

} // namespace culprit::parsers
