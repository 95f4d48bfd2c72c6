#include "core/host/gpu.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "core/host/capture.hpp"
#include "core/util/error.hpp"
#include "core/util/text.hpp"

namespace culprit::host {
namespace {

constexpr std::array<std::string_view, 21> k_default_fields = {
    "index",
    "name",
    "uuid",
    "driver_version",
    "clocks.sm",
    "clocks.mem",
    "clocks.max.sm",
    "clocks.max.mem",
    "clocks.applications.graphics",
    "clocks.default_applications.graphics",
    "power.draw",
    "power.limit",
    "temperature.gpu",
    "persistence_mode",
    "mig.mode.current",
    "ecc.mode.current",
    "clocks_event_reasons.active",
    "clocks_event_reasons_counters.sw_power_cap",
    "clocks_event_reasons_counters.sw_thermal_slowdown",
    "clocks_event_reasons_counters.hw_thermal_slowdown",
    "clocks_event_reasons_counters.hw_power_brake_slowdown",
};
// Drivers before 535 know the reasons under their older name.
constexpr std::string_view k_reasons_field = "clocks_event_reasons.active";
constexpr std::string_view k_old_reasons_field = "clocks_throttle_reasons.active";

constexpr std::array<std::pair<std::uint64_t, std::string_view>, 9> k_reason_names = {{
    {reason::gpu_idle, "gpu_idle"},
    {reason::applications_clocks_setting, "applications_clocks_setting"},
    {reason::sw_power_cap, "sw_power_cap"},
    {reason::hw_slowdown, "hw_slowdown"},
    {reason::sync_boost, "sync_boost"},
    {reason::sw_thermal_slowdown, "sw_thermal_slowdown"},
    {reason::hw_thermal_slowdown, "hw_thermal_slowdown"},
    {reason::hw_power_brake_slowdown, "hw_power_brake_slowdown"},
    {reason::display_clock_setting, "display_clock_setting"},
}};

// "[N/A]", "[Not Supported]", "[Unknown Error]", "N/A": no value.
bool unknown(std::string_view value) {
  return value.empty() || value.front() == '[' || value == "N/A";
}

std::optional<double> parse_number(std::string_view value) {
  if (unknown(value))
    return std::nullopt;
  double number = 0.0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc{} || end != value.data() + value.size())
    return std::nullopt;
  return number;
}

std::optional<bool> parse_enabled(std::string_view value) {
  if (value == "Enabled")
    return true;
  if (value == "Disabled")
    return false;
  return std::nullopt;
}

std::optional<std::uint64_t> parse_mask(std::string_view value) {
  if (value.starts_with("0x") || value.starts_with("0X"))
    value.remove_prefix(2);
  if (unknown(value))
    return std::nullopt;
  std::uint64_t mask = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), mask, 16);
  if (error != std::errc{} || end != value.data() + value.size())
    return std::nullopt;
  return mask;
}

using Setter = std::function<void(GpuFacts&, std::string_view)>;

Setter setter_for(std::string_view field) {
  const auto number = [](std::optional<double> GpuFacts::* member) {
    return [member](GpuFacts& gpu, std::string_view value) { gpu.*member = parse_number(value); };
  };
  const auto counter = [](std::optional<double> SlowdownCounters::* member) {
    return [member](GpuFacts& gpu, std::string_view value) {
      gpu.counters.*member = parse_number(value);
    };
  };
  const auto enabled = [](std::optional<bool> GpuFacts::* member) {
    return [member](GpuFacts& gpu, std::string_view value) { gpu.*member = parse_enabled(value); };
  };
  const auto text = [](std::string GpuFacts::* member) {
    return [member](GpuFacts& gpu, std::string_view value) {
      gpu.*member = unknown(value) ? std::string() : std::string(value);
    };
  };
  if (field == "index")
    return [](GpuFacts& gpu, std::string_view value) {
      gpu.index = static_cast<int>(parse_number(value).value_or(0));
    };
  if (field == k_reasons_field || field == k_old_reasons_field)
    return [](GpuFacts& gpu, std::string_view value) { gpu.reasons = parse_mask(value); };
  const std::array<std::pair<std::string_view, Setter>, 19> setters = {{
      {"name", text(&GpuFacts::name)},
      {"uuid", text(&GpuFacts::uuid)},
      {"driver_version", text(&GpuFacts::driver_version)},
      {"clocks.sm", number(&GpuFacts::sm_clock_mhz)},
      {"clocks.mem", number(&GpuFacts::memory_clock_mhz)},
      {"clocks.max.sm", number(&GpuFacts::max_sm_clock_mhz)},
      {"clocks.max.mem", number(&GpuFacts::max_memory_clock_mhz)},
      {"clocks.applications.graphics", number(&GpuFacts::applications_clock_mhz)},
      {"clocks.default_applications.graphics", number(&GpuFacts::default_applications_clock_mhz)},
      {"power.draw", number(&GpuFacts::power_draw_w)},
      {"power.limit", number(&GpuFacts::power_limit_w)},
      {"temperature.gpu", number(&GpuFacts::temperature_c)},
      {"persistence_mode", enabled(&GpuFacts::persistence_mode)},
      {"mig.mode.current", enabled(&GpuFacts::mig_mode)},
      {"ecc.mode.current", enabled(&GpuFacts::ecc_mode)},
      {"clocks_event_reasons_counters.sw_power_cap", counter(&SlowdownCounters::sw_power_cap)},
      {"clocks_event_reasons_counters.sw_thermal_slowdown",
       counter(&SlowdownCounters::sw_thermal_slowdown)},
      {"clocks_event_reasons_counters.hw_thermal_slowdown",
       counter(&SlowdownCounters::hw_thermal_slowdown)},
      {"clocks_event_reasons_counters.hw_power_brake_slowdown",
       counter(&SlowdownCounters::hw_power_brake_slowdown)},
  }};
  for (const auto& [name, setter] : setters)
    if (name == field)
      return setter;
  return [](GpuFacts&, std::string_view) {};
}

std::vector<std::string_view> split_values(std::string_view line) {
  std::vector<std::string_view> values;
  for (;;) {
    const auto comma = line.find(',');
    values.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos)
      return values;
    line.remove_prefix(comma + 1);
  }
}

// The field named by `Field "X" is not a valid field to query.`, if that is what nvidia-smi said.
std::optional<std::string> rejected_field(std::string_view output) {
  constexpr std::string_view prefix = "Field \"";
  const auto start = output.find(prefix);
  if (start == std::string_view::npos)
    return std::nullopt;
  const auto name_start = start + prefix.size();
  const auto end = output.find('"', name_start);
  if (end == std::string_view::npos ||
      output.find("is not a valid field", end) == std::string_view::npos)
    return std::nullopt;
  return std::string(output.substr(name_start, end - name_start));
}

std::string first_line(std::string_view text) {
  text = trim(text.substr(0, text.find('\n')));
  return std::string(text.empty() ? "no output" : text);
}

} // namespace

std::vector<std::string> reason_names(std::uint64_t mask) {
  std::vector<std::string> names;
  for (const auto& [bit, name] : k_reason_names)
    if ((mask & bit) != 0)
      names.emplace_back(name);
  return names;
}

std::span<const std::string_view> default_gpu_fields() {
  return k_default_fields;
}

Result<std::vector<GpuFacts>> parse_nvidia_smi_csv(std::string_view output,
                                                   std::span<const std::string> fields) {
  std::vector<Setter> setters;
  setters.reserve(fields.size());
  for (const auto& field : fields)
    setters.push_back(setter_for(field));
  std::vector<GpuFacts> gpus;
  while (!output.empty()) {
    const auto newline = output.find('\n');
    const auto line = trim(output.substr(0, newline));
    output = newline == std::string_view::npos ? "" : output.substr(newline + 1);
    if (line.empty())
      continue;
    const auto values = split_values(line);
    if (values.size() != fields.size())
      return infra_error("nvidia-smi printed {} values where {} were asked for: '{}'",
                         values.size(), fields.size(), line);
    GpuFacts gpu;
    gpu.index = static_cast<int>(gpus.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      setters[i](gpu, values[i]);
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

GpuProbe::GpuProbe(GpuProbeOptions options)
    : m_options(std::move(options)), m_fields(k_default_fields.begin(), k_default_fields.end()) {}

GpuSnapshot GpuProbe::snapshot() {
  GpuSnapshot snapshot;
  const auto program = find_on_path(m_options.program);
  if (!program)
    return snapshot;
  snapshot.available = true;
  CaptureOptions capture;
  capture.timeout = m_options.timeout;
  // Each rejected field is renamed or dropped; at most one retry per field.
  for (std::size_t attempt = 0; attempt <= k_default_fields.size(); ++attempt) {
    auto captured =
        capture_program({program->string(), fmt::format("--query-gpu={}", fmt::join(m_fields, ",")),
                         "--format=csv,noheader,nounits"},
                        capture);
    if (!captured) {
      snapshot.problem = captured.error().message;
      return snapshot;
    }
    if (captured->timed_out) {
      snapshot.problem = fmt::format("{} did not answer within {} ms; GPU facts are missing",
                                     program->string(), m_options.timeout.count());
      return snapshot;
    }
    if (captured->succeeded()) {
      auto gpus = parse_nvidia_smi_csv(captured->out, m_fields);
      if (gpus)
        snapshot.gpus = std::move(*gpus);
      else
        snapshot.problem = gpus.error().message;
      return snapshot;
    }
    const auto said = captured->out + captured->err;
    const auto rejected = rejected_field(said);
    const auto found = rejected ? std::ranges::find(m_fields, *rejected) : m_fields.end();
    if (found == m_fields.end()) {
      snapshot.problem = said.find("No devices were found") != std::string::npos
                             ? "nvidia-smi found no GPU"
                             : fmt::format("nvidia-smi failed (exit {}): {}",
                                           captured->exit_code.value_or(-1), first_line(said));
      return snapshot;
    }
    if (*found == k_reasons_field)
      *found = k_old_reasons_field;
    else
      m_fields.erase(found);
  }
  snapshot.problem = "nvidia-smi rejected every field asked for";
  return snapshot;
}

ThrottleFinding throttled_between(const GpuSnapshot& before, const GpuSnapshot& after) {
  ThrottleFinding finding;
  const auto add = [&finding](const std::string& why) {
    finding.throttled = true;
    finding.why += (finding.why.empty() ? "" : "; ") + why;
  };
  const auto same_gpu = [](const GpuFacts& a, const GpuFacts& b) {
    return a.uuid.empty() || b.uuid.empty() ? a.index == b.index : a.uuid == b.uuid;
  };
  for (const auto& old_gpu : before.gpus) {
    const auto match = std::ranges::find_if(
        after.gpus, [&](const GpuFacts& gpu) { return same_gpu(old_gpu, gpu); });
    if (match == after.gpus.end()) {
      add(fmt::format("GPU {} ({}) was gone after the run", old_gpu.index, old_gpu.uuid));
      continue;
    }
    const auto& new_gpu = *match;
    const std::array<std::pair<std::string_view, std::optional<double> SlowdownCounters::*>, 4>
        counters = {{{"sw_power_cap", &SlowdownCounters::sw_power_cap},
                     {"sw_thermal_slowdown", &SlowdownCounters::sw_thermal_slowdown},
                     {"hw_thermal_slowdown", &SlowdownCounters::hw_thermal_slowdown},
                     {"hw_power_brake_slowdown", &SlowdownCounters::hw_power_brake_slowdown}}};
    // Counters see a slowdown that began and ended between the snapshots; the active reasons
    // are all that older drivers tell.
    bool counted = false;
    for (const auto& [name, member] : counters) {
      const auto& was = old_gpu.counters.*member;
      const auto& now = new_gpu.counters.*member;
      if (was && now && *now > *was) {
        add(fmt::format("GPU {}: {} for {:.1f} ms", new_gpu.index, name, (*now - *was) / 1000.0));
        counted = true;
      }
    }
    const auto active =
        (old_gpu.reasons.value_or(0) | new_gpu.reasons.value_or(0)) & reason::slowdowns;
    if (active != 0 && !counted) {
      std::string names;
      for (const auto& name : reason_names(active))
        names += (names.empty() ? "" : ", ") + name;
      add(fmt::format("GPU {}: {} active", new_gpu.index, names));
    }
  }
  for (const auto& new_gpu : after.gpus)
    if (std::ranges::none_of(before.gpus,
                             [&](const GpuFacts& gpu) { return same_gpu(gpu, new_gpu); }))
      add(fmt::format("GPU {} ({}) appeared during the run", new_gpu.index, new_gpu.uuid));
  return finding;
}

} // namespace culprit::host
