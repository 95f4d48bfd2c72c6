#include "core/parsers/culprit_jsonl.hpp"

#include <cmath>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "core/parsers/json_support.hpp"
#include "core/parsers/parse_support.hpp"

namespace culprit {
namespace {

constexpr std::string_view k_format = "culprit JSON lines";

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
  if (auto added = table.add(case_name, metric, unit, *direction, value); !added)
    return fields.error("value", added.error().message);
  return {};
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
  JsonFields fields(k_format);
  bool seen_record = false;
  LineReader lines(text);
  std::size_t column = 1;
  while (const auto record_line = next_record(lines, column)) {
    CULPRIT_TRY_ASSIGN(const Json record,
                       parse_json(*record_line, k_format, {lines.number(), column}));
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
      output.cases.push_back(std::move(info));
    }
    seen_record = true;
  }
  if (table.empty())
    return output_error(k_format, fmt::format("{} lines", lines.number()),
                        "no sample record found; a benchmark in this format prints lines such as "
                        R"({"type":"sample","case":"...","metric":"time","unit":"s",)"
                        R"("direction":"lower","value":0.001})");
  output.samples = table.take();
  return output;
}

bool looks_like_culprit_jsonl(std::string_view text) {
  LineReader lines(text);
  std::size_t column = 1;
  const auto record_line = next_record(lines, column);
  if (!record_line)
    return false;
  const auto record = parse_json(*record_line, k_format);
  const Json* type = record ? JsonFields::find(*record, "type") : nullptr;
  return type != nullptr && type->is_string();
}

} // namespace culprit
