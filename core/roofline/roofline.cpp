#include "core/roofline/roofline.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "core/parsers/metric.hpp"
#include "core/util/error.hpp"

namespace culprit::roofline {

namespace {

// Figures from NVIDIA's datasheets. Tensor-core TF32 figures are printed there "with sparsity";
// the dense figure used here is half of that.
constexpr double k_tera = 1e12;
constexpr GpuDatasheet k_datasheets[] = {
    {.match = {"B200"},
     .device = "NVIDIA B200",
     .fp32_tflops = 75.0,
     .tf32_tensor_tflops = 1125.0,
     .memory_tbps = 8.0,
     .citation = "NVIDIA HGX B200 specifications, per GPU (the 8-GPU board's FP32 600 TFLOPS, TF32"
                 " Tensor Core 18 PFLOPS with sparsity, 64 TB/s HBM3e, each divided by 8)"},
    {.match = {"H200", "NVL"},
     .device = "NVIDIA H200 NVL",
     .fp32_tflops = 60.0,
     .tf32_tensor_tflops = 417.5,
     .memory_tbps = 4.8,
     .citation = "NVIDIA H200 datasheet, H200 NVL: FP32 60 TFLOPS, TF32 Tensor Core 835 TFLOPS "
                 "with sparsity, 4.8 TB/s HBM3e"},
    {.match = {"H200"},
     .device = "NVIDIA H200 SXM",
     .fp32_tflops = 67.0,
     .tf32_tensor_tflops = 494.5,
     .memory_tbps = 4.8,
     .citation = "NVIDIA H200 datasheet, H200 SXM: FP32 67 TFLOPS, TF32 Tensor Core 989 TFLOPS "
                 "with sparsity, 4.8 TB/s HBM3e"},
    {.match = {"H100", "NVL"},
     .device = "NVIDIA H100 NVL",
     .fp32_tflops = 60.0,
     .tf32_tensor_tflops = 417.5,
     .memory_tbps = 3.9,
     .citation = "NVIDIA H100 datasheet, H100 NVL: FP32 60 TFLOPS, TF32 Tensor Core 835 TFLOPS "
                 "with sparsity, 3.9 TB/s HBM3"},
    {.match = {"H100", "PCIE"},
     .device = "NVIDIA H100 PCIe",
     .fp32_tflops = 51.0,
     .tf32_tensor_tflops = 378.0,
     .memory_tbps = 2.0,
     .citation = "NVIDIA H100 datasheet, H100 PCIe: FP32 51 TFLOPS, TF32 Tensor Core 756 TFLOPS "
                 "with sparsity, 2 TB/s HBM2e"},
    {.match = {"H100"}, // SXM: "NVIDIA H100 80GB HBM3"
     .device = "NVIDIA H100 SXM5",
     .fp32_tflops = 67.0,
     .tf32_tensor_tflops = 494.5,
     .memory_tbps = 3.35,
     .citation = "NVIDIA H100 datasheet, H100 SXM: FP32 67 TFLOPS, TF32 Tensor Core 989 TFLOPS "
                 "with sparsity, 3.35 TB/s HBM3"},
    {.match = {"A100", "SXM", "80GB"},
     .device = "NVIDIA A100 SXM4 80GB",
     .fp32_tflops = 19.5,
     .tf32_tensor_tflops = 156.0,
     .memory_tbps = 2.039,
     .citation = "NVIDIA A100 datasheet, A100 80GB SXM: FP32 19.5 TFLOPS, TF32 Tensor Core 156 "
                 "TFLOPS (312 with sparsity), 2,039 GB/s HBM2e"},
    {.match = {"A100", "SXM"},
     .device = "NVIDIA A100 SXM4 40GB",
     .fp32_tflops = 19.5,
     .tf32_tensor_tflops = 156.0,
     .memory_tbps = 1.555,
     .citation = "NVIDIA A100 datasheet, A100 40GB SXM: FP32 19.5 TFLOPS, TF32 Tensor Core 156 "
                 "TFLOPS (312 with sparsity), 1,555 GB/s HBM2"},
    {.match = {"A100", "PCIE", "80GB"},
     .device = "NVIDIA A100 PCIe 80GB",
     .fp32_tflops = 19.5,
     .tf32_tensor_tflops = 156.0,
     .memory_tbps = 1.935,
     .citation = "NVIDIA A100 datasheet, A100 80GB PCIe: FP32 19.5 TFLOPS, TF32 Tensor Core 156 "
                 "TFLOPS (312 with sparsity), 1,935 GB/s HBM2e"},
    {.match = {"A100", "PCIE"},
     .device = "NVIDIA A100 PCIe 40GB",
     .fp32_tflops = 19.5,
     .tf32_tensor_tflops = 156.0,
     .memory_tbps = 1.555,
     .citation = "NVIDIA A100 datasheet, A100 40GB PCIe: FP32 19.5 TFLOPS, TF32 Tensor Core 156 "
                 "TFLOPS (312 with sparsity), 1,555 GB/s HBM2"},
};

std::string upper(std::string_view text) {
  std::string result(text);
  std::ranges::transform(result, result.begin(),
                         [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return result;
}

bool positive_finite(double value) {
  return std::isfinite(value) && value > 0;
}

double median(std::vector<double> values) {
  std::ranges::sort(values);
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

} // namespace

std::span<const GpuDatasheet> gpu_datasheets() {
  return k_datasheets;
}

std::optional<Peaks> gpu_peaks(std::string_view nvidia_smi_name) {
  const std::string name = upper(nvidia_smi_name);
  for (const auto& sheet : k_datasheets) {
    const bool matches = std::ranges::all_of(
        sheet.match, [&](std::string_view word) { return name.find(word) != std::string::npos; });
    if (matches) {
      return Peaks{.device = std::string(sheet.device),
                   .flops_per_second = sheet.fp32_tflops * k_tera,
                   .tensor_flops_per_second = sheet.tf32_tensor_tflops * k_tera,
                   .bytes_per_second = sheet.memory_tbps * k_tera,
                   .source = "datasheet: " + std::string(sheet.citation)};
    }
  }
  return std::nullopt;
}

Result<Peaks> apply_overrides(Peaks peaks, const PeakOverrides& overrides) {
  const auto take = [&](const std::optional<double>& value, std::string_view what,
                        auto&& assign) -> Status {
    if (!value)
      return {};
    if (!positive_finite(*value))
      return usage_error("the {} peak must be a positive number, not {}", what, *value);
    assign(*value);
    peaks.source += fmt::format("; {} from the configuration", what);
    return {};
  };
  CULPRIT_TRY(take(overrides.flops_per_second, "FLOP/s",
                   [&](double value) { peaks.flops_per_second = value; }));
  CULPRIT_TRY(take(overrides.tensor_flops_per_second, "tensor FLOP/s",
                   [&](double value) { peaks.tensor_flops_per_second = value; }));
  CULPRIT_TRY(take(overrides.bytes_per_second, "bandwidth",
                   [&](double value) { peaks.bytes_per_second = value; }));
  return peaks;
}

std::string_view to_string(Limiter limiter) {
  return limiter == Limiter::compute ? "compute" : "memory";
}

Result<RooflinePoint> roofline_point(double flops, double bytes, double seconds, const Peaks& peaks,
                                     ComputeUnit unit) {
  if (!std::isfinite(flops) || !std::isfinite(bytes) || flops < 0 || bytes < 0)
    return usage_error("FLOPs ({}) and bytes ({}) must be non-negative numbers", flops, bytes);
  if (flops == 0 && bytes == 0)
    return usage_error("a case with neither FLOPs nor bytes has no roofline");
  if (!positive_finite(seconds))
    return usage_error("the time per call must be a positive number of seconds, not {}", seconds);
  const double peak_flops = unit == ComputeUnit::tensor
                                ? peaks.tensor_flops_per_second.value_or(0.0)
                                : peaks.flops_per_second;
  if (flops > 0 && !positive_finite(peak_flops)) {
    return usage_error("no {} FLOP/s peak for {}: give it in the configuration",
                       unit == ComputeUnit::tensor ? "tensor-core" : "vector", peaks.device);
  }
  if (bytes > 0 && !positive_finite(peaks.bytes_per_second))
    return usage_error("no bandwidth peak for {}: give it in the configuration", peaks.device);

  RooflinePoint point;
  point.flops = flops;
  point.bytes = bytes;
  point.seconds = seconds;
  point.arithmetic_intensity = bytes > 0 ? flops / bytes : std::numeric_limits<double>::infinity();
  point.achieved_flops_per_second = flops / seconds;
  point.achieved_bytes_per_second = bytes / seconds;
  const double compute_seconds = flops > 0 ? flops / peak_flops : 0.0;
  const double memory_seconds = bytes > 0 ? bytes / peaks.bytes_per_second : 0.0;
  point.limiter = compute_seconds >= memory_seconds ? Limiter::compute : Limiter::memory;
  point.bound_seconds = std::max(compute_seconds, memory_seconds);
  point.bound_flops_per_second = flops / point.bound_seconds;
  point.fraction_of_bound = point.bound_seconds / seconds;
  return point;
}

Result<std::vector<CaseRoofline>> roofline_cases(const parsers::ParsedOutput& output,
                                                 std::string_view metric, const Peaks& peaks,
                                                 ComputeUnit unit) {
  std::vector<CaseRoofline> rows;
  for (const auto& info : output.cases) {
    const double flops = info.flops.value_or(0.0);
    const double bytes = info.bytes.value_or(0.0);
    if (flops <= 0 && bytes <= 0)
      continue;
    std::vector<double> seconds;
    for (const auto& samples : output.samples) {
      if (samples.case_name != info.case_name || samples.metric != metric)
        continue;
      if (samples.unit != "s") {
        return usage_error("metric {} of case {} is in '{}', not seconds: it is not a time", metric,
                           info.case_name, samples.unit);
      }
      seconds.insert(seconds.end(), samples.values.begin(), samples.values.end());
    }
    if (seconds.empty())
      continue;
    CULPRIT_TRY_ASSIGN(auto point, roofline_point(flops, bytes, median(seconds), peaks, unit));
    rows.push_back(CaseRoofline{.case_name = info.case_name, .point = point});
  }
  return rows;
}

} // namespace culprit::roofline
