#include "core/parsers/csv_table.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/parsers/csv_records.hpp"
#include "core/parsers/parse_support.hpp"

namespace culprit::parsers {
namespace {

constexpr std::string_view k_csv_format = "CSV";
struct Columns {
  std::vector<std::size_t> cases;
  std::size_t value = 0;
};

// The positions of the wanted columns in `header`, when it has all of them.
std::optional<Columns> find_columns(const std::vector<std::string>& header,
                                    const CsvOptions& options) {
  const auto position = [&](const std::string& name) -> std::optional<std::size_t> {
    const auto at = std::find(header.begin(), header.end(), name);
    if (at == header.end())
      return std::nullopt;
    return static_cast<std::size_t>(at - header.begin());
  };
  Columns columns;
  for (const auto& name : options.case_columns) {
    const auto at = position(name);
    if (!at)
      return std::nullopt;
    columns.cases.push_back(*at);
  }
  const auto value = position(options.value_column);
  if (!value)
    return std::nullopt;
  columns.value = *value;
  return columns;
}

class TableReader {
public:
  TableReader(const CsvOptions& options, std::vector<std::string> header, Columns columns,
              std::size_t header_line)
      : m_options(options), m_header(std::move(header)), m_columns(std::move(columns)),
        m_header_line(header_line),
        m_metric(options.metric.empty() ? options.value_column : options.metric) {}

  Status read(const std::vector<std::string>& row, std::size_t line) {
    if (row == m_header || (row.size() == 1 && row.front().empty()))
      return {};
    if (row.size() != m_header.size())
      return output_error(k_csv_format, fmt::format("line {}", line),
                          fmt::format("{} fields, but the header on line {} has {}", row.size(),
                                      m_header_line, m_header.size()));
    const std::string& text = row[m_columns.value];
    if (text.find_first_not_of(" \t") == std::string::npos) {
      ++m_empty_values;
      return {};
    }
    const auto value = parse_number(text);
    if (!value)
      return output_error(k_csv_format,
                          fmt::format("line {}, column {}", line, m_options.value_column),
                          fmt::format("expected a number, found \"{}\"", printable(text)));
    CaseInfo info;
    info.case_name = row[m_columns.cases.front()];
    for (std::size_t i = 1; i < m_columns.cases.size(); ++i) {
      const auto& name = m_options.case_columns[i];
      const auto& axis = row[m_columns.cases[i]];
      info.case_name += fmt::format("{}{}={}", i == 1 ? "/" : ",", name, axis);
      info.axes.emplace(name, axis);
    }
    if (info.case_name.empty())
      return output_error(k_csv_format,
                          fmt::format("line {}, column {}", line, m_options.case_columns.front()),
                          "the case name is empty");
    if (auto added =
            m_table.add(info.case_name, m_metric, m_options.unit, m_options.direction, *value);
        !added)
      return output_error(k_csv_format, fmt::format("line {}", line), added.error().message);
    if (m_columns.cases.size() > 1 && m_described.insert(info.case_name).second)
      m_output.cases.push_back(std::move(info));
    return {};
  }

  Result<ParsedOutput> finish() {
    if (m_empty_values > 0)
      m_output.warnings.push_back(fmt::format("{}: {} rows with an empty {} were skipped",
                                              k_csv_format, m_empty_values,
                                              m_options.value_column));
    if (m_table.empty())
      return output_error(k_csv_format, fmt::format("line {}", m_header_line),
                          fmt::format("no row with a value under the header"));
    m_output.samples = m_table.take();
    return std::move(m_output);
  }

private:
  const CsvOptions& m_options;
  std::vector<std::string> m_header;
  Columns m_columns;
  std::size_t m_header_line;
  std::string m_metric;
  SampleTable m_table;
  ParsedOutput m_output;
  std::set<std::string, std::less<>> m_described;
  std::size_t m_empty_values = 0;
};

Status check(const CsvOptions& options) {
  if (options.case_columns.empty() || options.value_column.empty())
    return usage_error("the csv format needs a case column and a value column");
  if (options.delimiter == '"' || options.delimiter == '\n' || options.delimiter == '\r')
    return usage_error("the csv delimiter cannot be a quote or a line break");
  return {};
}

} // namespace

Result<ParsedOutput> parse_csv_table(std::string_view text, const CsvOptions& options) {
  CULPRIT_TRY(check(options));
  LineReader lines(text);
  std::optional<TableReader> table;
  std::size_t body = text.size();
  while (const auto line = lines.next()) {
    CsvRecords lenient(0, options.delimiter);
    lenient.feed(*line);
    lenient.finish();
    auto records = lenient.take();
    if (records.empty())
      continue;
    if (auto columns = find_columns(records.front(), options)) {
      table.emplace(options, std::move(records.front()), std::move(*columns), lines.number());
      body = lines.end_offset();
      break;
    }
  }
  if (!table) {
    std::string wanted;
    for (const auto& name : options.case_columns)
      wanted += name + ", ";
    return output_error(
        k_csv_format, fmt::format("{} lines", lines.number()),
        fmt::format("no header line names the columns {}{}", wanted, options.value_column));
  }

  CsvRecords strict(CSV_STRICT | CSV_STRICT_FINI, options.delimiter);
  LineReader rest(text.substr(body));
  const std::size_t first_line = lines.number();
  std::size_t line_number = first_line;
  while (const auto line = rest.next()) {
    line_number = first_line + rest.number();
    const std::string chunk = std::string(*line) + '\n';
    if (const auto taken = strict.feed(chunk))
      return output_error(k_csv_format, fmt::format("line {}, column {}", line_number, *taken + 1),
                          "malformed quoting: a quote inside an unquoted field, or text after a "
                          "closing quote");
    for (const auto& record : strict.take())
      CULPRIT_TRY(table->read(record, line_number));
  }
  if (!strict.finish())
    return output_error(k_csv_format, fmt::format("line {}", line_number),
                        "a quoted field is not closed at the end of the output");
  for (const auto& record : strict.take())
    CULPRIT_TRY(table->read(record, line_number));
  return table->finish();
}

} // namespace culprit::parsers
