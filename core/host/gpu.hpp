#pragma once
// NVIDIA GPUs as nvidia-smi reports them: `nvidia-smi --query-gpu=FIELDS
// --format=csv,noheader,nounits` prints one line per GPU, the values in the order of FIELDS,
// separated by ", ", with "[N/A]", "[Not Supported]" (or another bracketed word) where a value is
// unknown. Field names differ between drivers (clocks_event_reasons.* since driver 535 replaced
// clocks_throttle_reasons.*), and an unknown field fails the whole query with `Field "X" is not a
// valid field to query.`; GpuProbe drops or renames such a field and asks again.

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"

namespace culprit::host {

// Bits of the clocks event (throttle) reasons mask, as in NVML's nvmlClocksEventReasons.
namespace reason {
inline constexpr std::uint64_t gpu_idle = 0x1;
inline constexpr std::uint64_t applications_clocks_setting = 0x2;
inline constexpr std::uint64_t sw_power_cap = 0x4;
inline constexpr std::uint64_t hw_slowdown = 0x8;
inline constexpr std::uint64_t sync_boost = 0x10;
inline constexpr std::uint64_t sw_thermal_slowdown = 0x20;
inline constexpr std::uint64_t hw_thermal_slowdown = 0x40;
inline constexpr std::uint64_t hw_power_brake_slowdown = 0x80;
inline constexpr std::uint64_t display_clock_setting = 0x100;
// The reasons that slow a busy GPU down: power and thermal limits, hardware slowdown.
inline constexpr std::uint64_t slowdowns = sw_power_cap | hw_slowdown | sw_thermal_slowdown |
                                           hw_thermal_slowdown | hw_power_brake_slowdown;
} // namespace reason

// The names of the bits set in a reasons mask, e.g. {"hw_thermal_slowdown"}.
std::vector<std::string> reason_names(std::uint64_t mask);

// Time spent in each slowdown since the driver loaded (clocks_event_reasons_counters.*), in
// microseconds; only newer drivers report them.
struct SlowdownCounters {
  std::optional<double> sw_power_cap;
  std::optional<double> sw_thermal_slowdown;
  std::optional<double> hw_thermal_slowdown;
  std::optional<double> hw_power_brake_slowdown;
};

struct GpuFacts {
  int index = 0;
  std::string name;
  std::string uuid;
  std::string driver_version;
  std::optional<double> sm_clock_mhz;
  std::optional<double> memory_clock_mhz;
  std::optional<double> max_sm_clock_mhz;
  std::optional<double> max_memory_clock_mhz;
  std::optional<double> applications_clock_mhz;
  std::optional<double> default_applications_clock_mhz;
  std::optional<double> power_draw_w;
  std::optional<double> power_limit_w;
  std::optional<double> temperature_c;
  std::optional<bool> persistence_mode;
  std::optional<bool> mig_mode;
  std::optional<bool> ecc_mode;
  std::optional<std::uint64_t> reasons; // active clocks event reasons
  SlowdownCounters counters;
};

// The fields culprit asks for, in order.
std::span<const std::string_view> default_gpu_fields();

// Parses the output of a query of `fields` (one line per GPU); an Error names a line whose
// number of values does not match.
Result<std::vector<GpuFacts>> parse_nvidia_smi_csv(std::string_view output,
                                                   std::span<const std::string> fields);

struct GpuProbeOptions {
  std::string program = "nvidia-smi"; // a name looked up on PATH, or a path
  std::chrono::milliseconds timeout{5000};
};

// What one look at the GPUs found. `available` is false when there is no nvidia-smi; `problem`
// says why the GPUs could not be read when nvidia-smi is there but failed.
struct GpuSnapshot {
  bool available = false;
  std::vector<GpuFacts> gpus;
  std::optional<std::string> problem;
};

// Reads the GPUs through nvidia-smi. Remembers which fields the driver knows, so that the
// snapshots before and after a run cost one nvidia-smi call each.
class GpuProbe {
public:
  explicit GpuProbe(GpuProbeOptions options = {});
  GpuSnapshot snapshot();

private:
  GpuProbeOptions m_options;
  std::vector<std::string> m_fields;
};

// Whether the GPUs throttled between two snapshots taken before and after a run, and why.
// A GPU throttled when a slowdown counter grew, or when a slowdown reason (power cap, thermal,
// hardware slowdown, power brake) was active in either snapshot. A GPU that is in one snapshot
// and not the other also counts, since its runs cannot be trusted.
struct ThrottleFinding {
  bool throttled = false;
  std::string why; // e.g. "GPU 0: hw_thermal_slowdown for 250.0 ms"
};
ThrottleFinding throttled_between(const GpuSnapshot& before, const GpuSnapshot& after);

} // namespace culprit::host
