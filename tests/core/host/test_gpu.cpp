#include "core/host/gpu.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "tests/core/host/fake_gpu.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit::host {
namespace {

using testing::fake_nvidia_smi;

GpuSnapshot probe(const std::string& scenario) {
  GpuProbeOptions options;
  options.program = fake_nvidia_smi(scenario);
  return GpuProbe(options).snapshot();
}

TEST(NvidiaSmiCsv, ParsesValuesUnknownsAndMasks) {
  const std::vector<std::string> fields = {"index",
                                           "name",
                                           "power.draw",
                                           "persistence_mode",
                                           "mig.mode.current",
                                           "clocks_throttle_reasons.active",
                                           "clocks.sm"};
  const auto gpus = parse_nvidia_smi_csv(
      "0, NVIDIA A100-SXM4-80GB, 63.25, Enabled, [N/A], 0x0000000000000044, 1410\n"
      "1, Tesla T4, [Not Supported], Disabled, Disabled, [Not Supported], [Unknown Error]\n",
      fields);
  ASSERT_TRUE(gpus) << gpus.error().message;
  ASSERT_EQ(gpus->size(), 2U);
  const auto& a100 = (*gpus)[0];
  EXPECT_EQ(a100.name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(a100.power_draw_w, 63.25);
  EXPECT_EQ(a100.persistence_mode, true);
  EXPECT_EQ(a100.mig_mode, std::nullopt);
  EXPECT_EQ(a100.reasons, reason::hw_thermal_slowdown | reason::sw_power_cap);
  EXPECT_EQ(a100.sm_clock_mhz, 1410.0);
  const auto& t4 = (*gpus)[1];
  EXPECT_EQ(t4.index, 1);
  EXPECT_EQ(t4.power_draw_w, std::nullopt);
  EXPECT_EQ(t4.persistence_mode, false);
  EXPECT_EQ(t4.mig_mode, false);
  EXPECT_EQ(t4.reasons, std::nullopt);
  EXPECT_EQ(t4.sm_clock_mhz, std::nullopt);
}

TEST(NvidiaSmiCsv, AWrongNumberOfValuesIsAnError) {
  const std::vector<std::string> fields = {"index", "name"};
  auto gpus = parse_nvidia_smi_csv("0, A, B\n", fields);
  ASSERT_FALSE(gpus);
  EXPECT_NE(gpus.error().message.find("3 values where 2"), std::string::npos);
  EXPECT_TRUE(parse_nvidia_smi_csv("\n\n", fields)->empty());
}

TEST(ReasonNames, NamesEveryBitSet) {
  EXPECT_EQ(reason_names(0x61),
            (std::vector<std::string>{"gpu_idle", "sw_thermal_slowdown", "hw_thermal_slowdown"}));
  EXPECT_TRUE(reason_names(0).empty());
}

TEST(GpuProbe, ReadsOneGpu) {
  const auto snapshot = probe("a100");
  EXPECT_TRUE(snapshot.available);
  EXPECT_EQ(snapshot.problem, std::nullopt);
  ASSERT_EQ(snapshot.gpus.size(), 1U);
  const auto& gpu = snapshot.gpus[0];
  EXPECT_EQ(gpu.name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(gpu.uuid, "GPU-5e7a1c2b-9d0f-4c61-8a3e-2f4b6d8c0e11");
  EXPECT_EQ(gpu.driver_version, "535.129.03");
  EXPECT_EQ(gpu.max_sm_clock_mhz, 1410.0);
  EXPECT_EQ(gpu.max_memory_clock_mhz, 1593.0);
  EXPECT_EQ(gpu.power_limit_w, 400.0);
  EXPECT_EQ(gpu.temperature_c, 33.0);
  EXPECT_EQ(gpu.ecc_mode, true);
  EXPECT_EQ(gpu.mig_mode, false);
  EXPECT_EQ(gpu.reasons, reason::gpu_idle | reason::applications_clocks_setting);
  EXPECT_EQ(gpu.counters.sw_power_cap, 1.2e6);
}

TEST(GpuProbe, ReadsTwoGpus) {
  const auto snapshot = probe("two-gpus");
  ASSERT_EQ(snapshot.gpus.size(), 2U);
  EXPECT_EQ(snapshot.gpus[1].index, 1);
  EXPECT_NE(snapshot.gpus[0].uuid, snapshot.gpus[1].uuid);
  EXPECT_EQ(snapshot.gpus[0].persistence_mode, true);
  EXPECT_EQ(snapshot.gpus[1].persistence_mode, false);
  EXPECT_EQ(snapshot.gpus[1].power_draw_w, std::nullopt);
}

TEST(GpuProbe, ReadsMigMode) {
  const auto snapshot = probe("mig");
  ASSERT_EQ(snapshot.gpus.size(), 1U);
  EXPECT_EQ(snapshot.gpus[0].mig_mode, true);
  EXPECT_EQ(snapshot.gpus[0].reasons, std::nullopt);
}

TEST(GpuProbe, AnOlderDriverGetsTheOlderFieldNamesAndKeepsThem) {
  culprit::testing::TempDir dir;
  const auto log = dir / "calls";
  setenv("FAKE_NVIDIA_SMI_LOG", log.c_str(), 1);
  GpuProbeOptions options;
  options.program = fake_nvidia_smi("old-driver");
  GpuProbe gpu_probe(options);
  const auto first = gpu_probe.snapshot();
  const auto second = gpu_probe.snapshot();
  unsetenv("FAKE_NVIDIA_SMI_LOG");
  ASSERT_EQ(first.gpus.size(), 1U) << first.problem.value_or("");
  EXPECT_EQ(first.gpus[0].reasons, reason::sw_power_cap);
  EXPECT_EQ(first.gpus[0].counters.sw_power_cap, std::nullopt);
  EXPECT_EQ(second.gpus.size(), 1U);
  std::ifstream in(log);
  int calls = 0;
  for (std::string line; std::getline(in, line);)
    ++calls;
  // The first snapshot learns (1 rename + 4 dropped counters), the second asks once.
  EXPECT_EQ(calls, 6 + 1);
}

TEST(GpuProbe, AHungNvidiaSmiIsAProblemNotAHang) {
  GpuProbeOptions options;
  options.program = fake_nvidia_smi("hang");
  options.timeout = std::chrono::milliseconds(200);
  const auto snapshot = GpuProbe(options).snapshot();
  EXPECT_TRUE(snapshot.available);
  EXPECT_TRUE(snapshot.gpus.empty());
  ASSERT_TRUE(snapshot.problem);
  EXPECT_NE(snapshot.problem->find("did not answer"), std::string::npos);
}

TEST(GpuProbe, NoDevices) {
  const auto snapshot = probe("no-devices");
  EXPECT_TRUE(snapshot.gpus.empty());
  EXPECT_EQ(snapshot.problem, "nvidia-smi found no GPU");
}

TEST(GpuProbe, NoNvidiaSmiMeansNoGpus) {
  GpuProbeOptions options;
  options.program = "culprit-test-no-such-nvidia-smi";
  const auto snapshot = GpuProbe(options).snapshot();
  EXPECT_FALSE(snapshot.available);
  EXPECT_TRUE(snapshot.gpus.empty());
  EXPECT_EQ(snapshot.problem, std::nullopt);
}

TEST(GpuProbe, FindsNvidiaSmiOnPath) {
  const std::string saved = std::getenv("PATH");
  setenv("PATH", (testing::fake_nvidia_smi_dir("two-gpus").string() + ":" + saved).c_str(), 1);
  const auto snapshot = GpuProbe().snapshot();
  setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(snapshot.gpus.size(), 2U);
}

TEST(ThrottledBetween, ThermalCountersGrowingDuringARun) {
  culprit::testing::TempDir dir;
  setenv("FAKE_NVIDIA_SMI_STATE", (dir / "state").c_str(), 1);
  GpuProbeOptions options;
  options.program = fake_nvidia_smi("thermal");
  GpuProbe gpu_probe(options);
  const auto before = gpu_probe.snapshot();
  const auto after = gpu_probe.snapshot();
  unsetenv("FAKE_NVIDIA_SMI_STATE");
  const auto finding = throttled_between(before, after);
  EXPECT_TRUE(finding.throttled);
  EXPECT_NE(finding.why.find("GPU 0: sw_thermal_slowdown for 250.0 ms"), std::string::npos)
      << finding.why;
  EXPECT_NE(finding.why.find("hw_thermal_slowdown for 250.0 ms"), std::string::npos);
}

TEST(ThrottledBetween, AnIdleGpuDidNotThrottle) {
  const auto before = probe("two-gpus");
  const auto finding = throttled_between(before, probe("two-gpus"));
  EXPECT_FALSE(finding.throttled) << finding.why;
  EXPECT_TRUE(finding.why.empty());
}

TEST(ThrottledBetween, ActiveReasonsCountWithoutCounters) {
  const auto before = probe("old-driver");
  const auto finding = throttled_between(before, before);
  EXPECT_TRUE(finding.throttled);
  EXPECT_EQ(finding.why, "GPU 0: sw_power_cap active");
}

TEST(ThrottledBetween, AGpuThatComesOrGoesIsSuspect) {
  const auto two = probe("two-gpus");
  auto one = two;
  one.gpus.pop_back();
  EXPECT_TRUE(throttled_between(two, one).throttled);
  EXPECT_NE(throttled_between(one, two).why.find("appeared"), std::string::npos);
  EXPECT_FALSE(throttled_between(GpuSnapshot{}, GpuSnapshot{}).throttled);
}

} // namespace
} // namespace culprit::host
