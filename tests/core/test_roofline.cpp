#include "core/roofline/roofline.hpp"

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace culprit {
namespace {

roofline::Peaks simple_peaks() {
  return roofline::Peaks{"test device", 1e12, 8e12, 1e11, "test"};
}

TEST(Roofline, NamesFromNvidiaSmiPickTheirDatasheetRow) {
  struct Expected {
    const char* smi_name;
    const char* device;
    double bandwidth_tbps;
  };
  const Expected expected[] = {
      {"NVIDIA A100-SXM4-80GB", "NVIDIA A100 SXM4 80GB", 2.039},
      {"NVIDIA A100-SXM4-40GB", "NVIDIA A100 SXM4 40GB", 1.555},
      {"NVIDIA A100 80GB PCIe", "NVIDIA A100 PCIe 80GB", 1.935},
      {"NVIDIA A100-PCIE-40GB", "NVIDIA A100 PCIe 40GB", 1.555},
      {"NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5", 3.35},
      {"NVIDIA H100 PCIe", "NVIDIA H100 PCIe", 2.0},
      {"NVIDIA H100 NVL", "NVIDIA H100 NVL", 3.9},
      {"NVIDIA H200", "NVIDIA H200 SXM", 4.8},
      {"NVIDIA H200 NVL", "NVIDIA H200 NVL", 4.8},
      {"NVIDIA B200", "NVIDIA B200", 8.0},
      {"nvidia h100 pcie", "NVIDIA H100 PCIe", 2.0},
  };
  for (const auto& one : expected) {
    const auto peaks = roofline::gpu_peaks(one.smi_name);
    ASSERT_TRUE(peaks) << one.smi_name;
    EXPECT_EQ(peaks->device, one.device) << one.smi_name;
    EXPECT_DOUBLE_EQ(peaks->bytes_per_second, one.bandwidth_tbps * 1e12) << one.smi_name;
    EXPECT_TRUE(peaks->source.starts_with("datasheet: NVIDIA")) << peaks->source;
  }
  const auto h100 = roofline::gpu_peaks("NVIDIA H100 80GB HBM3");
  EXPECT_DOUBLE_EQ(h100->flops_per_second, 67e12);
  EXPECT_DOUBLE_EQ(h100->tensor_flops_per_second.value_or(0), 494.5e12); // 989 with sparsity
  EXPECT_DOUBLE_EQ(
      roofline::gpu_peaks("NVIDIA A100-SXM4-80GB")->tensor_flops_per_second.value_or(0), 156e12);
}

TEST(Roofline, UnknownGpusHaveNoDatasheetPeaks) {
  EXPECT_FALSE(roofline::gpu_peaks("Tesla V100-SXM2-16GB"));
  EXPECT_FALSE(roofline::gpu_peaks("NVIDIA GeForce RTX 4090"));
  EXPECT_FALSE(roofline::gpu_peaks(""));
}

TEST(Roofline, EveryDatasheetRowIsReachableAndComplete) {
  for (const auto& sheet : roofline::gpu_datasheets()) {
    const auto peaks = roofline::gpu_peaks(sheet.device);
    ASSERT_TRUE(peaks) << sheet.device;
    EXPECT_EQ(peaks->device, sheet.device) << "an earlier row shadows " << sheet.device;
    EXPECT_GT(sheet.fp32_tflops, 0);
    EXPECT_GT(sheet.tf32_tensor_tflops, sheet.fp32_tflops);
    EXPECT_GT(sheet.memory_tbps, 0);
    EXPECT_FALSE(sheet.citation.empty());
  }
}

TEST(Roofline, OverridesReplaceTheFiguresTheyGive) {
  const auto peaks =
      apply_overrides(*roofline::gpu_peaks("NVIDIA H100 PCIe"), {std::nullopt, 1e15, 3e12});
  ASSERT_TRUE(peaks);
  EXPECT_DOUBLE_EQ(peaks->flops_per_second, 51e12);
  EXPECT_DOUBLE_EQ(peaks->tensor_flops_per_second.value_or(0), 1e15);
  EXPECT_DOUBLE_EQ(peaks->bytes_per_second, 3e12);
  EXPECT_NE(peaks->source.find("bandwidth from the configuration"), std::string::npos);

  const auto bad = apply_overrides(simple_peaks(), {-1.0, std::nullopt, std::nullopt});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ExitCode::usage);
  EXPECT_NE(bad.error().message.find("FLOP/s peak must be a positive number"), std::string::npos);
  EXPECT_FALSE(apply_overrides(simple_peaks(), {std::nullopt, std::nullopt, NAN}));
}

TEST(Roofline, AMemoryBoundCaseIsBoundByBandwidth) {
  // saxpy on 1M floats: 2 FLOPs and 12 bytes per element.
  const auto point = roofline::roofline_point(2e6, 12e6, 2.4e-4, simple_peaks());
  ASSERT_TRUE(point) << point.error().message;
  EXPECT_EQ(point->limiter, roofline::Limiter::memory);
  EXPECT_DOUBLE_EQ(point->arithmetic_intensity, 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(point->bound_seconds, 12e6 / 1e11);
  EXPECT_DOUBLE_EQ(point->bound_flops_per_second, 1e11 / 6.0); // intensity x bandwidth
  EXPECT_DOUBLE_EQ(point->achieved_bytes_per_second, 12e6 / 2.4e-4);
  EXPECT_DOUBLE_EQ(point->fraction_of_bound, 0.5);
  EXPECT_EQ(to_string(point->limiter), "memory");
}

TEST(Roofline, AComputeBoundCaseIsBoundByThePeakFlops) {
  const double flops = 2.0 * 512 * 512 * 512;
  const double bytes = 3.0 * 512 * 512 * 4;
  const auto point = roofline::roofline_point(flops, bytes, 4 * flops / 1e12, simple_peaks());
  ASSERT_TRUE(point);
  EXPECT_EQ(point->limiter, roofline::Limiter::compute);
  EXPECT_DOUBLE_EQ(point->bound_flops_per_second, 1e12);
  EXPECT_DOUBLE_EQ(point->fraction_of_bound, 0.25);
  EXPECT_DOUBLE_EQ(point->achieved_flops_per_second, 0.25e12);

  const auto tensor = roofline::roofline_point(flops, bytes, 4 * flops / 1e12, simple_peaks(),
                                               roofline::ComputeUnit::tensor);
  ASSERT_TRUE(tensor);
  EXPECT_DOUBLE_EQ(tensor->bound_flops_per_second, 8e12);
  EXPECT_DOUBLE_EQ(tensor->fraction_of_bound, 0.25 / 8);
}

TEST(Roofline, AtTheRidgePointBothBoundsAgree) {
  const roofline::Peaks peaks = simple_peaks();
  const double intensity = peaks.flops_per_second / peaks.bytes_per_second;
  const auto point = roofline::roofline_point(intensity * 1e6, 1e6, 1e-3, peaks);
  ASSERT_TRUE(point);
  EXPECT_DOUBLE_EQ(point->bound_seconds, 1e6 / peaks.bytes_per_second);
  EXPECT_DOUBLE_EQ(point->bound_flops_per_second, peaks.flops_per_second);
}

TEST(Roofline, CasesWithOnlyBytesOrOnlyFlopsHaveABound) {
  const auto copy = roofline::roofline_point(0, 8e6, 1e-3, simple_peaks());
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->limiter, roofline::Limiter::memory);
  EXPECT_TRUE(
      std::isinf(roofline::roofline_point(1e6, 0, 1e-3, simple_peaks())->arithmetic_intensity));
}

TEST(Roofline, BadInputsAreUsageErrorsThatSayWhatIsWrong) {
  const auto none = roofline::roofline_point(0, 0, 1e-3, simple_peaks());
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ExitCode::usage);
  EXPECT_NE(none.error().message.find("neither FLOPs nor bytes"), std::string::npos);
  EXPECT_FALSE(roofline::roofline_point(1, 1, 0, simple_peaks()));
  EXPECT_FALSE(roofline::roofline_point(1, 1, -1, simple_peaks()));
  EXPECT_FALSE(roofline::roofline_point(-1, 1, 1, simple_peaks()));
  EXPECT_FALSE(roofline::roofline_point(1, NAN, 1, simple_peaks()));
  roofline::Peaks no_tensor = simple_peaks();
  no_tensor.tensor_flops_per_second.reset();
  const auto tensor = roofline::roofline_point(1, 1, 1, no_tensor, roofline::ComputeUnit::tensor);
  ASSERT_FALSE(tensor);
  EXPECT_NE(tensor.error().message.find("tensor-core"), std::string::npos);
}

TEST(Roofline, EachCaseUsesTheMedianOfItsTimes) {
  parsers::ParsedOutput output;
  output.cases = {{"saxpy/N=1000000", 2e6, 12e6, {}},
                  {"no_work", std::nullopt, std::nullopt, {}},
                  {"no_samples", 1e6, 1e6, {}}};
  output.samples = {
      {"saxpy/N=1000000", "time", "s", parsers::Direction::lower_is_better, {3e-4, 1e-4}},
      {"saxpy/N=1000000", "time", "s", parsers::Direction::lower_is_better, {2.4e-4}},
      {"saxpy/N=1000000", "gpu_time", "s", parsers::Direction::lower_is_better, {1.0}},
      {"no_work", "time", "s", parsers::Direction::lower_is_better, {1.0}}};
  const auto rows = roofline::roofline_cases(output, "time", simple_peaks());
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 1U);
  EXPECT_EQ(rows->front().case_name, "saxpy/N=1000000");
  EXPECT_DOUBLE_EQ(rows->front().point.seconds, 2.4e-4);
  EXPECT_DOUBLE_EQ(rows->front().point.fraction_of_bound, 0.5);

  output.samples[0].unit = "GB/s";
  EXPECT_FALSE(roofline::roofline_cases(output, "time", simple_peaks()));
}

roofline::CpuPeakOptions quick_options(unsigned threads = 1) {
  return roofline::CpuPeakOptions{.threads = threads,
                                  .budget = std::chrono::milliseconds(60),
                                  .copy_bytes = std::size_t{4} << 20U,
                                  .cpus = {}};
}

TEST(RooflineCpu, MeasuresPositivePeaks) {
  const auto peaks = roofline::measure_cpu_peaks(quick_options());
  ASSERT_TRUE(peaks) << peaks.error().message;
  EXPECT_FALSE(peaks->device.empty());
  // Far below any CPU of this century: the check is that the figures are real measurements.
  EXPECT_GT(peaks->flops_per_second, 1e8);
  EXPECT_GT(peaks->bytes_per_second, 1e8);
  EXPECT_LT(peaks->flops_per_second, 1e14);
  EXPECT_FALSE(peaks->tensor_flops_per_second);
  EXPECT_THAT(peaks->source, ::testing::HasSubstr("best of 10 trials"));
  auto none = quick_options();
  none.budget = std::chrono::milliseconds(0);
  EXPECT_FALSE(roofline::measure_cpu_peaks(none));
}

TEST(RooflineCpu, PinnedToACpuItSaysSoAndUsesOneThreadPerCpu) {
  auto pinned = quick_options(0);
  pinned.cpus = {0};
  const auto peaks = roofline::measure_cpu_peaks(pinned);
  ASSERT_TRUE(peaks) << peaks.error().message;
  EXPECT_THAT(peaks->source, ::testing::HasSubstr("1 thread pinned to CPUs 0"));
  EXPECT_GT(peaks->flops_per_second, 1e8);
}

} // namespace
} // namespace culprit
