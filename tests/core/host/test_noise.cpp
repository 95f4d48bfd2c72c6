#include "core/host/noise.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/host/json.hpp"
#include "core/report/host_text.hpp"
#include "tests/core/host/host_fixture.hpp"

namespace culprit::host {
namespace {

using testing::fixture_host;

std::vector<std::string> ids(const std::vector<NoiseWarning>& warnings) {
  std::vector<std::string> result;
  for (const auto& warning : warnings)
    result.push_back(warning.id);
  return result;
}

const NoiseWarning& find(const std::vector<NoiseWarning>& warnings, std::string_view id) {
  const auto found = std::ranges::find(warnings, id, &NoiseWarning::id);
  if (found == warnings.end())
    throw std::runtime_error("no warning " + std::string(id));
  return *found;
}

TEST(NoiseWarnings, AQuietMachineWithALockedGpuHasNone) {
  const auto warnings = noise_warnings(fixture_host("bare-metal-quiet", "a100"));
  EXPECT_TRUE(warnings.empty()) << warnings.front().message;
}

TEST(NoiseWarnings, PowersaveHighLoadAndTurbo) {
  const auto warnings = noise_warnings(fixture_host("powersave-busy"));
  EXPECT_EQ(ids(warnings), (std::vector<std::string>{"governor", "load", "turbo"}));
  EXPECT_NE(find(warnings, "governor").message.find("powersave"), std::string::npos);
  EXPECT_NE(find(warnings, "governor").message.find("cpupower frequency-set -g performance"),
            std::string::npos);
  EXPECT_NE(find(warnings, "load").message.find("7.52 on 4 logical cores"), std::string::npos);
  EXPECT_NE(find(warnings, "turbo")
                .message.find("echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"),
            std::string::npos);
}

TEST(NoiseWarnings, ACommandSaysThemInOneShortLine) {
  const auto warnings = noise_warnings(fixture_host("powersave-busy"));
  EXPECT_EQ(noise_summary(warnings),
            "noisy host (governor powersave; load average 7.52 on 4 cores; turbo boost on): small "
            "differences may not resolve; 'culprit env' says what to do");
  EXPECT_EQ(noise_summary(noise_warnings(fixture_host("vm"))),
            "noisy host (qemu virtual machine): small differences may not resolve; 'culprit env' "
            "says what to do");
  EXPECT_TRUE(noise_summary({}).empty());
}

TEST(NoiseWarnings, AVirtualMachine) {
  const auto warnings = noise_warnings(fixture_host("vm"));
  EXPECT_EQ(ids(warnings), (std::vector<std::string>{"vm"}));
  EXPECT_NE(warnings[0].message.find("(qemu)"), std::string::npos);
}

TEST(NoiseWarnings, BoostOnThroughCpufreq) {
  const auto warnings = noise_warnings(fixture_host("container-arm"));
  EXPECT_EQ(ids(warnings), (std::vector<std::string>{"turbo"}));
  EXPECT_NE(warnings[0].message.find("echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost"),
            std::string::npos);
}

TEST(NoiseWarnings, LoadIsRelativeToTheCores) {
  auto host = fixture_host("bare-metal-quiet");
  host.load = LoadAverage{1.9, 1.0, 1.0}; // 4 logical cores: up to 2.0 is fine
  EXPECT_TRUE(noise_warnings(host).empty());
  host.load->one = 2.1;
  EXPECT_EQ(ids(noise_warnings(host)), (std::vector<std::string>{"load"}));
  host.cpu.logical_cores = 1; // at least 1.0 whatever the cores
  host.load->one = 0.9;
  EXPECT_TRUE(noise_warnings(host).empty());
}

TEST(NoiseWarnings, AThrottlingGpu) {
  const auto warnings = noise_warnings(fixture_host("bare-metal-quiet", "thermal"));
  EXPECT_EQ(ids(warnings),
            (std::vector<std::string>{"gpu_persistence", "gpu_clocks", "gpu_throttling"}));
  const auto& throttling = find(warnings, "gpu_throttling").message;
  EXPECT_NE(throttling.find("GPU 0 (NVIDIA GeForce RTX 4090) is throttling now "
                            "(sw_thermal_slowdown, hw_thermal_slowdown) at 89 C"),
            std::string::npos)
      << throttling;
  EXPECT_NE(find(warnings, "gpu_persistence").message.find("nvidia-smi -i 0 -pm 1"),
            std::string::npos);
}

TEST(NoiseWarnings, TwoGpusAreWarnedAboutOneByOne) {
  const auto warnings = noise_warnings(fixture_host("bare-metal-quiet", "two-gpus"));
  EXPECT_EQ(ids(warnings),
            (std::vector<std::string>{"gpu_clocks", "gpu_persistence", "gpu_clocks"}));
  EXPECT_NE(warnings[1].message.find("GPU 1"), std::string::npos);
}

TEST(NoiseWarnings, MigAndAnOldDriversPowerCap) {
  EXPECT_EQ(ids(noise_warnings(fixture_host("bare-metal-quiet", "mig"))),
            (std::vector<std::string>{"gpu_mig"}));
  EXPECT_EQ(ids(noise_warnings(fixture_host("bare-metal-quiet", "old-driver"))),
            (std::vector<std::string>{"gpu_clocks", "gpu_throttling"}));
}

TEST(NoiseWarnings, AnUnreadableGpu) {
  auto host = fixture_host("bare-metal-quiet");
  host.gpu.available = true;
  host.gpu.problem = "nvidia-smi did not answer within 5000 ms; GPU facts are missing";
  EXPECT_EQ(ids(noise_warnings(host)), (std::vector<std::string>{"gpu_unreadable"}));
  host.gpu.problem = "nvidia-smi found no GPU";
  EXPECT_TRUE(noise_warnings(host).empty());
}

TEST(ClocksLocked, ByApplicationClocksOrTheirReason) {
  GpuFacts gpu;
  EXPECT_FALSE(gpu_clocks_look_locked(gpu));
  gpu.reasons = reason::gpu_idle | reason::applications_clocks_setting;
  EXPECT_TRUE(gpu_clocks_look_locked(gpu));
  gpu.reasons = reason::gpu_idle;
  gpu.applications_clock_mhz = 1410;
  gpu.default_applications_clock_mhz = 1410;
  EXPECT_FALSE(gpu_clocks_look_locked(gpu));
  gpu.default_applications_clock_mhz = 1275;
  EXPECT_TRUE(gpu_clocks_look_locked(gpu));
}

TEST(Render, TextShowsEveryFactAndWarning) {
  const auto host = fixture_host("powersave-busy", "two-gpus");
  const auto text = report::render_host_text(host, noise_warnings(host));
  for (const auto* expected :
       {"host            laptop (id ", "kernel          6.5.0-14-generic",
        "cpu             11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz, 4 logical cores (2 "
        "physical)",
        "frequency       governor powersave, turbo on "
        "(/sys/devices/system/cpu/intel_pstate/no_turbo), 1197 MHz now",
        "memory          15.4 GiB total, 2.9 GiB available",
        "load average    7.52 6.10 4.33 (1, 5, 15 min)", "virtualization  none detected",
        "gpu 1           NVIDIA H100 80GB HBM3 (GPU-a1b2c3d4-1111-4111-8111-111111111111), driver "
        "550.90.07",
        "sm 345/1980 MHz, memory 2619/2619 MHz, ? of 700 W, 31 C",
        "persistence off, MIG off, ECC on, clocks locked no, clock event reasons: gpu_idle",
        "warning: CPU frequency governor is powersave"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  EXPECT_NE(
      report::render_host_text(fixture_host("bare-metal-quiet"), {}).find("no noise warnings"),
      std::string::npos);
}

TEST(Render, JsonCarriesTheWarnings) {
  const auto host = fixture_host("vm");
  const auto json = render_json(host, noise_warnings(host));
  ASSERT_EQ(json["warnings"].size(), 1U);
  EXPECT_EQ(json["warnings"][0]["id"], "vm");
  EXPECT_EQ(json["hostname"], "ci-runner-7");
}

} // namespace
} // namespace culprit::host
