#include "core/parsers/nvbench_json.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/parsers/parse_support.hpp"

namespace culprit::parsers {
namespace {

constexpr std::string_view k_nvbench_format = "nvbench JSON";
constexpr std::string_view k_sample_times_tag = "nv/json/bin:nv/cold/sample_times";
// Beyond this a sample-times file is not read (a quarter of a billion samples).
constexpr std::uintmax_t k_max_sample_file_bytes = std::uintmax_t{1} << 30;

struct MetricSpec {
  std::string_view tag;
  std::string_view metric;
  std::string_view unit;
  Direction direction;
};

constexpr MetricSpec k_known_metrics[] = {
    {"nv/cold/time/gpu/mean", "gpu_time", "s", Direction::lower_is_better},
    {"nv/cold/time/cpu/mean", "cpu_time", "s", Direction::lower_is_better},
    {"nv/cpu_only/time/cpu/mean", "cpu_time", "s", Direction::lower_is_better},
    {"nv/batch/time/gpu/mean", "batch_gpu_time", "s", Direction::lower_is_better},
    {"nv/cold/bw/global/bytes_per_second", "bytes_per_second", "B/s", Direction::higher_is_better},
    {"nv/cold/bw/item_rate", "items_per_second", "1/s", Direction::higher_is_better},
    {"nv/cold/bw/global/utilization", "bandwidth_utilization", "ratio",
     Direction::higher_is_better},
};

struct Metric {
  std::string name;
  std::string unit;
  Direction direction = Direction::lower_is_better;
};

std::optional<Metric> metric_for(std::string_view tag, std::string_view hint) {
  for (const auto& known : k_known_metrics) {
    if (known.tag == tag)
      return Metric{std::string(known.metric), std::string(known.unit), known.direction};
  }
  std::string name(tag.starts_with("nv/") ? tag.substr(3) : tag);
  std::replace(name.begin(), name.end(), '/', '_');
  if (hint == "duration" && !tag.ends_with("walltime") && tag.find("/stdev") == std::string::npos)
    return Metric{name, "s", Direction::lower_is_better};
  if (hint == "byte_rate")
    return Metric{name, "B/s", Direction::higher_is_better};
  if (hint == "item_rate")
    return Metric{name, "1/s", Direction::higher_is_better};
  return std::nullopt;
}

// The display value of each axis as nvbench writes it in the state name
// ("Device=0 Array Size=2^20 T=F32"): names may hold blanks, so each value runs up to the next
// " <name>=". Falls back to the raw axis values when the name does not have that shape.
std::vector<std::pair<std::string, std::string>>
axis_displays(std::string_view state_name, std::vector<std::pair<std::string, std::string>> raw) {
  std::vector<std::pair<std::string, std::string>> displays;
  std::size_t cursor = 0;
  for (std::size_t k = 0; k < raw.size(); ++k) {
    const std::string key = " " + raw[k].first + "=";
    const auto at = state_name.find(key, cursor);
    if (at == std::string_view::npos)
      return raw;
    const auto begin = at + key.size();
    auto end = state_name.size();
    if (k + 1 < raw.size()) {
      end = state_name.find(" " + raw[k + 1].first + "=", begin);
      if (end == std::string_view::npos)
        return raw;
    }
    displays.emplace_back(raw[k].first, std::string(state_name.substr(begin, end - begin)));
    cursor = end;
  }
  return displays;
}

std::optional<std::vector<double>> read_sample_times(const std::filesystem::path& path,
                                                     double count, std::string& problem) {
  std::error_code error;
  const auto bytes = std::filesystem::file_size(path, error);
  if (error) {
    problem = "cannot read " + path.string() + ": " + error.message();
    return std::nullopt;
  }
  if (bytes > k_max_sample_file_bytes || static_cast<double>(bytes) != count * 4) {
    problem =
        fmt::format("{} has {} bytes; expected {} float32 samples", path.string(), bytes, count);
    return std::nullopt;
  }
  std::vector<char> raw(bytes);
  std::ifstream file(path, std::ios::binary);
  if (!file.read(raw.data(), static_cast<std::streamsize>(bytes))) {
    problem = "cannot read " + path.string();
    return std::nullopt;
  }
  std::vector<double> samples;
  samples.reserve(bytes / 4);
  for (std::size_t offset = 0; offset < bytes; offset += 4) {
    std::uint32_t word = 0;
    std::memcpy(&word, raw.data() + offset, 4);
    if constexpr (std::endian::native == std::endian::big)
      word = __builtin_bswap32(word);
    const auto value = static_cast<double>(std::bit_cast<float>(word));
    if (!std::isfinite(value) || value < 0) {
      problem = fmt::format("{} holds {} at sample {}", path.string(), value, offset / 4);
      return std::nullopt;
    }
    samples.push_back(value);
  }
  return samples;
}

class DocumentReader {
public:
  explicit DocumentReader(const NvbenchOptions& options) : m_options(options) {}

  Status read_benchmark(const Json& benchmark, const std::string& path) {
    CULPRIT_TRY_ASSIGN(const std::string name, m_fields.string(benchmark, "name", path));
    const Json* states = JsonFields::find(benchmark, "states");
    if (states == nullptr)
      return {};
    if (!states->is_array())
      return m_fields.error(json_path(path, "states"), "expected an array");
    std::set<double> devices;
    for (const auto& state : *states) {
      if (const Json* device = JsonFields::find(state, "device"); device && device->is_number())
        devices.insert(device->get<double>());
    }
    std::size_t skipped = 0;
    std::string first_reason;
    for (std::size_t i = 0; i < states->size(); ++i) {
      const auto state_path = json_path(json_path(path, "states"), i);
      const Json& state = (*states)[i];
      if (!state.is_object())
        return m_fields.error(state_path, "expected an object");
      CULPRIT_TRY_ASSIGN(const auto is_skipped,
                         m_fields.optional_bool(state, "is_skipped", state_path));
      if (is_skipped.value_or(false)) {
        CULPRIT_TRY_ASSIGN(const auto reason,
                           m_fields.optional_string(state, "skip_reason", state_path));
        if (skipped++ == 0)
          first_reason = reason.value_or("no reason given");
        continue;
      }
      CULPRIT_TRY(read_state(name, state, state_path, devices.size() > 1));
    }
    if (skipped > 0)
      m_output.warnings.push_back(fmt::format("{}: {} of {} states of {} were skipped (first: {})",
                                              k_nvbench_format, skipped, states->size(), name,
                                              printable(first_reason, 120)));
    return {};
  }

  Result<ParsedOutput> finish(std::size_t benchmarks) {
    if (m_table.empty())
      return m_fields.error("benchmarks", fmt::format("no state with measurements among {} "
                                                      "benchmarks",
                                                      benchmarks));
    m_output.samples = m_table.take();
    return std::move(m_output);
  }

private:
  Result<CaseInfo> describe_case(const std::string& benchmark, const Json& state,
                                 const std::string& path, bool name_device) {
    CULPRIT_TRY_ASSIGN(const std::string state_name, m_fields.string(state, "name", path));
    CULPRIT_TRY_ASSIGN(const auto device, m_fields.optional_number(state, "device", path));
    std::vector<std::pair<std::string, std::string>> raw;
    if (const Json* values = JsonFields::find(state, "axis_values")) {
      if (!values->is_array())
        return m_fields.error(json_path(path, "axis_values"), "expected an array");
      for (std::size_t i = 0; i < values->size(); ++i) {
        const auto value_path = json_path(json_path(path, "axis_values"), i);
        CULPRIT_TRY_ASSIGN(std::string axis, m_fields.string((*values)[i], "name", value_path));
        const Json* value = JsonFields::find((*values)[i], "value");
        raw.emplace_back(std::move(axis), value == nullptr     ? std::string()
                                          : value->is_string() ? value->get<std::string>()
                                                               : value->dump());
      }
    }
    CaseInfo info;
    std::string axes_text;
    if (name_device && device)
      axes_text = fmt::format("Device={:g}", *device);
    for (auto& [axis, display] : axis_displays(state_name, std::move(raw))) {
      axes_text += fmt::format("{}{}={}", axes_text.empty() ? "" : ",", axis, display);
      info.axes.emplace(std::move(axis), std::move(display));
    }
    if (device)
      info.axes.emplace("Device", fmt::format("{:g}", *device));
    info.case_name = axes_text.empty() ? benchmark : benchmark + "/" + axes_text;
    return info;
  }

  Status read_state(const std::string& benchmark, const Json& state, const std::string& path,
                    bool name_device) {
    CULPRIT_TRY_ASSIGN(CaseInfo info, describe_case(benchmark, state, path, name_device));
    const Json* summaries = JsonFields::find(state, "summaries");
    if (summaries == nullptr)
      return {};
    if (!summaries->is_array())
      return m_fields.error(json_path(path, "summaries"), "expected an array");
    std::vector<std::pair<Metric, double>> means;
    std::optional<std::vector<double>> sample_times;
    double bytes = 0;
    for (std::size_t i = 0; i < summaries->size(); ++i) {
      const auto summary_path = json_path(json_path(path, "summaries"), i);
      const Json& summary = (*summaries)[i];
      CULPRIT_TRY_ASSIGN(const std::string tag, m_fields.string(summary, "tag", summary_path));
      CULPRIT_TRY_ASSIGN(const auto hint, m_fields.optional_string(summary, "hint", summary_path));
      if (tag == k_sample_times_tag) {
        CULPRIT_TRY_ASSIGN(sample_times, read_sample_file(summary, summary_path, info.case_name));
        continue;
      }
      CULPRIT_TRY_ASSIGN(const auto value, data_number(summary, "value", summary_path));
      if (!value)
        continue;
      if (tag.starts_with("nv/gmem/reads/") || tag.starts_with("nv/gmem/writes/"))
        bytes += *value;
      else if (auto metric = metric_for(tag, hint.value_or("")))
        means.emplace_back(std::move(*metric), *value);
    }
    for (const auto& [metric, value] : means) {
      if (metric.name == "gpu_time" && sample_times) {
        for (const double sample : *sample_times)
          CULPRIT_TRY(add(info.case_name, metric, sample, path));
      } else {
        CULPRIT_TRY(add(info.case_name, metric, value, path));
      }
    }
    if (bytes > 0)
      info.bytes = bytes;
    m_output.cases.push_back(std::move(info));
    return {};
  }

  Status add(const std::string& case_name, const Metric& metric, double value,
             const std::string& path) {
    if (auto added = m_table.add(case_name, metric.name, metric.unit, metric.direction, value);
        !added)
      return m_fields.error(path, added.error().message);
    return {};
  }

  // The number in the entry of a summary's "data" called `name`; nullopt without one.
  Result<std::optional<double>> data_number(const Json& summary, std::string_view name,
                                            const std::string& path) {
    const Json* data = JsonFields::find(summary, "data");
    if (data == nullptr || !data->is_array())
      return std::optional<double>();
    for (std::size_t i = 0; i < data->size(); ++i) {
      const Json* entry_name = JsonFields::find((*data)[i], "name");
      if (entry_name != nullptr && entry_name->is_string() &&
          entry_name->get_ref<const std::string&>() == name) {
        CULPRIT_TRY_ASSIGN(
            const double value,
            m_fields.number((*data)[i], "value", json_path(json_path(path, "data"), i)));
        return std::optional<double>(value);
      }
    }
    return std::optional<double>();
  }

  Result<std::optional<std::vector<double>>>
  read_sample_file(const Json& summary, const std::string& path, const std::string& case_name) {
    CULPRIT_TRY_ASSIGN(const auto count, data_number(summary, "size", path));
    const Json* data = JsonFields::find(summary, "data");
    std::string filename;
    for (const auto& entry : data != nullptr && data->is_array() ? *data : Json::array()) {
      const Json* entry_name = JsonFields::find(entry, "name");
      const Json* value = JsonFields::find(entry, "value");
      if (entry_name != nullptr && entry_name->is_string() &&
          entry_name->get_ref<const std::string&>() == "filename" && value != nullptr &&
          value->is_string())
        filename = value->get<std::string>();
    }
    if (filename.empty() || !count)
      return m_fields.error(path, R"(a sample-times summary needs data "filename" and "size")");
    std::filesystem::path file(filename);
    if (file.is_relative() && !m_options.base_dir.empty())
      file = m_options.base_dir / file;
    std::string problem;
    auto samples = read_sample_times(file, *count, problem);
    if (!samples)
      m_output.warnings.push_back(fmt::format("{}: {}: sample times not used ({}); using the mean",
                                              k_nvbench_format, case_name,
                                              printable(problem, 200)));
    return samples;
  }

  const NvbenchOptions& m_options;
  JsonFields m_fields{k_nvbench_format, JsonFields::QuotedNumbers::accepted};
  SampleTable m_table;
  ParsedOutput m_output;
};

} // namespace

bool looks_like_nvbench(const Json& document) {
  const Json* benchmarks = JsonFields::find(document, "benchmarks");
  if (benchmarks == nullptr || !benchmarks->is_array() || document.contains("context"))
    return false;
  return benchmarks->empty() || JsonFields::find(benchmarks->front(), "states") != nullptr;
}

Result<ParsedOutput> read_nvbench_document(const Json& document, const NvbenchOptions& options) {
  JsonFields fields(k_nvbench_format);
  if (!document.is_object())
    return fields.error("top level", "expected an object with \"benchmarks\", found " +
                                         std::string(json_kind(document)));
  CULPRIT_TRY_ASSIGN(const Json* benchmarks, fields.array(document, "benchmarks", ""));
  DocumentReader reader(options);
  for (std::size_t i = 0; i < benchmarks->size(); ++i)
    CULPRIT_TRY(reader.read_benchmark((*benchmarks)[i], json_path("benchmarks", i)));
  return reader.finish(benchmarks->size());
}

Result<ParsedOutput> parse_nvbench_json(std::string_view text, const NvbenchOptions& options) {
  std::vector<std::string> warnings;
  CULPRIT_TRY_ASSIGN(const Json document, parse_json_document(text, k_nvbench_format, warnings));
  CULPRIT_TRY_ASSIGN(ParsedOutput output, read_nvbench_document(document, options));
  output.warnings.insert(output.warnings.begin(), warnings.begin(), warnings.end());
  return output;
}

} // namespace culprit::parsers
