#include "core/parsers/gbench_json.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "core/parsers/parse_support.hpp"

namespace culprit::parsers {
namespace {

constexpr std::string_view k_gbench_format = "Google Benchmark JSON";

// Members of an iteration row that are not counters.
constexpr std::array<std::string_view, 19> k_row_fields = {"name",
                                                           "family_index",
                                                           "per_family_instance_index",
                                                           "run_name",
                                                           "run_type",
                                                           "repetitions",
                                                           "repetition_index",
                                                           "threads",
                                                           "iterations",
                                                           "real_time",
                                                           "cpu_time",
                                                           "time_unit",
                                                           "aggregate_name",
                                                           "aggregate_unit",
                                                           "error_occurred",
                                                           "error_message",
                                                           "label",
                                                           "big_o",
                                                           "rms"};

bool is_row_field(std::string_view key) {
  return std::find(k_row_fields.begin(), k_row_fields.end(), key) != k_row_fields.end();
}

std::string lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

Direction counter_direction(std::string_view name, const GbenchOptions& options) {
  if (const auto given = options.counter_directions.find(name);
      given != options.counter_directions.end())
    return given->second;
  const auto lower = lowercase(name);
  for (const std::string_view mark :
       {"per_second", "per_sec", "/s", "rate", "flop", "throughput", "bandwidth"}) {
    if (lower.find(mark) != std::string::npos)
      return Direction::higher_is_better;
  }
  return Direction::lower_is_better;
}

std::string counter_unit(std::string_view name) {
  if (name == "bytes_per_second")
    return "B/s";
  if (name == "items_per_second")
    return "1/s";
  return "";
}

// A user counter that counts floating-point operations. Google Benchmark's JSON does not say how
// a counter was set, and such counters are nearly always rates (Counter::kIsRate or
// kIsIterationInvariantRate: FLOP/s, multiplied here by the time of one iteration), so one is a
// count per iteration only when its name says so (per_iteration, per_call, _count). A G, T or M
// before "flop" scales it.
struct FlopCounter {
  bool found = false;
  bool rate = true;
  double scale = 1;
};
FlopCounter flop_counter(std::string_view name) {
  const auto lower = lowercase(name);
  const auto at = lower.find("flop");
  if (at == std::string::npos)
    return {};
  FlopCounter counter{.found = true, .rate = true, .scale = 1};
  for (const std::string_view mark : {"per_iteration", "per_iter", "per_call", "_count"})
    if (lower.find(mark) != std::string::npos)
      counter.rate = false;
  if (at > 0) {
    const char prefix = lower[at - 1];
    counter.scale = prefix == 'g' ? 1e9 : prefix == 't' ? 1e12 : prefix == 'm' ? 1e6 : 1;
  }
  return counter;
}

// The axes of a case from its name: "BM_Gemm/M:128/N:256" gives M and N; bare arguments
// ("BM_Copy/64/8") are arg0, arg1, ...; "threads:2", "real_time" and the like are left out.
std::map<std::string, std::string> axes_of(std::string_view name) {
  std::map<std::string, std::string> axes;
  int arg = 0;
  for (std::size_t slash = name.find('/'); slash != std::string_view::npos;) {
    const auto next = name.find('/', slash + 1);
    const auto part =
        name.substr(slash + 1, next == std::string_view::npos ? next : next - slash - 1);
    slash = next;
    const auto colon = part.find(':');
    if (colon == std::string_view::npos) {
      if (!part.empty() && std::isdigit(static_cast<unsigned char>(part.front())) != 0)
        axes.emplace(fmt::format("arg{}", arg++), std::string(part));
      continue;
    }
    const auto key = part.substr(0, colon);
    if (key == "threads" || key == "iterations" || key == "repeats" || key == "min_time" ||
        key == "min_warmup_time")
      continue;
    axes.emplace(std::string(key), std::string(part.substr(colon + 1)));
  }
  return axes;
}

struct RowReader {
  explicit RowReader(const GbenchOptions& given) : options(given) {}

  const GbenchOptions& options;
  JsonFields fields{k_gbench_format};
  SampleTable table;
  ParsedOutput output;
  std::set<std::string, std::less<>> failed_cases;
  std::set<std::string, std::less<>> described_cases;

  // The work of one iteration, from the first row of a case: FLOPs from a FLOP counter, and
  // beside them bytes from SetBytesProcessed's bytes_per_second, each rate times the CPU time of
  // one iteration. Without FLOPs the bytes are left out: what a case says it processed (the
  // uncompressed bytes of a decompressor, say) is not what it moved to and from memory, and a
  // roofline from it alone would be a made-up figure.
  void describe(const std::string& name, const Json& row, double seconds_per_iteration) {
    if (!described_cases.insert(name).second)
      return;
    CaseInfo info{.case_name = name, .flops = {}, .bytes = {}, .axes = axes_of(name)};
    std::optional<double> bytes;
    for (const auto& [key, value] : row.items()) {
      if (!value.is_number() || is_row_field(key))
        continue;
      const double number = value.get<double>();
      if (!std::isfinite(number) || number < 0)
        continue;
      if (key == "bytes_per_second") {
        bytes = number * seconds_per_iteration;
      } else if (const auto flop = flop_counter(key); flop.found) {
        info.flops = number * flop.scale * (flop.rate ? seconds_per_iteration : 1.0);
      }
    }
    if (info.flops && *info.flops > 0)
      info.bytes = bytes;
    output.cases.push_back(std::move(info));
  }

  Status read(const Json& row, const std::string& path) {
    if (!row.is_object())
      return fields.error(path, "expected an object, found " + std::string(json_kind(row)));
    CULPRIT_TRY_ASSIGN(const auto run_type, fields.optional_string(row, "run_type", path));
    if (run_type == "aggregate" || JsonFields::find(row, "aggregate_name") != nullptr)
      return {};
    CULPRIT_TRY_ASSIGN(auto run_name, fields.optional_string(row, "run_name", path));
    std::string name;
    if (run_name) {
      name = std::move(*run_name);
    } else {
      CULPRIT_TRY_ASSIGN(name, fields.string(row, "name", path));
    }
    CULPRIT_TRY_ASSIGN(const auto error_occurred,
                       fields.optional_bool(row, "error_occurred", path));
    CULPRIT_TRY_ASSIGN(const auto message, fields.optional_string(row, "error_message", path));
    IterationRow ran{name};
    if (const auto it = row.find("iterations"); it != row.end() && it->is_number())
      ran.iterations = it->get<double>();
    if (const auto it = row.find("threads"); it != row.end() && it->is_number_integer())
      ran.threads = it->get<int>();
    if (error_occurred.value_or(false) || message)
      ran.iterations = 0;
    output.iteration_rows.push_back(std::move(ran));
    if (error_occurred.value_or(false)) {
      if (failed_cases.insert(name).second)
        output.errors.push_back(CaseError{name, message.value_or("error_occurred")});
      return {};
    }
    if (message) {
      output.warnings.push_back(
          fmt::format("{}: {} was skipped: {}", k_gbench_format, name, printable(*message, 200)));
      return {};
    }
    CULPRIT_TRY_ASSIGN(const auto time_unit, fields.optional_string(row, "time_unit", path));
    const std::string unit = time_unit.value_or("ns");
    if (!seconds_per(unit))
      return fields.error(json_path(path, "time_unit"),
                          fmt::format("expected ns, us, ms or s, found \"{}\"", printable(unit)));
    for (const auto* metric : {"real_time", "cpu_time"}) {
      // A bare NaN or Infinity was read as null (replace_non_finite_literals).
      if (const auto it = row.find(metric); it != row.end() && it->is_null())
        return fields.error(json_path(path, metric),
                            "expected a finite number, found NaN, Infinity or null");
      CULPRIT_TRY_ASSIGN(const double value, fields.number(row, metric, path));
      CULPRIT_TRY(add(name, metric, unit, Direction::lower_is_better, value, path));
      // Google Benchmark divides rates by the CPU time unless the benchmark asked for real time
      // (which the JSON does not say): the CPU time gives the work back.
      if (std::string_view(metric) == "cpu_time")
        describe(name, row, value * *seconds_per(unit));
    }
    for (const auto& [key, value] : row.items()) {
      if (is_row_field(key))
        continue;
      if (value.is_number()) {
        CULPRIT_TRY(add(name, key, counter_unit(key), counter_direction(key, options),
                        value.get<double>(), path));
      } else if (value.is_null()) {
        output.warnings.push_back(fmt::format(
            "{}: counter {} of {} is not a finite number; left out", k_gbench_format, key, name));
      }
    }
    return {};
  }

  Status add(const std::string& name, std::string_view metric, std::string_view unit,
             Direction direction, double value, const std::string& path) {
    if (auto added = table.add(name, metric, unit, direction, value); !added)
      return fields.error(json_path(path, metric), added.error().message);
    return {};
  }
};

// The literal starting at text[i] when it is one of Google Benchmark's non-finite spellings.
std::string_view non_finite_literal_at(std::string_view text, std::size_t i) {
  for (const std::string_view literal : {"-Infinity", "Infinity", "-NaN", "NaN"}) {
    if (text.substr(i).starts_with(literal))
      return literal;
  }
  return {};
}

} // namespace

std::optional<std::string> replace_non_finite_literals(std::string_view text) {
  if (text.find("NaN") == std::string_view::npos && text.find("Infinity") == std::string_view::npos)
    return std::nullopt;
  std::string fixed;
  fixed.reserve(text.size() + 16);
  bool in_string = false;
  bool replaced = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      fixed += c;
      if (c == '\\' && i + 1 < text.size())
        fixed += text[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    const auto literal = c == '"' ? std::string_view() : non_finite_literal_at(text, i);
    if (literal.empty()) {
      in_string = c == '"';
      fixed += c;
      continue;
    }
    // "null" is longer than "NaN": borrow the blank before it so that columns stay put.
    if (literal.size() < 4 && !fixed.empty() && (fixed.back() == ' ' || fixed.back() == '\t'))
      fixed.pop_back();
    fixed += "null";
    if (literal.size() > 4)
      fixed.append(literal.size() - 4, ' ');
    i += literal.size() - 1;
    replaced = true;
  }
  if (!replaced)
    return std::nullopt;
  return fixed;
}

bool looks_like_gbench(const Json& document) {
  const Json* benchmarks = JsonFields::find(document, "benchmarks");
  const Json* context = JsonFields::find(document, "context");
  return benchmarks != nullptr && benchmarks->is_array() && context != nullptr &&
         context->is_object();
}

Result<ParsedOutput> read_gbench_document(const Json& document, const GbenchOptions& options) {
  RowReader reader(options);
  if (!document.is_object())
    return reader.fields.error("top level", "expected an object with \"context\" and "
                                            "\"benchmarks\", found " +
                                                std::string(json_kind(document)));
  CULPRIT_TRY_ASSIGN(const Json* rows, reader.fields.array(document, "benchmarks", ""));
  for (std::size_t i = 0; i < rows->size(); ++i)
    CULPRIT_TRY(reader.read((*rows)[i], json_path("benchmarks", i)));
  if (reader.table.empty() && reader.output.errors.empty())
    return reader.fields.error("benchmarks",
                               rows->empty() ? "empty; did --benchmark_filter match nothing?"
                                             : "no iteration rows, only aggregates; run without "
                                               "--benchmark_report_aggregates_only");
  reader.output.samples = reader.table.take();
  return std::move(reader.output);
}

Result<ParsedOutput> parse_gbench_json(std::string_view text, const GbenchOptions& options) {
  const auto fixed = replace_non_finite_literals(text);
  std::vector<std::string> warnings;
  CULPRIT_TRY_ASSIGN(
      const Json document,
      parse_json_document(fixed ? std::string_view(*fixed) : text, k_gbench_format, warnings));
  CULPRIT_TRY_ASSIGN(ParsedOutput output, read_gbench_document(document, options));
  output.warnings.insert(output.warnings.begin(), warnings.begin(), warnings.end());
  return output;
}

} // namespace culprit::parsers
