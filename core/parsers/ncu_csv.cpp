#include "core/parsers/ncu_csv.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "core/parsers/csv_records.hpp"

namespace culprit::parsers {
namespace {

struct NcuMetric {
  std::string_view ncu; // ncu's name
  std::string_view name;
  std::string_view unit;
  Direction direction;
};

constexpr std::array<NcuMetric, 6> k_metrics = {{
    {"smsp__inst_executed.sum", "gpu_instructions", "", Direction::lower_is_better},
    {"dram__bytes_read.sum", "dram_bytes_read", "bytes", Direction::lower_is_better},
    {"dram__bytes_write.sum", "dram_bytes_written", "bytes", Direction::lower_is_better},
    {"lts__t_sector_hit_rate.pct", "l2_hit_rate", "%", Direction::higher_is_better},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved_occupancy", "%",
     Direction::higher_is_better},
    {"sm__cycles_elapsed.avg", "sm_cycles", "", Direction::lower_is_better},
}};

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The length of an operator's symbol that starts at `at`, just after the word "operator", blanks
// before it included: "()" and "[]", a run of operator characters (">>", "<=>", "->*"; the
// demangler writes "operator< <int>" for a template of operator<, so a run stops at a blank), or
// the words of "new", "delete[]" and a conversion to a named type; with the blanks before a
// template argument list of the operator's own.
std::size_t operator_symbol(std::string_view name, std::size_t at) {
  std::size_t i = at;
  while (i < name.size() && name[i] == ' ')
    ++i;
  const auto rest = name.substr(i);
  if (rest.starts_with("()") || rest.starts_with("[]"))
    return i + 2 - at;
  if (i < name.size() && is_word_char(name[i])) {
    while (i < name.size() && is_word_char(name[i]))
      ++i;
    if (name.substr(i).starts_with("[]"))
      i += 2;
    return i - at;
  }
  while (i < name.size() &&
         std::string_view("+-*/%^&|~!=<>,").find(name[i]) != std::string_view::npos)
    ++i;
  // The blank the demangler puts between "operator<" and its template arguments is the name's.
  auto after = i;
  while (after < name.size() && name[after] == ' ')
    ++after;
  if (after > i && after < name.size() && name[after] == '<')
    i = after;
  return i - at;
}

// "void saxpy_kernel<4>(int, float*)" -> "saxpy_kernel<4>": no return type, no parameters. The
// parameters start at the first parenthesis outside template arguments, the return type ends at
// the last blank outside them before it; an operator's symbol ("operator>>", "operator()") and
// "(anonymous namespace)" are part of the name, whatever brackets they hold.
std::string kernel_case(std::string_view name) {
  constexpr std::string_view k_operator = "operator";
  constexpr std::string_view k_anonymous = "(anonymous namespace)";
  int depth = 0;
  std::size_t start = 0;
  std::size_t end = name.size();
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto rest = name.substr(i);
    if (rest.starts_with(k_operator) && (i == 0 || !is_word_char(name[i - 1])) &&
        (rest.size() == k_operator.size() || !is_word_char(rest[k_operator.size()]))) {
      i += k_operator.size() + operator_symbol(name, i + k_operator.size()) - 1;
      continue;
    }
    if (rest.starts_with(k_anonymous)) {
      i += k_anonymous.size() - 1;
      continue;
    }
    const char c = name[i];
    if (c == '(' && depth == 0) {
      end = i;
      break;
    }
    if (c == '<' || c == '(' || c == '[')
      ++depth;
    else if (c == '>' || c == ')' || c == ']')
      --depth;
    else if (c == ' ' && depth == 0)
      start = i + 1;
  }
  if (start > end)
    start = end;
  const auto kept = name.substr(start, end - start);
  const auto first = kept.find_first_not_of(' ');
  if (first == std::string_view::npos)
    return {};
  return std::string(kept.substr(first, kept.find_last_not_of(' ') - first + 1));
}

// "1,234,567.50" in `unit` as a number of the metric's base unit.
std::optional<double> value_of(std::string text, std::string_view unit) {
  std::erase(text, ',');
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  // from_chars reads "nan" and "inf", which no metric can be.
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() ||
      !std::isfinite(value))
    return std::nullopt;
  constexpr std::array<std::pair<std::string_view, double>, 3> prefixes = {
      {{"Kbyte", 1e3}, {"Mbyte", 1e6}, {"Gbyte", 1e9}}};
  for (const auto& [prefix, scale] : prefixes)
    if (unit == prefix)
      value *= scale;
  return value;
}

std::optional<std::size_t> column(const std::vector<std::string>& header, std::string_view name) {
  const auto found = std::ranges::find(header, name);
  if (found == header.end())
    return std::nullopt;
  return static_cast<std::size_t>(found - header.begin());
}

} // namespace

std::string_view ncu_metrics() {
  return "smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
         "lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,"
         "sm__cycles_elapsed.avg";
}

bool is_ncu_metric(std::string_view metric) {
  return std::ranges::any_of(k_metrics, [&](const auto& m) { return m.name == metric; });
}

Result<std::vector<CaseSamples>> parse_ncu_csv(std::string_view text) {
  // ncu's own lines ("==PROF== Connected to process", "==ERROR== ...") and the program's are
  // not CSV: the table starts at its header.
  const auto header_at = text.find("\"ID\",");
  if (header_at == std::string_view::npos) {
    const auto error = text.find("==ERROR==");
    if (error != std::string_view::npos)
      return infra_error("ncu could not profile the run: {}",
                         text.substr(error, text.find('\n', error) - error));
    return infra_error("ncu wrote no CSV table (no header row with \"ID\", \"Kernel Name\", "
                       "\"Metric Name\", \"Metric Value\")");
  }
  const auto line_of = [&](std::size_t record) { return record + 1; };
  CsvRecords reader(CSV_STRICT | CSV_STRICT_FINI, ',');
  std::vector<std::vector<std::string>> records;
  std::string_view rest = text.substr(header_at);
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    const auto line = rest.substr(0, end == std::string_view::npos ? rest.size() : end + 1);
    rest.remove_prefix(line.size());
    if (line.starts_with("==")) // ncu's own messages between the rows
      continue;
    if (reader.feed(line))
      return infra_error("ncu's CSV: malformed quoting in row {}", records.size() + 1);
    for (auto& record : reader.take())
      records.push_back(std::move(record));
  }
  if (!reader.finish())
    return infra_error("ncu's CSV ends inside a quoted field");
  for (auto& record : reader.take())
    records.push_back(std::move(record));
  const auto& header = records.front();
  const auto id = column(header, "ID");
  const auto kernel = column(header, "Kernel Name");
  const auto name = column(header, "Metric Name");
  const auto unit = column(header, "Metric Unit");
  const auto value = column(header, "Metric Value");
  if (!id || !kernel || !name || !unit || !value)
    return infra_error("ncu's CSV header lacks one of \"ID\", \"Kernel Name\", \"Metric Name\", "
                       "\"Metric Unit\", \"Metric Value\"; give ncu --csv its default page");
  // kernel -> metric -> (sum, launches), in the order the kernels first ran.
  std::vector<std::string> order;
  std::map<std::string, std::map<std::string_view, std::pair<double, int>>> by_kernel;
  for (std::size_t i = 1; i < records.size(); ++i) {
    const auto& row = records[i];
    if (row.size() == 1 && row[0].empty())
      continue;
    if (row.size() != header.size())
      return infra_error("ncu's CSV row {} has {} fields where the header has {}", line_of(i),
                         row.size(), header.size());
    const auto metric = std::ranges::find(k_metrics, row[*name], &NcuMetric::ncu);
    if (metric == k_metrics.end())
      continue;
    const auto number = value_of(row[*value], row[*unit]);
    if (!number)
      return infra_error("ncu's CSV row {}: {} of {} is '{}', not a number", line_of(i), row[*name],
                         row[*kernel].substr(0, 80), row[*value].substr(0, 40));
    // Every metric culprit asks for is a count, a number of bytes or a percentage.
    if (*number < 0)
      return infra_error("ncu's CSV row {}: {} of {} is '{}', a negative count, which no kernel "
                         "can have",
                         line_of(i), row[*name], row[*kernel].substr(0, 80),
                         row[*value].substr(0, 40));
    const auto kernel_name = kernel_case(row[*kernel]);
    if (kernel_name.empty())
      return infra_error("ncu's CSV row {} names no kernel (its \"Kernel Name\" is '{}')",
                         line_of(i), row[*kernel].substr(0, 80));
    if (!by_kernel.contains(kernel_name))
      order.push_back(kernel_name);
    auto& [sum, launches] = by_kernel[kernel_name][metric->name];
    sum += *number;
    ++launches;
  }
  if (order.empty())
    return infra_error("ncu profiled no kernel launch with the metrics culprit asks for: did "
                       "the program launch any?");
  std::vector<CaseSamples> samples;
  for (const auto& kernel_name : order) {
    const auto& metrics = by_kernel[kernel_name];
    for (const auto& m : k_metrics) {
      const auto found = metrics.find(m.name);
      if (found == metrics.end())
        continue;
      const auto [sum, launches] = found->second;
      samples.push_back(CaseSamples{
          kernel_name, std::string(m.name), std::string(m.unit), m.direction, {sum / launches}});
    }
  }
  return samples;
}

} // namespace culprit::parsers
