// culprit env, run as a user would: the binary, with a fake nvidia-smi on PATH.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/host/capture.hpp"
#include "tests/support/source_tree.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

host::Captured culprit_env(const std::vector<std::string>& arguments,
                           const std::string& gpu_scenario = "") {
  std::vector<std::string> argv = {CULPRIT_EXE, "env"};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  host::CaptureOptions options;
  options.timeout = std::chrono::seconds(60);
  const std::string path = std::getenv("PATH");
  if (!gpu_scenario.empty())
    options.environment.push_back("PATH=" + culprit::testing::source_dir().string() +
                                  "/tests/fixtures/host/nvidia-smi/" + gpu_scenario + ":" + path);
  auto captured = host::capture_program(argv, options);
  EXPECT_TRUE(captured) << captured.error().message;
  return captured.value_or(host::Captured{});
}

TEST(EnvCommand, PrintsTheFingerprintAndWarnings) {
  const auto result = culprit_env({}, "two-gpus");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  for (const auto* expected :
       {"host ", "kernel ", "cpu ", "memory ", "load average ",
        "gpu 0           NVIDIA H100 80GB HBM3 (GPU-a1b2c3d4-0000-4000-8000-000000000000)",
        "gpu 1 ", "warning: GPU 1 (NVIDIA H100 80GB HBM3) is not in persistence mode"})
    EXPECT_NE(result.out.find(expected), std::string::npos) << expected << "\n" << result.out;
}

TEST(EnvCommand, JsonOnStdout) {
  const auto result = culprit_env({"--json", "-"}, "thermal");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["host_id"].get<std::string>().size(), 40U);
  EXPECT_GT(json["cores"].get<int>(), 0);
  ASSERT_EQ(json["gpus"].size(), 1U);
  EXPECT_EQ(json["gpus"][0]["name"], "NVIDIA GeForce RTX 4090");
  bool throttling = false;
  for (const auto& warning : json["warnings"])
    throttling = throttling || warning["id"] == "gpu_throttling";
  EXPECT_TRUE(throttling);
}

TEST(EnvCommand, JsonToAFileAndTextOnStdout) {
  testing::TempDir dir;
  const auto file = dir / "env.json";
  const auto result = culprit_env({"--json", file.string()}, "mig");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("MIG on"), std::string::npos) << result.out;
  std::ifstream in(file);
  const auto json = nlohmann::json::parse(in);
  EXPECT_EQ(json["gpus"][0]["mig_mode"], true);
}

TEST(EnvCommand, AnUnwritableJsonFileIsAUsageError) {
  const auto result = culprit_env({"--json", "/no/such/dir/env.json"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--json /no/such/dir/env.json: the directory /no/such/dir does not "
                            "exist"),
            std::string::npos)
      << result.err;
}

TEST(EnvCommand, AHungNvidiaSmiCannotHangIt) {
  const auto start = std::chrono::steady_clock::now();
  const auto result = culprit_env({}, "hang");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("did not answer"), std::string::npos) << result.out;
}

TEST(EnvCommand, NoiseRunsACalibrationLoopAndGivesTheProfileWithAdvice) {
  testing::TempDir dir;
  const auto file = dir / "env.json";
  const auto result = culprit_env({"--noise", "0.5", "--json", file.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const auto* expected : {"machine noise over 0.5 s", "speed states", "spread", "advice: "})
    EXPECT_NE(result.out.find(expected), std::string::npos) << expected << "\n" << result.out;
  std::ifstream in(file);
  const auto json = nlohmann::json::parse(in);
  ASSERT_TRUE(json.contains("noise")) << json.dump();
  EXPECT_GT(json["noise"]["iteration_seconds"].get<double>(), 0.0);
  EXPECT_TRUE(json["noise"]["advice"].is_array());
}

TEST(EnvCommand, NoiseOutOfRangeOrOnACpuThatIsNotThereIsAUsageError) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--noise", "0.1"},
                                               {"--noise", "5000"},
                                               {"--noise", "x"},
                                               {"--noise", "1", "--cpus", "1023"},
                                               {"--noise", "1", "--cpus", "-1"}}) {
    const auto result = culprit_env(args);
    EXPECT_EQ(result.exit_code, 2) << args[1] << result.out;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_EQ(result.out.find("machine noise"), std::string::npos) << result.out;
  }
}

} // namespace
} // namespace culprit
