// End to end: the roofline in every answer. `run` of kernels_bench_cpu (the project's own harness
// benchmark, whose output carries each case's FLOPs and bytes) shows every case's place against its
// bound; `compare` how it moved; `bisect` what the culprit cost in those terms; `history
// --roofline` the share over commits; bad peaks are refused in one line.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/evidence/evidence.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/machine_bench.hpp"
#include "tests/support/process.hpp"
#include "tests/support/source_tree.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using testing::run_culprit;
using testing::ScratchRepo;
using testing::TempDir;

const std::filesystem::path k_bench =
    std::filesystem::path(CULPRIT_BINARY_DIR) / "kernels" / "kernels_bench_cpu";

// A project whose build is the prebuilt kernels_bench_cpu with a tag appended (so that two
// commits have artifacts of their own, and run the same code).
class RooflineCli : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(k_bench)) << k_bench;
    scratch.write(
        "culprit.toml",
        "[build]\ncommand = \"cp " + k_bench.string() +
            " {build}/bench && cat {src}/tag >> {build}/bench\"\nartifacts = [\"bench\"]\n"
            "[run]\ncommand = [\"{build}/bench\", \"--samples\", \"5\", \"--case\", "
            "\"saxpy/N=1048576\", \"--case\", \"sgemm/M=128,N=128,K=128\"]\n"
            "format = \"culprit\"\n[decide]\nmin_runs = 3\nmax_runs = 6\n");
    scratch.write("tag", "1\n");
    base = scratch.commit("the benchmark");
    scratch.write("tag", "2\n");
    head = scratch.commit("another build of it");
  }

  testing::ProcessOutput culprit_cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--cache-dir", (temp / "cache").string()});
    return run_culprit(args, scratch.dir());
  }

  TempDir temp{"culprit-roofline"};
  ScratchRepo scratch{temp / "project"};
  std::string base, head;
};

TEST_F(RooflineCli, RunShowsEveryCaseAgainstItsBoundAndTheEvidenceCarriesIt) {
  const auto json = temp / "run.json";
  auto run = culprit_cli(
      {"run", head, "--peak-gflops", "100", "--peak-gbps", "20", "--json", json.string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("roofline: "));
  EXPECT_THAT(run.out, HasSubstr("100.0 GFLOP/s FP32, 20.00 GB/s (culprit.toml [roofline] or "
                                 "the flags)"));
  const auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_EQ(evidence->measurements.size(), 2U);
  for (const auto& m : evidence->measurements) {
    ASSERT_TRUE(m.roofline) << m.case_name << ": " << m.roofline_note;
    EXPECT_EQ(m.roofline->work, "output");
    EXPECT_GT(m.roofline->fraction, 0);
    EXPECT_LE(m.roofline->fraction_ci[0], m.roofline->fraction);
    EXPECT_GE(m.roofline->fraction_ci[1], m.roofline->fraction);
    EXPECT_THAT(run.out, HasSubstr(m.case_name));
  }
  // saxpy: 2 FLOPs and 12 bytes an element, far below the ridge of 5 FLOPs a byte.
  const auto& saxpy = evidence->measurements[0].case_name == "saxpy/N=1048576"
                          ? evidence->measurements[0]
                          : evidence->measurements[1];
  EXPECT_EQ(saxpy.roofline->limiter, "memory");
  EXPECT_DOUBLE_EQ(saxpy.roofline->flops, 2.0 * 1048576);
  EXPECT_DOUBLE_EQ(saxpy.roofline->bytes, 12.0 * 1048576);
  ASSERT_EQ(evidence->roofline_peaks.size(), 1U);
  EXPECT_EQ(evidence->roofline_peaks[0].flops_per_second, 100e9);
}

TEST_F(RooflineCli, WithoutPeaksTheCpuIsMeasuredOnceAndKeptForTheHost) {
  const auto first = temp / "first.json";
  auto run = culprit_cli({"run", head, "--json", first.string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("measured on this host"));
  const auto measured = evidence::load_evidence(first);
  ASSERT_TRUE(measured && !measured->roofline_peaks.empty());
  const auto second = temp / "second.json";
  auto again = culprit_cli({"run", head, "--json", second.string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto kept = evidence::load_evidence(second);
  ASSERT_TRUE(kept && !kept->roofline_peaks.empty());
  EXPECT_EQ(kept->roofline_peaks[0].flops_per_second, measured->roofline_peaks[0].flops_per_second)
      << "the same figures: kept in the store, not measured again";
  EXPECT_THAT(kept->roofline_peaks[0].source, HasSubstr("kept since"));
}

TEST_F(RooflineCli, CompareSaysHowEachCaseMovedAgainstItsBound) {
  const auto json = temp / "compare.json";
  auto compare = culprit_cli({"compare", base, head, "--peak-gflops", "100", "--peak-gbps", "20",
                              "--json", json.string(), "--html", (temp / "c.html").string()});
  ASSERT_NE(compare.exit_code, 2) << compare.out << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("roofline: saxpy/N=1048576: "));
  EXPECT_THAT(compare.out, HasSubstr("of its memory bound ["));
  EXPECT_THAT(compare.out, HasSubstr("memory-bound before and after"));
  std::ifstream page(temp / "c.html");
  const std::string html{std::istreambuf_iterator<char>(page), std::istreambuf_iterator<char>()};
  EXPECT_THAT(html, HasSubstr("<svg id=\"roofline-plot\""));
}

TEST_F(RooflineCli, BadPeaksAreOneLineUsageErrorsAndNothingRuns) {
  for (const std::vector<std::string>& flags : {std::vector<std::string>{"--peak-gflops", "0"},
                                                {"--peak-gflops", "-3"},
                                                {"--peak-gbps", "nan"},
                                                {"--peak-gflops", "1e9"},
                                                {"--peak-gbps", "1e6"}}) {
    auto args = std::vector<std::string>{"run", head};
    args.insert(args.end(), flags.begin(), flags.end());
    const auto run = culprit_cli(args);
    EXPECT_EQ(run.exit_code, 2) << flags[0] << " " << flags[1] << ": " << run.err;
    EXPECT_EQ(std::ranges::count(run.err, '\n'), 1) << run.err;
    EXPECT_THAT(run.err, HasSubstr(flags[0].substr(2)));
  }
  EXPECT_FALSE(std::filesystem::exists(temp / "cache")) << "nothing was built or run";
}

// The machine bench has no work in its output: [roofline.cases] gives it, and the bisection's
// culprit says what it cost against the bound.
TEST(RooflineCliBisect, TheCulpritSaysWhereTheCaseStoodBeforeAndAfter) {
  TempDir temp{"culprit-roofline-bisect"};
  ScratchRepo scratch{temp / "project"};
  scratch.write("bench.c", testing::k_machine_bench);
  scratch.write("culprit.toml",
                testing::machine_recipe("quiet", 12) +
                    "\n[roofline]\npeak_gflops = 10\npeak_gbps = 10\n\n[roofline.cases]\n"
                    "\"k\" = { flops = \"4e6\", bytes = \"1e5\" }\n");
  scratch.write("level", "1000\n");
  scratch.write("tag", "0\n");
  const auto good = scratch.commit("machine bench");
  std::string culprit;
  for (int i = 1; i <= 4; ++i) {
    scratch.write("tag", std::to_string(i) + "\n");
    if (i == 2)
      scratch.write("level", "2000\n");
    const auto commit = scratch.commit("version " + std::to_string(i));
    if (i == 2)
      culprit = commit;
  }
  const auto json = temp / "bisect.json";
  const auto bisect = run_culprit({"--cache-dir", (temp / "cache").string(), "bisect", "--good",
                                   good, "--bad", "HEAD", "--json", json.string()},
                                  scratch.dir());
  ASSERT_EQ(bisect.exit_code, 0) << bisect.out << bisect.err;
  EXPECT_THAT(bisect.out, HasSubstr("culprit " + culprit.substr(0, 12)));
  // 4 MFLOP at 10 GFLOP/s: 0.4 ms of a 1 ms call, then of a 2 ms one. Each sample wobbles by
  // up to 0.5%, so the shares are 40% and 20% to within that.
  EXPECT_THAT(bisect.out,
              ContainsRegex("    roofline: (39\\.[89]|40\\.[01])% -> (19\\.9|20\\.[01])% of its "
                            "compute bound \\["))
      << bisect.out;
  EXPECT_THAT(bisect.out, HasSubstr("compute-bound before and after"));
  const auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  for (const auto& m : evidence->measurements) {
    ASSERT_TRUE(m.roofline) << m.commit;
    EXPECT_EQ(m.roofline->work, "culprit.toml");
  }

  // history --roofline: the share of the bound over the commits, with the step.
  const auto track = run_culprit(
      {"--cache-dir", (temp / "cache").string(), "track", good + "..HEAD", "--runs", "3"},
      scratch.dir());
  ASSERT_EQ(track.exit_code, 0) << track.err;
  const auto history =
      run_culprit({"--cache-dir", (temp / "cache").string(), "history", "--roofline", "--ascii"},
                  scratch.dir());
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_THAT(history.out, HasSubstr("k [time (% of roofline)]"));
  EXPECT_THAT(history.out, ContainsRegex("(39\\.[89][0-9]|40\\.[01][0-9]) % "));
  EXPECT_THAT(history.out, HasSubstr("-> "));
}

// A GPU benchmark of one case, gemm/M=4096 (137 GFLOP, 201 MB), whose five gpu_time samples are
// `prefix` followed by first, first + 1, ... (in seconds).
std::string gemm_bench(const std::string& prefix, int first) {
  std::string bench = "#!/bin/sh\n"
                      R"(echo '{"type":"case","case":"gemm/M=4096","flops":137438953472,)"
                      R"("bytes":201326592}')"
                      "\n";
  for (int i = 0; i < 5; ++i)
    bench += R"(echo '{"type":"sample","case":"gemm/M=4096","metric":"gpu_time","unit":"s",)"
             R"("direction":"lower","value":)" +
             prefix + std::to_string(first + i) + "}'\n";
  return bench;
}

// The recipe of a project whose benchmark is bench.sh: no metric named, so the GPU's time is the
// one decided on; three runs a revision.
constexpr std::string_view k_gpu_recipe = R"toml([build]
command = "cp {src}/bench.sh {build}/bench && chmod +x {build}/bench"
artifacts = ["bench"]
[run]
command = "{build}/bench"
format = "culprit"
[decide]
min_runs = 3
max_runs = 3
)toml";

// Commits `bench` as bench.sh with the recipe above.
void commit_gpu_project(ScratchRepo& scratch, const std::string& bench,
                        const std::string& subject) {
  scratch.write("bench.sh", bench);
  scratch.write("culprit.toml", std::string(k_gpu_recipe));
  scratch.commit(subject);
}

// The environment of a host whose nvidia-smi (a fake one, first on PATH) names an A100.
std::map<std::string, std::string> a100_host() {
  return {{"PATH", testing::source_dir().string() +
                       "/tests/fixtures/host/nvidia-smi/a100:" + std::string(std::getenv("PATH"))}};
}

// A GPU run (its metric is gpu_time) on a host whose nvidia-smi (a fake one on PATH) names an
// A100: the peaks come from the datasheet by that name, and the CPU is not measured.
TEST(RooflineCliGpu, APeakFromTheDatasheetOfTheGpuNvidiaSmiNames) {
  TempDir temp{"culprit-roofline-gpu"};
  ScratchRepo scratch{temp / "project"};
  commit_gpu_project(scratch, gemm_bench("0.0", 20), "a GPU benchmark");
  const auto json = temp / "run.json";
  const auto run = run_culprit(
      {"--cache-dir", (temp / "cache").string(), "run", "HEAD", "--json", json.string()},
      scratch.dir(), a100_host());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("roofline: NVIDIA A100 SXM4 80GB: 19500 GFLOP/s FP32"));
  EXPECT_THAT(run.out, HasSubstr("datasheet"));
  const auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_EQ(evidence->measurements.size(), 1U);
  const auto& r = evidence->measurements[0].roofline;
  ASSERT_TRUE(r) << evidence->measurements[0].roofline_note;
  // 137 GFLOP at 19.5 TFLOP/s: 7.05 ms of a 22 ms call.
  EXPECT_EQ(r->limiter, "compute");
  EXPECT_NEAR(r->fraction, (137438953472.0 / 19.5e12) / 0.022, 0.002);
}

// What a GPU benchmark's output says beside its samples reaches the user and the evidence: a case
// it skipped, and samples it dropped while the SM clock was throttled, each said once however
// many runs said it.
TEST(RooflineCliGpu, SkippedCasesAndThrottledSamplesAreWarningsInTheOutputAndTheEvidence) {
  TempDir temp{"culprit-gpu-warnings"};
  ScratchRepo scratch{temp / "project"};
  std::string bench = gemm_bench("0.00", 20);
  bench.insert(bench.find("echo '{\"type\":\"sample\""),
               R"(echo '{"type":"skip","case":"gemm/M=65536","reason":"needs 48.0 GiB of device )"
               R"(memory but only 39.2 GiB is free"}')"
               "\n");
  const std::string plain = R"("bytes":201326592})";
  bench.replace(bench.find(plain), plain.size(),
                R"("bytes":201326592,"sm_clock":{"checked":true,"default_mhz":1980,)"
                R"("threshold":0.75},"samples_taken":8,"dropped":{"throttled":3}})");
  commit_gpu_project(scratch, bench, "a GPU benchmark");
  const auto json = temp / "run.json";
  const auto run = run_culprit(
      {"--cache-dir", (temp / "cache").string(), "run", "HEAD", "--json", json.string()},
      scratch.dir());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string skipped = "case gemm/M=65536 was skipped by the benchmark: needs 48.0 GiB";
  const std::string dropped =
      "case gemm/M=4096: 3 of 8 samples dropped: the SM clock was below 75% of its default "
      "1980 MHz";
  EXPECT_THAT(run.err, HasSubstr("culprit: warning: culprit JSON lines: " + skipped));
  EXPECT_THAT(run.err, HasSubstr(dropped));
  const auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  const auto said = [&](const std::string& text) {
    return std::ranges::count_if(evidence->warnings, [&](const std::string& warning) {
      return warning.find(text) != std::string::npos;
    });
  };
  EXPECT_EQ(said(skipped), 1) << "three runs said it: once";
  EXPECT_EQ(said(dropped), 1);
}

// A GPU case measured faster than its bound allows (137 GFLOP in 2 ms on an A100 is 3.5 times
// its FP32 peak): run and compare flag the measurement, not the kernel.
TEST(RooflineCliGpu, ACaseAboveItsRoofIsFlaggedAsADefectOfTheMeasurement) {
  TempDir temp{"culprit-roofline-above"};
  ScratchRepo scratch{temp / "project"};
  commit_gpu_project(scratch, gemm_bench("0.00", 20), "a GPU benchmark");
  commit_gpu_project(scratch, gemm_bench("0.00", 30), "slower");
  const auto env = a100_host();
  const std::string cache = (temp / "cache").string();
  const auto run = run_culprit({"--cache-dir", cache, "run", "HEAD~1"}, scratch.dir(), env);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("above the roof, a defect of the measurement"));
  EXPECT_THAT(run.out, HasSubstr("the harness measured something else"));
  const auto compare =
      run_culprit({"--cache-dir", cache, "compare", "HEAD~1", "HEAD"}, scratch.dir(), env);
  EXPECT_EQ(compare.exit_code, 1) << compare.out << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("above the roof, a defect of the measurement"));
}

} // namespace
} // namespace culprit
