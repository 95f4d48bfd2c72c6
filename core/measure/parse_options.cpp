#include "core/measure/parse_options.hpp"

namespace culprit::measure {

Result<parsers::ParseOptions> parse_options_for(const recipe::RunRecipe& run) {
  parsers::ParseOptions options;
  CULPRIT_TRY_ASSIGN(options.format, parsers::parse_output_format(run.format));
  parsers::Direction direction = parsers::Direction::lower_is_better;
  if (!run.direction.empty()) {
    const auto parsed = parsers::parse_direction(run.direction);
    if (!parsed)
      return usage_error("direction '{}' must be lower or higher", run.direction);
    direction = *parsed;
  }
  switch (options.format) {
  case parsers::OutputFormat::csv:
    if (run.column.empty() || run.case_columns.empty())
      return usage_error("the csv format needs [run] column (the value) and case_columns (what "
                         "names a case)");
    options.csv.value_column = run.column;
    options.csv.case_columns = run.case_columns;
    options.csv.unit = run.unit;
    options.csv.metric = run.metric;
    options.csv.direction = direction;
    break;
  case parsers::OutputFormat::regex:
    if (run.pattern.empty())
      return usage_error("the regex format needs [run] pattern, with one capture group for the "
                         "value (or named groups case and value)");
    options.regex.pattern = run.pattern;
    options.regex.unit = run.unit;
    options.regex.metric = run.metric;
    options.regex.direction = direction;
    // An invalid pattern is the recipe's mistake: say so now, not after five runs.
    if (auto probe = parsers::parse_regex_lines("", options.regex);
        !probe && probe.error().code == ExitCode::usage)
      return std::unexpected(probe.error());
    break;
  default:
    break;
  }
  return options;
}

} // namespace culprit::measure
