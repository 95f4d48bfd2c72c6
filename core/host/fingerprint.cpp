#include "core/host/fingerprint.hpp"

#include <cmath>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/git/hash.hpp"
#include "core/host/gpu.hpp"

namespace culprit::host {
namespace {

template <class T> nlohmann::json or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json gpu_json(const GpuFacts& gpu) {
  nlohmann::json reasons = nullptr;
  if (gpu.reasons)
    reasons = reason_names(*gpu.reasons);
  return {
      {"index", gpu.index},
      {"name", gpu.name},
      {"uuid", gpu.uuid},
      {"driver_version", gpu.driver_version},
      {"sm_clock_mhz", or_null(gpu.sm_clock_mhz)},
      {"memory_clock_mhz", or_null(gpu.memory_clock_mhz)},
      {"max_sm_clock_mhz", or_null(gpu.max_sm_clock_mhz)},
      {"max_memory_clock_mhz", or_null(gpu.max_memory_clock_mhz)},
      {"applications_clock_mhz", or_null(gpu.applications_clock_mhz)},
      {"default_applications_clock_mhz", or_null(gpu.default_applications_clock_mhz)},
      {"power_draw_w", or_null(gpu.power_draw_w)},
      {"power_limit_w", or_null(gpu.power_limit_w)},
      {"temperature_c", or_null(gpu.temperature_c)},
      {"persistence_mode", or_null(gpu.persistence_mode)},
      {"mig_mode", or_null(gpu.mig_mode)},
      {"ecc_mode", or_null(gpu.ecc_mode)},
      {"clocks_event_reasons", reasons},
  };
}

} // namespace

std::string host_id(const HostFingerprint& host) {
  git::Hasher hasher;
  hasher.add("culprit.host/1").add(host.hostname).add(host.kernel).add(host.cpu.model);
  hasher.add(std::to_string(host.cpu.logical_cores));
  hasher.add(host.cpu.physical_cores ? std::to_string(*host.cpu.physical_cores) : "");
  constexpr double gib = 1024.0 * 1024.0 * 1024.0;
  hasher.add(host.memory.total_bytes
                 ? std::to_string(std::llround(static_cast<double>(*host.memory.total_bytes) / gib))
                 : "");
  for (const auto& gpu : host.gpu.gpus)
    hasher.add(gpu.name).add(gpu.uuid).add(gpu.driver_version);
  return hasher.hex();
}

nlohmann::json to_json(const HostFingerprint& host) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& gpu : host.gpu.gpus)
    gpus.push_back(gpu_json(gpu));
  nlohmann::json load = nullptr;
  if (host.load)
    load = {host.load->one, host.load->five, host.load->fifteen};
  return {
      {"host_id", host_id(host)},
      {"hostname", host.hostname},
      {"os", host.kernel.empty() ? "Linux" : "Linux " + host.kernel},
      {"kernel", host.kernel},
      {"cpu", host.cpu.model},
      {"cores", host.cpu.logical_cores},
      {"physical_cores", or_null(host.cpu.physical_cores)},
      {"governors", host.cpu.governors},
      {"turbo", or_null(host.cpu.turbo)},
      {"turbo_control", host.cpu.turbo_control},
      {"frequency_mhz", or_null(host.cpu.frequency_mhz)},
      {"memory_total_bytes", or_null(host.memory.total_bytes)},
      {"memory_available_bytes", or_null(host.memory.available_bytes)},
      {"load_average", load},
      {"container", or_null(host.virtualization.container)},
      {"vm", or_null(host.virtualization.vm)},
      {"virtualization_evidence", host.virtualization.evidence},
      {"nvidia_smi", host.gpu.available},
      {"gpus", gpus},
      {"gpu_problem", or_null(host.gpu.problem)},
  };
}

} // namespace culprit::host
