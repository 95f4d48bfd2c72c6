#include "core/roofline/peaks.hpp"

#include <chrono>
#include <cmath>
#include <utility>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/measure/compare.hpp"

namespace culprit::roofline {
namespace {

constexpr double k_giga = 1e9;

bool given_for_unit(const recipe::RooflineRecipe& recipe) {
  if (!recipe.peak_gbps)
    return false;
  return recipe.compute == "tensor" ? recipe.peak_tensor_gflops.has_value()
                                    : recipe.peak_gflops.has_value();
}

PeakOverrides overrides_of(const recipe::RooflineRecipe& recipe) {
  const auto scaled = [](const std::optional<double>& giga) -> std::optional<double> {
    return giga ? std::optional(*giga * k_giga) : std::nullopt;
  };
  return {.flops_per_second = scaled(recipe.peak_gflops),
          .tensor_flops_per_second = scaled(recipe.peak_tensor_gflops),
          .bytes_per_second = scaled(recipe.peak_gbps)};
}

bool is_gpu_run(const std::optional<parsers::DeviceInfo>& device, std::string_view metric,
                const recipe::RooflineRecipe& recipe) {
  if (!recipe.device.empty())
    return recipe.device != "cpu";
  if (device && device->backend == "cuda")
    return true;
  return measure::is_gpu_metric(metric);
}

} // namespace

std::optional<int> fp32_lanes_per_sm(int major, int minor) {
  switch (major) {
  case 3:
    return 192;
  case 5:
    return 128;
  case 6:
    return minor == 0 ? 64 : 128;
  case 7:
    return 64;
  case 8:
    return minor == 0 ? 64 : 128;
  case 9:
  case 10:
  case 11:
  case 12:
    return 128;
  default:
    return std::nullopt;
  }
}

std::optional<Peaks> gpu_peaks_from_properties(const std::string& name,
                                               const parsers::GpuProperties& properties) {
  const auto lanes = fp32_lanes_per_sm(properties.compute_major, properties.compute_minor);
  if (!lanes || properties.sm_count <= 0 || !(properties.sm_clock_mhz > 0) ||
      !(properties.memory_clock_mhz > 0) || properties.memory_bus_bits <= 0)
    return std::nullopt;
  Peaks peaks;
  peaks.device = name;
  peaks.flops_per_second = properties.sm_count * *lanes * 2.0 * properties.sm_clock_mhz * 1e6;
  peaks.bytes_per_second =
      properties.memory_clock_mhz * 1e6 * 2.0 * properties.memory_bus_bits / 8.0;
  if (const auto sheet = gpu_peaks(name))
    peaks.tensor_flops_per_second = sheet->tensor_flops_per_second;
  peaks.source = fmt::format(
      "the GPU's properties: {} SMs x {} FP32 lanes x 2 x {:g} MHz; memory {:g} MHz x 2 x {} bits "
      "(compute capability {}.{})",
      properties.sm_count, *lanes, properties.sm_clock_mhz, properties.memory_clock_mhz,
      properties.memory_bus_bits, properties.compute_major, properties.compute_minor);
  return peaks;
}

std::string cpu_peak_scope(const std::vector<int>& cpus, std::optional<int> threads) {
  auto scope = cpus.empty() ? std::string("cpu") : fmt::format("cpu:{}", fmt::join(cpus, ","));
  if (threads)
    scope += fmt::format("/{}", *threads);
  return scope;
}

Result<Peaks> measure_and_keep_cpu_peaks(store::Store& store, const std::string& host_id,
                                         const std::vector<int>& cpus, std::optional<int> threads,
                                         const CpuMeasure& measure) {
  CpuPeakOptions options;
  options.cpus = cpus;
  if (threads)
    options.threads = static_cast<unsigned>(*threads);
  CULPRIT_TRY_ASSIGN(auto peaks, measure(options));
  CULPRIT_TRY(store.save_peaks({.host_id = host_id,
                                .scope = cpu_peak_scope(cpus, threads),
                                .device = peaks.device,
                                .flops_per_second = peaks.flops_per_second,
                                .tensor_flops_per_second = peaks.tensor_flops_per_second,
                                .bytes_per_second = peaks.bytes_per_second,
                                .source = peaks.source,
                                .measured = store::now()}));
  return peaks;
}

Result<Peaks> PeakResolver::cpu_peaks() {
  if (m_cpu)
    return *m_cpu;
  const auto scope = cpu_peak_scope(m_setup.cpus, m_setup.recipe.threads);
  CULPRIT_TRY_ASSIGN(const auto kept, m_store.find_peaks(m_setup.host_id, scope));
  if (kept) {
    m_cpu =
        Peaks{.device = kept->device,
              .flops_per_second = kept->flops_per_second,
              .tensor_flops_per_second = kept->tensor_flops_per_second,
              .bytes_per_second = kept->bytes_per_second,
              .source = kept->source +
                        fmt::format(
                            " (kept since {}; 'culprit env --peaks' "
                            "measures again)",
                            fmt::format("{:%Y-%m-%d %H:%M} UTC",
                                        std::chrono::floor<std::chrono::seconds>(kept->measured)))};
    return *m_cpu;
  }
  if (!m_setup.this_host)
    return usage_error("the CPU peaks of host {} were never measured there; run 'culprit env "
                       "--peaks' on it, or give [roofline] peak_gflops and peak_gbps",
                       m_setup.host_id.substr(0, 12));
  CULPRIT_TRY_ASSIGN(m_cpu, measure_and_keep_cpu_peaks(m_store, m_setup.host_id, m_setup.cpus,
                                                       m_setup.recipe.threads, m_measure));
  return *m_cpu;
}

Result<PeakAnswer> PeakResolver::device_peaks(const std::optional<parsers::DeviceInfo>& device,
                                              std::string_view metric) {
  const auto& recipe = m_setup.recipe;
  PeakAnswer answer;
  answer.unit = recipe.compute == "tensor" ? ComputeUnit::tensor : ComputeUnit::vector;
  if (given_for_unit(recipe)) {
    Peaks given;
    given.device = !recipe.device.empty() ? recipe.device
                   : device               ? device->name
                                          : std::string("the configured device");
    given.source = "culprit.toml [roofline] or the flags";
    CULPRIT_TRY_ASSIGN(answer.peaks, apply_overrides(given, overrides_of(recipe)));
    answer.peaks->source = "culprit.toml [roofline] or the flags";
    return answer;
  }
  std::optional<Peaks> peaks;
  if (is_gpu_run(device, metric, recipe)) {
    if (!recipe.device.empty()) {
      peaks = gpu_peaks(recipe.device);
      if (!peaks) {
        answer.reason = fmt::format("[roofline] device '{}' is not in the datasheet table: give "
                                    "peak_gflops and peak_gbps",
                                    recipe.device);
        return answer;
      }
    } else if (device && device->gpu) {
      peaks = gpu_peaks_from_properties(device->name, *device->gpu);
    }
    if (!peaks) {
      std::string name = device && !device->name.empty() ? device->name : std::string();
      if (name.empty() && !m_setup.gpu_names.empty())
        name = m_setup.gpu_names.front();
      if (!name.empty())
        peaks = gpu_peaks(name);
      if (!peaks) {
        answer.reason = fmt::format("the GPU's peaks are unknown ({}): give [roofline] "
                                    "peak_gflops and peak_gbps, or --peak-gflops and --peak-gbps",
                                    name.empty() ? std::string("no device was named")
                                                 : fmt::format("'{}' is not in the datasheet "
                                                               "table",
                                                               name));
        return answer;
      }
    }
  } else {
    auto cpu = cpu_peaks();
    if (!cpu && cpu.error().code == ExitCode::usage) {
      answer.reason = cpu.error().message;
      return answer;
    }
    CULPRIT_TRY_ASSIGN(peaks, std::move(cpu));
  }
  CULPRIT_TRY_ASSIGN(answer.peaks, apply_overrides(*peaks, overrides_of(recipe)));
  if (answer.unit == ComputeUnit::tensor && !answer.peaks->tensor_flops_per_second) {
    answer.reason = fmt::format("[roofline] compute is \"tensor\", and {} has no tensor-core peak "
                                "known: give peak_tensor_gflops",
                                answer.peaks->device);
    answer.peaks.reset();
  }
  return answer;
}

Result<PeakAnswer> PeakResolver::peaks_for(const std::optional<parsers::DeviceInfo>& device,
                                           std::string_view metric) {
  const bool gpu = is_gpu_run(device, metric, m_setup.recipe);
  const auto key = gpu ? "gpu:" + (device ? device->name : std::string()) : std::string("cpu");
  if (const auto it = m_answers.find(key); it != m_answers.end())
    return it->second;
  CULPRIT_TRY_ASSIGN(auto answer, device_peaks(device, metric));
  return m_answers.emplace(key, std::move(answer)).first->second;
}

} // namespace culprit::roofline
