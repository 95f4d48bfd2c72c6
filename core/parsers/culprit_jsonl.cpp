#include "core/parsers/culprit_jsonl.hpp"

#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/parsers/json_support.hpp"
#include "core/parsers/parse_support.hpp"

namespace culprit::parsers {
namespace {

constexpr std::string_view k_jsonl_format = "culprit JSON lines";

// The next record of the output (from its '{' on), skipping other lines; `column` is where it
// starts on its line.
std::optional<std::string_view> next_record(LineReader& lines, std::size_t& column) {
  while (const auto line = lines.next()) {
    const auto begin = line->find_first_not_of(" \t");
    if (begin != std::string_view::npos && (*line)[begin] == '{') {
      column = begin + 1;
      return line->substr(begin);
    }
  }
  return std::nullopt;
}

Result<std::string> non_empty_string(const JsonFields& fields, const Json& record,
                                     std::string_view key) {
  CULPRIT_TRY_ASSIGN(std::string text, fields.string(record, key, ""));
  if (text.empty())
    return fields.error(key, "expected a non-empty string");
  return text;
}

// An optional whole number of at least `least`, in `object` (at `path`).
Result<std::optional<double>> optional_count(const JsonFields& fields, const Json& object,
                                             std::string_view key, std::string_view path,
                                             double least) {
  CULPRIT_TRY_ASSIGN(const auto count, fields.optional_number(object, key, path));
  if (count && (*count < least || *count != std::floor(*count)))
    return fields.error(json_path(path, key), least > 0 ? "expected a positive whole number"
                                                        : "expected a non-negative whole number");
  return count;
}

// An optional member that must be an object when present.
Result<const Json*> optional_object(const JsonFields& fields, const Json& record,
                                    std::string_view key) {
  const Json* object = JsonFields::find(record, key);
  if (object != nullptr && !object->is_object())
    return fields.error(key, "expected an object, found " + std::string(json_kind(*object)));
  return object;
}

Result<std::optional<GpuProperties>> read_gpu_properties(const JsonFields& fields,
                                                         const Json& record) {
  const Json* properties = JsonFields::find(record, "gpu");
  if (properties == nullptr)
    return std::nullopt;
  if (!properties->is_object())
    return fields.error("gpu", "expected an object, found " + std::string(json_kind(*properties)));
  GpuProperties gpu;
  const auto positive = [&](std::string_view key) -> Result<double> {
    CULPRIT_TRY_ASSIGN(const double value, fields.number(*properties, key, "gpu"));
    if (!(value > 0))
      return fields.error(json_path("gpu", key), "expected a positive number");
    return value;
  };
  CULPRIT_TRY_ASSIGN(const double sms, positive("sm_count"));
  CULPRIT_TRY_ASSIGN(gpu.sm_clock_mhz, positive("sm_clock_mhz"));
  CULPRIT_TRY_ASSIGN(gpu.memory_clock_mhz, positive("memory_clock_mhz"));
  CULPRIT_TRY_ASSIGN(const double bus, positive("memory_bus_bits"));
  CULPRIT_TRY_ASSIGN(const double major, positive("compute_major"));
  CULPRIT_TRY_ASSIGN(const auto minor, fields.optional_number(*properties, "compute_minor", "gpu"));
  gpu.sm_count = static_cast<int>(sms);
  gpu.memory_bus_bits = static_cast<int>(bus);
  gpu.compute_major = static_cast<int>(major);
  gpu.compute_minor = static_cast<int>(minor.value_or(0));
  return gpu;
}

Result<std::optional<DeviceInfo>> read_header(const JsonFields& fields, const Json& record) {
  CULPRIT_TRY_ASSIGN(const auto format, fields.optional_string(record, "format", ""));
  if (format && *format != "culprit-jsonl")
    return fields.error("format",
                        fmt::format(R"(expected "culprit-jsonl", found "{}")", printable(*format)));
  CULPRIT_TRY_ASSIGN(const double version, fields.number(record, "version", ""));
  if (version != std::floor(version) || version < 1)
    return fields.error("version", "expected a positive whole number");
  if (version != k_culprit_jsonl_version)
    return fields.error("version", fmt::format("format version {} is newer than this culprit "
                                               "reads ({}); upgrade culprit",
                                               version, k_culprit_jsonl_version));
  CULPRIT_TRY_ASSIGN(const auto device, fields.optional_string(record, "device", ""));
  if (!device || device->empty())
    return std::nullopt;
  CULPRIT_TRY_ASSIGN(const auto backend, fields.optional_string(record, "backend", ""));
  CULPRIT_TRY_ASSIGN(const auto gpu, read_gpu_properties(fields, record));
  return DeviceInfo{.backend = backend.value_or(""), .name = *device, .gpu = gpu};
}

Status read_sample(const JsonFields& fields, const Json& record, SampleTable& table) {
  CULPRIT_TRY_ASSIGN(const std::string case_name, non_empty_string(fields, record, "case"));
  CULPRIT_TRY_ASSIGN(const std::string metric, non_empty_string(fields, record, "metric"));
  CULPRIT_TRY_ASSIGN(const std::string unit, fields.string(record, "unit", ""));
  CULPRIT_TRY_ASSIGN(const std::string direction_text, fields.string(record, "direction", ""));
  const auto direction = parse_direction(direction_text);
  if (!direction)
    return fields.error("direction", fmt::format(R"(expected "lower" or "higher", found "{}")",
                                                 printable(direction_text)));
  CULPRIT_TRY_ASSIGN(const double value, fields.number(record, "value", ""));
  CULPRIT_TRY_ASSIGN(const auto index, fields.optional_number(record, "index", ""));
  if (index && (*index < 0 || *index != std::floor(*index)))
    return fields.error("index", "expected a non-negative whole number");
  CULPRIT_TRY(fields.optional_bool(record, "cold", ""));
  // A batch sample's launch count: the value is already per launch.
  CULPRIT_TRY(optional_count(fields, record, "batch", "", 1));
  if (auto added = table.add(case_name, metric, unit, *direction, value); !added)
    return fields.error("value", added.error().message);
  return {};
}

// What a GPU case record says about the SM clock while its samples were taken.
struct ClockCheck {
  bool checked = false;
  double default_mhz = 0;
  double threshold = 0;
  std::optional<double> taken;
  double throttled = 0;
};

Result<std::optional<ClockCheck>> read_clock_check(const JsonFields& fields, const Json& record) {
  CULPRIT_TRY_ASSIGN(const Json* sm_clock, optional_object(fields, record, "sm_clock"));
  CULPRIT_TRY_ASSIGN(const Json* dropped, optional_object(fields, record, "dropped"));
  if (sm_clock == nullptr && dropped == nullptr)
    return std::nullopt;
  ClockCheck check;
  CULPRIT_TRY_ASSIGN(check.taken, optional_count(fields, record, "samples_taken", "", 0));
  if (sm_clock != nullptr) {
    CULPRIT_TRY_ASSIGN(const auto checked, fields.optional_bool(*sm_clock, "checked", "sm_clock"));
    CULPRIT_TRY_ASSIGN(const auto mhz,
                       fields.optional_number(*sm_clock, "default_mhz", "sm_clock"));
    CULPRIT_TRY_ASSIGN(const auto threshold,
                       fields.optional_number(*sm_clock, "threshold", "sm_clock"));
    check.checked = checked.value_or(false);
    check.default_mhz = mhz.value_or(0);
    check.threshold = threshold.value_or(0);
  }
  if (dropped != nullptr) {
    CULPRIT_TRY_ASSIGN(const auto throttled,
                       optional_count(fields, *dropped, "throttled", "dropped", 0));
    check.throttled = throttled.value_or(0);
    check.checked = check.checked || sm_clock == nullptr;
  }
  return check;
}

// "case X: 3 of 13 samples dropped: the SM clock was below 75% of its default 1980 MHz".
std::string throttle_warning(const std::string& case_name, const ClockCheck& check) {
  std::string warning =
      fmt::format("{}: case {}: {}", k_jsonl_format, printable(case_name), check.throttled);
  if (check.taken)
    warning += fmt::format(" of {}", *check.taken);
  warning += check.throttled == 1 ? " sample dropped" : " samples dropped";
  if (check.threshold > 0 && check.default_mhz > 0)
    return warning + fmt::format(": the SM clock was below {}% of its default {} MHz",
                                 check.threshold * 100, check.default_mhz);
  return warning + ": the SM clock was throttled";
}

Result<CaseInfo> read_case(const JsonFields& fields, const Json& record) {
  CaseInfo info;
  CULPRIT_TRY_ASSIGN(info.case_name, non_empty_string(fields, record, "case"));
  for (const auto* key : {"flops", "bytes"}) {
    CULPRIT_TRY_ASSIGN(const auto amount, fields.optional_number(record, key, ""));
    if (amount && *amount < 0)
      return fields.error(key, "expected a non-negative number");
    (std::string_view(key) == "flops" ? info.flops : info.bytes) = amount;
  }
  if (const Json* axes = JsonFields::find(record, "axes")) {
    if (!axes->is_object())
      return fields.error("axes",
                          "expected an object of strings, found " + std::string(json_kind(*axes)));
    for (const auto& [name, value] : axes->items()) {
      if (!value.is_string())
        return fields.error(json_path("axes", name),
                            "expected a string, found " + std::string(json_kind(value)));
      info.axes.emplace(name, value.get<std::string>());
    }
  }
  return info;
}

} // namespace

Result<ParsedOutput> parse_culprit_jsonl(std::string_view text) {
  ParsedOutput output;
  SampleTable table;
  std::set<std::string, std::less<>> described_cases;
  JsonFields fields(k_jsonl_format);
  bool seen_record = false;
  std::size_t gpu_cases = 0;
  std::size_t unchecked_cases = 0;
  std::vector<std::string> skipped; // "case X was skipped by the benchmark: REASON"
  LineReader lines(text);
  std::size_t column = 1;
  while (const auto record_line = next_record(lines, column)) {
    CULPRIT_TRY_ASSIGN(const Json record,
                       parse_json(*record_line, k_jsonl_format, {lines.number(), column}));
    fields.locate_line(lines.number());
    CULPRIT_TRY_ASSIGN(const std::string type, fields.string(record, "type", ""));
    if (type == "header") {
      if (seen_record)
        return fields.error("type", "a header must be the first record");
      CULPRIT_TRY_ASSIGN(output.device, read_header(fields, record));
    } else if (type == "sample") {
      CULPRIT_TRY(read_sample(fields, record, table));
    } else if (type == "case") {
      CULPRIT_TRY_ASSIGN(CaseInfo info, read_case(fields, record));
      if (!described_cases.insert(info.case_name).second)
        return fields.error("case", fmt::format("a second case record for '{}'; expected one per "
                                                "case per run",
                                                printable(info.case_name)));
      CULPRIT_TRY_ASSIGN(const auto clock, read_clock_check(fields, record));
      if (clock) {
        ++gpu_cases;
        unchecked_cases += clock->checked ? 0 : 1;
        if (clock->throttled > 0)
          output.warnings.push_back(throttle_warning(info.case_name, *clock));
      }
      output.cases.push_back(std::move(info));
    } else if (type == "skip") {
      CULPRIT_TRY_ASSIGN(const std::string case_name, non_empty_string(fields, record, "case"));
      CULPRIT_TRY_ASSIGN(const auto reason, fields.optional_string(record, "reason", ""));
      skipped.push_back(fmt::format("case {} was skipped by the benchmark: {}",
                                    printable(case_name),
                                    printable(reason.value_or("no reason given"), 200)));
      output.warnings.push_back(fmt::format("{}: {}", k_jsonl_format, skipped.back()));
    }
    seen_record = true;
  }
  if (table.empty() && !skipped.empty())
    return output_error(
        k_jsonl_format, fmt::format("{} lines", lines.number()),
        fmt::format("no sample record found: every case was skipped ({}{})", skipped.front(),
                    skipped.size() > 1 ? fmt::format(", and {} more", skipped.size() - 1) : ""));
  if (table.empty())
    return output_error(k_jsonl_format, fmt::format("{} lines", lines.number()),
                        "no sample record found; a benchmark in this format prints lines such as "
                        R"({"type":"sample","case":"...","metric":"time","unit":"s",)"
                        R"("direction":"lower","value":0.001})");
  if (unchecked_cases > 0)
    output.warnings.push_back(fmt::format("{}: the SM clock was not checked in {} of {} GPU cases "
                                          "(no NVML): throttled samples may be among theirs",
                                          k_jsonl_format, unchecked_cases, gpu_cases));
  output.samples = table.take();
  return output;
}

bool looks_like_culprit_jsonl(std::string_view text) {
  LineReader lines(text);
  std::size_t column = 1;
  const auto record_line = next_record(lines, column);
  if (!record_line)
    return false;
  const auto record = parse_json(*record_line, k_jsonl_format);
  const Json* type = record ? JsonFields::find(*record, "type") : nullptr;
  return type != nullptr && type->is_string();
}

} // namespace culprit::parsers
