// The harness in process: axes and cases, the command line, case selection, and what a run
// writes and returns, with a registry of small test benchmarks.

#include <sstream>
#include <string>
#include <vector>

#include <culprit/harness.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/parsers/culprit_jsonl.hpp"
#include "tests/kernels/harness_test_support.hpp"

namespace {

using kernels_testing::names;
using kernels_testing::records;

namespace harness = culprit::harness;

harness::Options parse(std::vector<const char*> args) {
  args.insert(args.begin(), "bench");
  return harness::parse_options(static_cast<int>(args.size()), args.data());
}

TEST(HarnessCases, AxesMakeTheCartesianProductInDeclarationOrder) {
  harness::Registry registry;
  registry.add("gemm", [](harness::State&) {})
      .add_int_axis("M", {1, 2})
      .add_string_axis("T", {"f32", "f64"});
  registry.add("plain", [](harness::State&) {});
  EXPECT_EQ(names(registry.default_cases()),
            (std::vector<std::string>{"gemm/M=1,T=f32", "gemm/M=1,T=f64", "gemm/M=2,T=f32",
                                      "gemm/M=2,T=f64", "plain"}));
  const auto cases = registry.default_cases();
  EXPECT_EQ(cases[1].axes,
            (std::vector<std::pair<std::string, std::string>>{{"M", "1"}, {"T", "f64"}}));
  EXPECT_NO_THROW(registry.validate());
}

TEST(HarnessCases, ZippedAxesGoSideBySide) {
  harness::Registry registry;
  registry.add("sgemm", [](harness::State&) {})
      .add_int_axis("M", {128, 256})
      .add_int_axis("N", {64, 512})
      .zip_axes();
  EXPECT_EQ(names(registry.default_cases()),
            (std::vector<std::string>{"sgemm/M=128,N=64", "sgemm/M=256,N=512"}));
}

TEST(HarnessCases, DefinitionErrorsAreReportedWhenTheProgramStarts) {
  const auto error_of = [](const std::function<void(harness::Registry&)>& define) {
    harness::Registry registry;
    define(registry);
    try {
      registry.validate();
    } catch (const harness::UsageError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  const auto nothing = [](harness::State&) {};
  EXPECT_NE(error_of([&](auto& r) { r.add("a/b", nothing); }).find("its name"), std::string::npos);
  EXPECT_NE(error_of([&](auto& r) {
              r.add("a", nothing).add_int_axis("N", {0});
            }).find("not a possible size"),
            std::string::npos);
  EXPECT_NE(error_of([&](auto& r) { r.add("a", nothing).add_int_axis("N", {}); }).find("no values"),
            std::string::npos);
  EXPECT_NE(error_of([&](auto& r) {
              r.add("a", nothing).add_int_axis("N", {1}).add_int_axis("N", {2});
            }).find("declared twice"),
            std::string::npos);
  EXPECT_NE(error_of([&](auto& r) {
              r.add("a", nothing).add_int_axis("M", {1}).add_int_axis("N", {1, 2}).zip_axes();
            }).find("same number of values"),
            std::string::npos);
  EXPECT_NE(error_of([&](auto& r) {
              r.add("a", nothing);
              r.add("a", nothing);
            }).find("registered twice"),
            std::string::npos);
  EXPECT_NE(error_of([&](auto& r) {
              r.add("a", nothing).add_string_axis("T", {"f,32"});
            }).find("not a plain name"),
            std::string::npos);
}

TEST(HarnessCases, AxesRefuseValuesOutsideTheirRange) {
  const harness::Axis size{"N", harness::AxisKind::integer, {"1"}, 1, 1024};
  EXPECT_NO_THROW(size.validate("1024"));
  for (const char* bad : {"0", "-4", "1025", "4K", "1e3", "", " 5", "99999999999999999999"})
    EXPECT_THROW(size.validate(bad), harness::UsageError) << bad;
  const harness::Axis type{"T", harness::AxisKind::string, {"f32", "f64"}, 0, 0};
  EXPECT_NO_THROW(type.validate("f64"));
  EXPECT_THROW(type.validate("f16"), harness::UsageError);
}

TEST(HarnessOptions, ParsesEveryFlag) {
  const auto options =
      parse({"--case", "sgemm*", "--case=saxpy", "--samples", "3", "--warmup=0", "--cold",
             "--flush-bytes", "4096", "--suite", "s.suite", "--seed", "7", "--list"});
  EXPECT_EQ(options.case_globs, (std::vector<std::string>{"sgemm*", "saxpy"}));
  EXPECT_EQ(options.settings.samples, 3);
  EXPECT_EQ(options.settings.warmup, 0);
  EXPECT_TRUE(options.settings.cold);
  EXPECT_EQ(options.flush_bytes, 4096U);
  EXPECT_EQ(options.suite, "s.suite");
  EXPECT_EQ(options.settings.seed, 7U);
  EXPECT_TRUE(options.list);
  EXPECT_TRUE(parse({"--help"}).help);
}

TEST(HarnessOptions, BatchTakesACountAutoOrOff) {
  EXPECT_EQ(parse({}).settings.batch, harness::BatchMode::automatic);
  const auto fixed = parse({"--batch", "64"});
  EXPECT_EQ(fixed.settings.batch, harness::BatchMode::fixed);
  EXPECT_EQ(fixed.settings.batch_launches, 64);
  EXPECT_EQ(parse({"--batch=off"}).settings.batch, harness::BatchMode::off);
  EXPECT_EQ(parse({"--batch", "8", "--batch", "auto"}).settings.batch,
            harness::BatchMode::automatic);
  for (const char* bad : {"0", "-3", "many", "1000001", ""}) {
    try {
      parse({"--batch", bad});
      ADD_FAILURE() << bad;
    } catch (const harness::UsageError& error) {
      EXPECT_EQ(std::string(error.what()),
                std::string("--batch takes auto, off or a launch count from 1 to 1000000, not '") +
                    bad + "'");
    }
  }
  EXPECT_NE(std::string(harness::usage_text()).find("--batch N|auto|off"), std::string::npos);
}

TEST(HarnessOptions, RejectsBadFlagsWithAMessage) {
  for (const auto& args : std::vector<std::vector<const char*>>{{"--samples", "0"},
                                                                {"--samples", "ten"},
                                                                {"--samples"},
                                                                {"--warmup", "-1"},
                                                                {"--cold=yes"},
                                                                {"--frobnicate"},
                                                                {"sgemm"}}) {
    EXPECT_THROW(parse(args), harness::UsageError) << args.front();
  }
}

TEST(HarnessOptions, GlobsMatchWholeNames) {
  EXPECT_TRUE(harness::glob_match("sgemm/*", "sgemm/M=1,N=2"));
  EXPECT_TRUE(harness::glob_match("*N=2*", "sgemm/M=1,N=2,K=3"));
  EXPECT_TRUE(harness::glob_match("s?xpy*", "saxpy/N=1"));
  EXPECT_TRUE(harness::glob_match("*", ""));
  EXPECT_FALSE(harness::glob_match("sgemm", "sgemm/M=1"));
  EXPECT_FALSE(harness::glob_match("*N=3", "sgemm/N=30"));
  EXPECT_TRUE(harness::glob_match("a*b*c", "aXXbYYbc"));
}

// A registry whose benchmark "add" records a known time and work per case.
harness::Registry test_registry() {
  harness::Registry registry;
  registry
      .add("add",
           [](harness::State& state) {
             state.set_flops(static_cast<double>(state.get_int("N")));
             state.set_bytes(8.0 * static_cast<double>(state.get_int("N")));
             state.exec([] {});
           })
      .add_int_axis("N", {10, 20});
  registry.add("huge", [](harness::State& state) { state.require_host_memory(1e30); });
  registry.add("silent", [](harness::State&) {});
  return registry;
}

struct RunOutput {
  int status;
  std::string out;
  std::string err;
};

RunOutput run(const harness::Registry& registry, std::vector<const char*> args) {
  std::ostringstream out;
  std::ostringstream err;
  const harness::Backend backend{"cpu", [] { return std::string("test \"cpu\""); }};
  const int status = harness::run(registry, parse(std::move(args)), backend, out, err, "bench");
  return {status, out.str(), err.str()};
}

TEST(HarnessRun, WritesAHeaderThenEachCaseAndItsSamples) {
  const auto result = run(test_registry(), {"--case", "add/*", "--samples", "3", "--warmup", "2"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.err, "");
  const auto lines = records(result.out);
  ASSERT_EQ(lines.size(), 1U + 2U * (1U + 3U));
  EXPECT_EQ(lines[0]["type"], "header");
  EXPECT_EQ(lines[0]["device"], "test \"cpu\"");
  EXPECT_EQ(lines[1]["type"], "case");
  EXPECT_EQ(lines[1]["case"], "add/N=10");
  EXPECT_EQ(lines[1]["axes"]["N"], "10");
  EXPECT_EQ(lines[1]["flops"], 10);
  EXPECT_EQ(lines[1]["bytes"], 80);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(lines[2 + i]["type"], "sample");
    EXPECT_EQ(lines[2 + i]["case"], "add/N=10");
    EXPECT_EQ(lines[2 + i]["metric"], "time");
    EXPECT_EQ(lines[2 + i]["index"], i);
    EXPECT_EQ(lines[2 + i]["cold"], false);
  }
  EXPECT_EQ(lines[5]["case"], "add/N=20");
}

// A GPU backend (here a fake one, as there is no GPU in the tests) writes the properties that give
// the device's peaks, and culprit's parser reads them back.
TEST(HarnessRun, AGpuBackendWritesItsPropertiesInTheHeader) {
  std::ostringstream out;
  std::ostringstream err;
  const harness::Backend gpu{"cuda", [] { return std::string("NVIDIA A100-SXM4-80GB"); },
                             [] {
                               return harness::GpuProperties{.sm_count = 108,
                                                             .sm_clock_mhz = 1410,
                                                             .memory_clock_mhz = 1593,
                                                             .memory_bus_bits = 5120,
                                                             .compute_major = 8,
                                                             .compute_minor = 0};
                             }};
  const int status = harness::run(test_registry(), parse({"--case", "add/*", "--samples", "2"}),
                                  gpu, out, err, "bench");
  ASSERT_EQ(status, 0) << err.str();
  const auto header = records(out.str()).front();
  EXPECT_EQ(header["backend"], "cuda");
  EXPECT_EQ(header["gpu"]["sm_count"], 108);
  EXPECT_EQ(header["gpu"]["memory_bus_bits"], 5120);
  const auto parsed = culprit::parsers::parse_culprit_jsonl(out.str());
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_TRUE(parsed->device && parsed->device->gpu);
  EXPECT_EQ(parsed->device->gpu->sm_clock_mhz, 1410);
  EXPECT_EQ(parsed->device->gpu->compute_major, 8);
}

TEST(HarnessRun, ABenchmarkNameSelectsAllItsCases) {
  const auto result = run(test_registry(), {"--case", "add", "--list"});
  EXPECT_EQ(result.status, 0);
  EXPECT_EQ(result.out, "add/N=10\nadd/N=20\n");
}

TEST(HarnessRun, AFilterThatMatchesNothingIsAUsageError) {
  const auto result = run(test_registry(), {"--case", "nothing*"});
  EXPECT_EQ(result.status, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "bench: --case 'nothing*' matches none of the 4 cases; see --list\n");
}

TEST(HarnessRun, AFailingCaseIsReportedAndTheOthersStillRun) {
  const auto result = run(test_registry(), {"--samples", "1"});
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.err.find("bench: case huge: needs "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("choose smaller sizes"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("bench: case silent: it recorded no samples"), std::string::npos);
  const auto lines = records(result.out);
  ASSERT_EQ(lines.size(), 1U + 2U * 2U); // the two "add" cases; nothing of the failed ones
  for (const auto& line : lines)
    EXPECT_NE(line.value("case", ""), "huge");
}

TEST(HarnessRun, ColdSamplesAreMarked) {
  const auto result =
      run(test_registry(), {"--case", "add/N=10", "--cold", "--flush-bytes", "65536"});
  ASSERT_EQ(result.status, 0) << result.err;
  const auto lines = records(result.out);
  ASSERT_EQ(lines.size(), 2U + 10U);
  EXPECT_EQ(lines.back()["cold"], true);
}

TEST(HarnessRun, CaseSeedsDifferByCaseAndRunSeed) {
  EXPECT_NE(harness::case_seed(1, "a/N=1"), harness::case_seed(1, "a/N=2"));
  EXPECT_NE(harness::case_seed(1, "a/N=1"), harness::case_seed(2, "a/N=1"));
  EXPECT_EQ(harness::case_seed(1, "a/N=1"), harness::case_seed(1, "a/N=1"));
}

TEST(HarnessRun, StateRefusesWhatTheBenchmarkDidNotDeclare) {
  harness::Registry registry;
  registry.add("a", [](harness::State& state) { state.get_int("missing"); });
  registry.add("b", [](harness::State& state) {
    state.add_sample("time", "s", harness::Direction::lower, std::nan(""));
  });
  const auto result = run(registry, {});
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.err.find("case a: the benchmark asked for axis missing"), std::string::npos);
  EXPECT_NE(result.err.find("case b: metric time got a value that is not a finite number"),
            std::string::npos)
      << result.err;
}

// A case that cannot run here is reported as skipped, on stdout and stderr, and the run succeeds.
TEST(HarnessRun, ASkippedCaseIsReportedAndIsNotAFailure) {
  harness::Registry registry = test_registry();
  registry.add("too_big", [](harness::State& state) {
    state.exec([] {});
    state.skip("needs 96.0 GiB of device memory but only 79.1 GiB of 79.6 GiB is free");
  });
  const auto result = run(registry, {"--case", "add/N=10", "--case", "too_big", "--samples", "2"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.err, "bench: case too_big skipped: needs 96.0 GiB of device memory but only "
                        "79.1 GiB of 79.6 GiB is free\n");
  const auto lines = records(result.out);
  ASSERT_EQ(lines.size(), 1U + 1U + 2U + 1U); // the samples before the skip are not written
  EXPECT_EQ(lines.back(), nlohmann::json::parse(R"({"type":"skip","case":"too_big","reason":)"
                                                R"("needs 96.0 GiB of device memory but only )"
                                                R"(79.1 GiB of 79.6 GiB is free"})"));
  const auto parsed = culprit::parsers::parse_culprit_jsonl(result.out);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->warnings,
            (std::vector<std::string>{"culprit JSON lines: case too_big was skipped by the "
                                      "benchmark: needs 96.0 GiB of device memory but only 79.1 "
                                      "GiB of 79.6 GiB is free"}));
  EXPECT_TRUE(parsed->errors.empty());

  // Skipped alongside a failure, the failure still decides the exit status.
  EXPECT_EQ(run(registry, {"--case", "too_big", "--case", "huge"}).status, 1);
}

void macro_example(harness::State& state) {
  state.exec([] {});
}
CULPRIT_BENCHMARK("macro_example", macro_example).add_int_axis("N", {1, 2}).zip_axes();

TEST(HarnessRun, TheMacroRegistersInTheDefaultRegistry) {
  const harness::Benchmark* benchmark = harness::default_registry().find("macro_example");
  ASSERT_NE(benchmark, nullptr);
  EXPECT_EQ(names(benchmark->default_cases()),
            (std::vector<std::string>{"macro_example/N=1", "macro_example/N=2"}));
}

TEST(HarnessHost, FactsAreSensible) {
  EXPECT_GT(harness::available_host_memory_bytes(), 0.0);
  EXPECT_GE(harness::default_flush_bytes(), harness::last_level_cache_bytes());
  EXPECT_FALSE(harness::cpu_model_name().empty());
  EXPECT_EQ(harness::format_bytes(512), "512 B");
  EXPECT_EQ(harness::format_bytes(1.5 * 1024 * 1024 * 1024), "1.5 GiB");
}

} // namespace
