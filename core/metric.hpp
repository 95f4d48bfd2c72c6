#pragma once
// What a benchmark reports: cases, metrics with a unit and a direction, and samples.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit {

// Which way is better. Times are lower-is-better; throughputs (bytes_per_second, GFLOP/s) are
// higher-is-better.
enum class Direction { lower_is_better, higher_is_better };

// "lower" / "higher", the spelling used in the JSON-lines format, evidence and the store.
std::string_view to_string(Direction direction);
std::optional<Direction> parse_direction(std::string_view text);

// The samples of one metric of one case, as one run (one process) reported them, in order.
// Times are always in seconds (unit "s"): parsers convert whatever unit the benchmark used.
struct CaseSamples {
  std::string case_name;
  std::string metric;
  std::string unit;
  Direction direction = Direction::lower_is_better;
  std::vector<double> values;
};

// What a benchmark says about a case besides samples: work done and its axes.
struct CaseInfo {
  std::string case_name;
  std::optional<double> flops;
  std::optional<double> bytes;
  std::map<std::string, std::string> axes;
};

// A case that the benchmark itself reported as failed (Google Benchmark's error_occurred): the
// run produced no samples for it, and saying why beats a silent gap.
struct CaseError {
  std::string case_name;
  std::string message;
};

// Everything parsed from one run's output.
struct ParsedOutput {
  std::vector<CaseSamples> samples;
  std::vector<CaseInfo> cases;
  std::vector<CaseError> errors;
  std::vector<std::string> warnings;
};

} // namespace culprit
