#include "core/host/fingerprint.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/core/host/host_fixture.hpp"

namespace culprit::host {
namespace {

using testing::fixture_host;

TEST(Fingerprint, ReadsABareMetalMachine) {
  const auto host = fixture_host("bare-metal-quiet");
  EXPECT_EQ(host.hostname, "bench01");
  EXPECT_EQ(host.kernel, "6.1.0-18-amd64");
  EXPECT_EQ(host.cpu.model, "Intel(R) Xeon(R) Gold 6242 CPU @ 2.80GHz");
  EXPECT_EQ(host.cpu.logical_cores, 4);
  EXPECT_EQ(host.cpu.physical_cores, 2);
  EXPECT_EQ(host.cpu.governors, (std::vector<std::string>{"performance"}));
  EXPECT_EQ(host.cpu.turbo, false);
  EXPECT_EQ(host.cpu.turbo_control, "/sys/devices/system/cpu/intel_pstate/no_turbo");
  EXPECT_EQ(host.cpu.frequency_mhz, 2800.0); // scaling_cur_freq wins over cpuinfo's 3100
  EXPECT_FALSE(host.cpu.hypervisor_flag);
  EXPECT_EQ(host.memory.total_bytes, 65757328ULL * 1024);
  EXPECT_EQ(host.memory.available_bytes, 61234567ULL * 1024);
  ASSERT_TRUE(host.load);
  EXPECT_DOUBLE_EQ(host.load->one, 0.08);
  EXPECT_DOUBLE_EQ(host.load->fifteen, 0.10);
  EXPECT_EQ(host.virtualization.container, std::nullopt);
  EXPECT_EQ(host.virtualization.vm, std::nullopt);
  EXPECT_FALSE(host.gpu.available);
}

TEST(Fingerprint, ReadsTurboOnAndThePowersaveGovernor) {
  const auto host = fixture_host("powersave-busy");
  EXPECT_EQ(host.cpu.governors, (std::vector<std::string>{"powersave"}));
  EXPECT_EQ(host.cpu.turbo, true);
  EXPECT_DOUBLE_EQ(host.load->one, 7.52);
}

TEST(Fingerprint, RecognisesAVirtualMachine) {
  const auto host = fixture_host("vm");
  EXPECT_TRUE(host.cpu.hypervisor_flag);
  EXPECT_EQ(host.virtualization.vm, "qemu");
  EXPECT_EQ(host.cpu.turbo, false);
  EXPECT_EQ(host.cpu.turbo_control, "/sys/devices/system/cpu/cpufreq/boost");
  EXPECT_EQ(host.cpu.physical_cores, 2);
  EXPECT_EQ(host.virtualization.evidence.size(), 2U);
}

TEST(Fingerprint, RecognisesAContainerOnArm) {
  const auto host = fixture_host("container-arm");
  EXPECT_EQ(host.cpu.model, "unknown CPU");
  EXPECT_EQ(host.cpu.logical_cores, 8);
  EXPECT_EQ(host.cpu.physical_cores, std::nullopt);
  EXPECT_EQ(host.cpu.turbo, true);
  EXPECT_EQ(host.virtualization.container, "docker");
  EXPECT_EQ(host.virtualization.vm, std::nullopt);
  EXPECT_EQ(host.virtualization.evidence,
            (std::vector<std::string>{"/.dockerenv exists", "/proc/1/cgroup mentions kubepods"}));
}

TEST(Fingerprint, AnEmptyRootGivesEmptyFactsNotAFailure) {
  const auto host = fixture_host("no-such-root");
  EXPECT_EQ(host.hostname, "");
  EXPECT_EQ(host.cpu.logical_cores, 0);
  EXPECT_EQ(host.cpu.model, "");
  EXPECT_FALSE(host.load);
  EXPECT_FALSE(host.memory.total_bytes);
}

TEST(Fingerprint, ReadsTheRealMachine) {
  HostProbeOptions options;
  options.query_gpus = false;
  const auto host = probe_host(options);
  EXPECT_FALSE(host.hostname.empty());
  EXPECT_FALSE(host.kernel.empty());
  EXPECT_GT(host.cpu.logical_cores, 0);
  EXPECT_TRUE(host.memory.total_bytes);
}

TEST(HostId, DependsOnTheStablePartOnly) {
  const auto host = fixture_host("bare-metal-quiet", "a100");
  const auto id = host_id(host);
  EXPECT_EQ(id.size(), 40U);
  EXPECT_EQ(host_id(fixture_host("bare-metal-quiet", "a100")), id);

  auto state = host;
  state.load = LoadAverage{9.0, 9.0, 9.0};
  state.cpu.governors = {"powersave"};
  state.cpu.turbo = true;
  state.cpu.frequency_mhz = 800.0;
  state.memory.available_bytes = 1;
  state.memory.total_bytes = *host.memory.total_bytes + 4096; // a few pages between boots
  state.gpu.gpus[0].temperature_c = 90.0;
  state.gpu.gpus[0].reasons = reason::hw_thermal_slowdown;
  EXPECT_EQ(host_id(state), id);

  const auto differs = [&](auto change) {
    auto other = host;
    change(other);
    return host_id(other) != id;
  };
  EXPECT_TRUE(differs([](HostFingerprint& h) { h.hostname = "bench02"; }));
  EXPECT_TRUE(differs([](HostFingerprint& h) { h.kernel = "6.1.0-19-amd64"; }));
  EXPECT_TRUE(differs([](HostFingerprint& h) { h.cpu.model = "AMD EPYC 7763"; }));
  EXPECT_TRUE(differs([](HostFingerprint& h) { h.cpu.logical_cores = 8; }));
  EXPECT_TRUE(differs([](HostFingerprint& h) { h.memory.total_bytes = 32ULL << 30; }));
  EXPECT_TRUE(differs([](HostFingerprint& h) { h.gpu.gpus[0].uuid = "GPU-other"; }));
  EXPECT_TRUE(differs([](HostFingerprint& h) { h.gpu.gpus[0].driver_version = "550.1"; }));
  EXPECT_TRUE(differs([](HostFingerprint& h) { h.gpu.gpus.clear(); }));
}

TEST(FingerprintJson, HasTheEvidenceHostKeysAndNullsForUnknowns) {
  const auto json = to_json(fixture_host("container-arm", "two-gpus"));
  EXPECT_EQ(json["cpu"], "unknown CPU");
  EXPECT_EQ(json["cores"], 8);
  EXPECT_EQ(json["os"], "Linux 6.8.0-1008-aws");
  EXPECT_TRUE(json["physical_cores"].is_null());
  EXPECT_EQ(json["container"], "docker");
  EXPECT_TRUE(json["vm"].is_null());
  EXPECT_EQ(json["memory_total_bytes"], 131072000ULL * 1024);
  EXPECT_EQ(json["load_average"], nlohmann::json({1.0, 1.0, 1.0}));
  ASSERT_EQ(json["gpus"].size(), 2U);
  EXPECT_EQ(json["gpus"][1]["uuid"], "GPU-a1b2c3d4-1111-4111-8111-111111111111");
  EXPECT_TRUE(json["gpus"][1]["power_draw_w"].is_null());
  EXPECT_EQ(json["gpus"][0]["clocks_event_reasons"], nlohmann::json({"gpu_idle"}));
  EXPECT_EQ(json["host_id"], host_id(fixture_host("container-arm", "two-gpus")));
}

} // namespace
} // namespace culprit::host
