#include "core/host/noise.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "core/host/fingerprint.hpp"
#include "core/host/gpu.hpp"

namespace culprit::host {
namespace {

std::string gpu_label(const GpuFacts& gpu) {
  return fmt::format("GPU {} ({})", gpu.index, gpu.name);
}

void cpu_warnings(const HostFingerprint& host, std::vector<NoiseWarning>& warnings) {
  std::vector<std::string> slow;
  std::ranges::copy_if(host.cpu.governors, std::back_inserter(slow),
                       [](const std::string& governor) { return governor != "performance"; });
  if (!slow.empty())
    warnings.push_back(
        {"governor",
         fmt::format("CPU frequency governor is {}: clocks follow the load, so run times drift; "
                     "set it to performance (sudo cpupower frequency-set -g performance)",
                     fmt::join(slow, ", ")),
         fmt::format("governor {}", fmt::join(slow, ", "))});

  const int cores = std::max(host.cpu.logical_cores, 1);
  if (host.load && host.load->one > std::max(1.0, k_busy_load_per_core * cores))
    warnings.push_back(
        {"load",
         fmt::format("load average is {:.2f} on {} logical cores: other processes compete for "
                     "CPU time and caches; wait for them to finish or measure on a quieter machine",
                     host.load->one, host.cpu.logical_cores),
         fmt::format("load average {:.2f} on {} cores", host.load->one, host.cpu.logical_cores)});

  if (host.cpu.turbo == true) {
    const bool intel = host.cpu.turbo_control.ends_with("no_turbo");
    warnings.push_back(
        {"turbo",
         fmt::format("turbo boost is on ({}): the clock depends on temperature and on "
                     "the other cores' load, which adds variance; turn it off while "
                     "measuring (echo {} | sudo tee {})",
                     host.cpu.turbo_control, intel ? 1 : 0, host.cpu.turbo_control),
         "turbo boost on"});
  }

  if (host.virtualization.vm)
    warnings.push_back(
        {"vm",
         fmt::format("running in a virtual machine ({}): the hypervisor and other guests "
                     "take CPU time and share caches; prefer bare metal for small "
                     "differences, and compare only runs made on this machine",
                     *host.virtualization.vm),
         fmt::format("{} virtual machine", *host.virtualization.vm)});
}

void gpu_warnings(const HostFingerprint& host, std::vector<NoiseWarning>& warnings) {
  if (host.gpu.problem && host.gpu.problem != "nvidia-smi found no GPU")
    warnings.push_back({"gpu_unreadable",
                        fmt::format("{}; GPU facts and throttling checks are missing until "
                                    "nvidia-smi works",
                                    *host.gpu.problem),
                        "GPU facts unreadable"});
  for (const auto& gpu : host.gpu.gpus) {
    if (gpu.persistence_mode == false)
      warnings.push_back(
          {"gpu_persistence",
           fmt::format("{} is not in persistence mode: the driver sets the GPU up anew for each "
                       "run, which costs time and changes clocks; enable it (sudo nvidia-smi -i "
                       "{} -pm 1)",
                       gpu_label(gpu), gpu.index),
           fmt::format("GPU {} not in persistence mode", gpu.index)});
    if (!gpu_clocks_look_locked(gpu))
      warnings.push_back(
          {"gpu_clocks",
           fmt::format("{} clocks do not look locked: boost clocks follow temperature and power, "
                       "which adds variance; lock them (sudo nvidia-smi -i {} "
                       "--lock-gpu-clocks=MHz), or ignore this if they are",
                       gpu_label(gpu), gpu.index),
           fmt::format("GPU {} clocks not locked", gpu.index)});
    if (gpu.reasons && (*gpu.reasons & reason::slowdowns) != 0)
      warnings.push_back(
          {"gpu_throttling",
           fmt::format("{} is throttling now ({}){}: measurements will be slow and uneven; let it "
                       "cool down and check its cooling and power limit",
                       gpu_label(gpu),
                       fmt::join(reason_names(*gpu.reasons & reason::slowdowns), ", "),
                       gpu.temperature_c ? fmt::format(" at {:.0f} C", *gpu.temperature_c) : ""),
           fmt::format("GPU {} throttling", gpu.index)});
    if (gpu.mig_mode == true)
      warnings.push_back({"gpu_mig",
                          fmt::format("{} is in MIG mode: its instances share power, clocks and "
                                      "memory bandwidth; make sure no other instance is busy while "
                                      "measuring",
                                      gpu_label(gpu)),
                          fmt::format("GPU {} in MIG mode", gpu.index)});
  }
}

} // namespace

bool gpu_clocks_look_locked(const GpuFacts& gpu) {
  if (gpu.reasons && (*gpu.reasons & reason::applications_clocks_setting) != 0)
    return true;
  return gpu.applications_clock_mhz && gpu.default_applications_clock_mhz &&
         *gpu.applications_clock_mhz > *gpu.default_applications_clock_mhz;
}

std::string noise_summary(const std::vector<NoiseWarning>& warnings) {
  if (warnings.empty())
    return {};
  std::vector<std::string> briefs;
  briefs.reserve(warnings.size());
  for (const auto& warning : warnings)
    briefs.push_back(warning.brief);
  std::string joined;
  for (const auto& brief : briefs)
    joined += (joined.empty() ? "" : "; ") + brief;
  return fmt::format("noisy host ({}): small differences may not resolve; 'culprit env' says "
                     "what to do",
                     joined);
}

std::vector<NoiseWarning> noise_warnings(const HostFingerprint& host) {
  std::vector<NoiseWarning> warnings;
  cpu_warnings(host, warnings);
  gpu_warnings(host, warnings);
  return warnings;
}

} // namespace culprit::host
