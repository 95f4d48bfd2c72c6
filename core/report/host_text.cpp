#include "core/report/host_text.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>
#include <fmt/format.h>

#include "core/host/fingerprint.hpp"
#include "core/host/gpu.hpp"
#include "core/host/noise.hpp"

namespace culprit::report {
namespace {

using host::CpuFacts;
using host::GpuFacts;
using host::Virtualization;

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

template <class T> std::string or_unknown(const std::optional<T>& value, std::string_view format) {
  return value ? fmt::format(fmt::runtime(format), *value) : "?";
}

std::string on_off(std::optional<bool> value) {
  if (!value)
    return "?";
  return *value ? "on" : "off";
}

void line(std::string& out, std::string_view label, std::string_view value) {
  out += fmt::format("{:<16}{}\n", label, value);
}

std::string cpu_line(const CpuFacts& cpu) {
  auto text = fmt::format("{}, {} logical cores", cpu.model, cpu.logical_cores);
  if (cpu.physical_cores)
    text += fmt::format(" ({} physical)", *cpu.physical_cores);
  return text;
}

std::string frequency_line(const CpuFacts& cpu) {
  std::string governors;
  for (const auto& governor : cpu.governors)
    governors += (governors.empty() ? "" : ", ") + governor;
  return fmt::format("governor {}, turbo {}, {} MHz now", governors.empty() ? "unknown" : governors,
                     cpu.turbo ? on_off(cpu.turbo) + " (" + cpu.turbo_control + ")" : "unknown",
                     or_unknown(cpu.frequency_mhz, "{:.0f}"));
}

std::string virtualization_line(const Virtualization& virt) {
  if (!virt.container && !virt.vm)
    return "none detected (bare metal)";
  std::vector<std::string> parts;
  if (virt.container)
    parts.push_back("container " + *virt.container);
  if (virt.vm)
    parts.push_back("virtual machine " + *virt.vm);
  std::string evidence;
  for (const auto& item : virt.evidence)
    evidence += (evidence.empty() ? "" : "; ") + item;
  return fmt::format("{} ({})", fmt::join(parts, ", "), evidence);
}

void gpu_lines(std::string& out, const GpuFacts& gpu) {
  line(out, fmt::format("gpu {}", gpu.index),
       fmt::format("{} ({}), driver {}", gpu.name, gpu.uuid, gpu.driver_version));
  line(out, "",
       fmt::format(
           "sm {}/{} MHz, memory {}/{} MHz, {} of {} W, {} C",
           or_unknown(gpu.sm_clock_mhz, "{:.0f}"), or_unknown(gpu.max_sm_clock_mhz, "{:.0f}"),
           or_unknown(gpu.memory_clock_mhz, "{:.0f}"),
           or_unknown(gpu.max_memory_clock_mhz, "{:.0f}"), or_unknown(gpu.power_draw_w, "{:.0f}"),
           or_unknown(gpu.power_limit_w, "{:.0f}"), or_unknown(gpu.temperature_c, "{:.0f}")));
  std::string reasons = "?";
  if (gpu.reasons) {
    const auto names = host::reason_names(*gpu.reasons);
    reasons = names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
  }
  line(out, "",
       fmt::format("persistence {}, MIG {}, ECC {}, clocks locked {}, clock event reasons: {}",
                   on_off(gpu.persistence_mode), on_off(gpu.mig_mode), on_off(gpu.ecc_mode),
                   host::gpu_clocks_look_locked(gpu) ? "yes" : "no", reasons));
}

} // namespace

std::string render_host_text(const host::HostFingerprint& host,
                             const std::vector<host::NoiseWarning>& warnings) {
  std::string out;
  line(out, "host", fmt::format("{} (id {})", host.hostname, host::host_id(host).substr(0, 12)));
  line(out, "kernel", host.kernel.empty() ? "?" : host.kernel);
  line(out, "cpu", cpu_line(host.cpu));
  line(out, "frequency", frequency_line(host.cpu));
  const auto gib = [](std::optional<std::uint64_t> bytes) -> std::optional<double> {
    if (!bytes)
      return std::nullopt;
    return static_cast<double>(*bytes) / k_gib;
  };
  line(out, "memory",
       fmt::format("{} GiB total, {} GiB available",
                   or_unknown(gib(host.memory.total_bytes), "{:.1f}"),
                   or_unknown(gib(host.memory.available_bytes), "{:.1f}")));
  line(out, "load average",
       host.load ? fmt::format("{:.2f} {:.2f} {:.2f} (1, 5, 15 min)", host.load->one,
                               host.load->five, host.load->fifteen)
                 : "?");
  line(out, "virtualization", virtualization_line(host.virtualization));
  if (!host.gpu.available)
    line(out, "gpus", "none (no nvidia-smi on PATH)");
  else if (host.gpu.gpus.empty())
    line(out, "gpus", host.gpu.problem.value_or("none"));
  for (const auto& gpu : host.gpu.gpus)
    gpu_lines(out, gpu);
  out += '\n';
  if (warnings.empty())
    out += "no noise warnings\n";
  for (const auto& warning : warnings)
    out += fmt::format("warning: {}\n", warning.message);
  return out;
}

std::string render_noise_profile(const host::NoiseProfile& profile) {
  const auto& i = profile.interference;
  std::string out =
      fmt::format("machine noise over {:g} s: a calibration loop of {:.0f} us, {} times{}{}\n",
                  profile.seconds, profile.iteration_seconds * 1e6, profile.iterations,
                  profile.cpu ? fmt::format(" on CPU {}", *profile.cpu) : std::string(),
                  profile.duet ? fmt::format(", then on CPUs {} and {} at once",
                                             profile.duet->cpus[0], profile.duet->cpus[1])
                               : std::string());
  const auto row = [&](std::string_view label, const std::string& value) {
    out += fmt::format("  {:<14} {}\n", label, value);
  };
  if (const auto& states = i.states)
    row("speed states",
        fmt::format("two: the slow one {:.2g}x the fast, slow {:.0f}% of the time, in stretches "
                    "of about {:.2g} ms",
                    states->slow / states->fast, states->slow_share * 100,
                    profile.switch_seconds * 1e3));
  else
    row("speed states", "one");
  row("spread", fmt::format("the 90th percentile iteration {:.1f}% above the 10th{}",
                            i.spread * 100, i.one_sided ? ", one-sided" : ""));
  row("drift", i.drift ? fmt::format("{:+.1f}% over the first half (Kendall p = {:.2g})",
                                     i.drift->change * 100, i.drift->p_value)
                       : std::string("none"));
  if (const auto& d = profile.duet)
    row("duet", fmt::format("both CPUs in the same state {:.0f}% of the time; the ratio of the "
                            "minimums of two 10 ms runs spreads {:.2f}% side by side, {:.2f}% one "
                            "after the other",
                            d->same_state * 100, d->spread_duet * 100, d->spread_apart * 100));
  for (const auto& line : profile.advice)
    out += fmt::format("advice: {}\n", line);
  return out;
}

} // namespace culprit::report
