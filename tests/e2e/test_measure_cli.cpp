// End to end: run, compare and bisect on a real repository whose benchmark is a small C program
// that prints culprit JSON lines. One commit makes the loop 50% longer.

#include <algorithm>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/evidence/evidence.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/loop_bench.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::run_culprit;
using testing::ScratchRepo;
using testing::snapshot;
using testing::TempDir;

class MeasureCli : public ::testing::Test {
protected:
  void SetUp() override {
    const testing::LoopHistory history(scratch);
    good = history.good;
    culprit = history.culprit;
    bad = history.bad;
  }

  testing::ProcessOutput culprit_cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--cache-dir", (temp / "cache").string()});
    return run_culprit(args, scratch.dir());
  }

  // What `culprit report EVIDENCE --format summary` prints must be what the command printed.
  void expect_report_reproduces(const std::string& json, const testing::ProcessOutput& printed,
                                std::vector<std::string> flags = {}) {
    flags.insert(flags.end(), {"report", json, "--format", "summary"});
    auto report = culprit_cli(flags);
    ASSERT_EQ(report.exit_code, 0) << report.err;
    EXPECT_EQ(report.out, printed.out);
  }

  TempDir temp{"culprit-measure"};
  ScratchRepo scratch{temp / "project"};
  std::string good, culprit, bad;
};

TEST_F(MeasureCli, RunPrintsACaseTableAndWritesEvidence) {
  auto run = culprit_cli({"run", "HEAD", "--json", (temp / "run.json").string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("loop"));
  EXPECT_THAT(run.out, HasSubstr("steady"));
  auto evidence = evidence::load_evidence(temp / "run.json");
  ASSERT_TRUE(evidence) << evidence.error().message;
  EXPECT_EQ(evidence->kind, "run");
  EXPECT_EQ(evidence->measurements.size(), 2U);
  EXPECT_GE(evidence->measurements[0].runs.size(), 5U);
  EXPECT_EQ(evidence->revisions, std::vector<std::string>{"HEAD"});
  expect_report_reproduces((temp / "run.json").string(), run);
}

TEST_F(MeasureCli, RunSaysWhenItStoppedAtMaxRunsWithTheIntervalsItReached) {
  // No interval of a real program gets within 0.0005% of its median in 5 runs.
  auto run = culprit_cli({"run", "HEAD", "--min-runs", "5", "--max-runs", "5", "--threshold",
                          "0.00001", "--json", (temp / "wide.json").string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("stopped at max_runs (5) before every 95% interval was within "
                                 "±0.0005% of its median: "));
  EXPECT_THAT(run.err, HasSubstr("loop ±"));
  auto evidence = evidence::load_evidence(temp / "wide.json");
  ASSERT_TRUE(evidence) << evidence.error().message;
  EXPECT_TRUE(std::ranges::any_of(evidence->warnings, [](const std::string& warning) {
    return warning.starts_with("stopped at max_runs (5)");
  }));

  // A target that is reached says nothing (with room for the runs a loaded machine needs: with
  // the other core busy, 20 runs of the loop have left an interval of ±73%).
  auto easy = culprit_cli({"run", "HEAD", "--threshold", "0.5", "--max-runs", "200"});
  ASSERT_EQ(easy.exit_code, 0) << easy.err;
  EXPECT_THAT(easy.err, Not(HasSubstr("stopped at max_runs")));
}

TEST_F(MeasureCli, IdenticalBinariesAreTheSameWithoutARun) {
  // good and the commit after it differ only in NOTES: their artifacts are byte-identical.
  const auto json = temp / "identical.json";
  const auto after_good = scratch.git({"rev-list", "--reverse", good + "..HEAD"});
  const auto child = after_good.substr(0, after_good.find('\n'));
  auto compare = culprit_cli({"compare", good, child, "--json", json.string()});
  ASSERT_EQ(compare.exit_code, 0) << compare.out << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("same (identical binaries"));
  auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  EXPECT_EQ(evidence->status, "no_change");
  EXPECT_TRUE(evidence->measurements.empty()) << "nothing was run";
  for (const auto& c : evidence->comparisons) {
    EXPECT_EQ(c.verdict, "same");
    EXPECT_EQ(c.base_runs, 0);
    EXPECT_THAT(c.note, HasSubstr("identical binaries"));
  }
}

TEST_F(MeasureCli, StoredRunsCountOnlyWhenPairedAndTheEvidenceSaysWhatWasReused) {
  auto run = culprit_cli({"run", bad, "--min-runs", "5", "--max-runs", "5"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto first = temp / "first.json";
  auto compare = culprit_cli({"compare", good, bad, "--json", first.string()});
  ASSERT_EQ(compare.exit_code, 1) << compare.out << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("stored without"));
  EXPECT_THAT(compare.out, HasSubstr("left out (unpaired)"));
  auto evidence = evidence::load_evidence(first);
  ASSERT_TRUE(evidence) << evidence.error().message;
  for (const auto& c : evidence->comparisons) {
    ASSERT_TRUE(c.reuse.has_value()) << c.case_name;
    EXPECT_EQ(c.reuse->blocks, 0) << "the run of bad alone pairs with nothing";
    EXPECT_EQ(c.reuse->base_unpaired, 0);
    EXPECT_GE(c.reuse->head_unpaired, 5) << "the five runs of `run` were left out";
  }
  // Asked again, the blocks of the first compare are paired, so they are reused, and said so.
  const auto second = temp / "second.json";
  auto again = culprit_cli({"compare", good, bad, "--json", second.string()});
  ASSERT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_THAT(again.out, HasSubstr("made by an earlier command"));
  auto replayed = evidence::load_evidence(second);
  ASSERT_TRUE(replayed) << replayed.error().message;
  for (const auto& c : replayed->comparisons) {
    ASSERT_TRUE(c.reuse.has_value());
    EXPECT_EQ(c.reuse->blocks, c.base_runs) << "every block came from the first compare";
  }
}

TEST_F(MeasureCli, JsonToStandardOutputIsJsonAloneAndTheTableGoesToStandardError) {
  auto run = culprit_cli({"run", "HEAD", "--json", "-"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto document = nlohmann::json::parse(run.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(document.is_discarded()) << run.out;
  auto evidence = evidence::evidence_from_json(document);
  ASSERT_TRUE(evidence) << evidence.error().message;
  EXPECT_EQ(evidence->kind, "run");
  EXPECT_THAT(run.err, HasSubstr("loop"));

  auto compare = culprit_cli({"compare", good, bad, "--case", "loop", "--json", "-"});
  EXPECT_EQ(compare.exit_code, 1) << compare.err;
  const auto compared = nlohmann::json::parse(compare.out, nullptr, false);
  ASSERT_FALSE(compared.is_discarded()) << compare.out;
  EXPECT_EQ(compared.at("kind"), "compare");
  EXPECT_THAT(compare.err, HasSubstr("slower"));
}

TEST_F(MeasureCli, GoogleBenchmarkConsoleOutputStopsAtTheFirstRunAndSaysWhatToAdd) {
  const auto console = temp / "console.txt";
  std::ofstream(console) << "Run on (2 X 2450 MHz CPU s)\n"
                            "---------------------------------------------------------\n"
                            "Benchmark               Time             CPU   Iterations\n"
                            "---------------------------------------------------------\n"
                            "BM_Saxpy/1024         187 ns          187 ns      3741203\n";
  const auto counter = temp / "runs.txt";
  auto run = culprit_cli({"run", "HEAD", "--format", "auto", "--run",
                          "echo run >> " + counter.string() + "; cat " + console.string()});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("Google Benchmark's console table, not its JSON: add "
                                 "--benchmark_format=json to the run command"));
  std::ifstream runs(counter);
  const std::string text{std::istreambuf_iterator<char>(runs), std::istreambuf_iterator<char>()};
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << "more than one run: " << text;
}

TEST_F(MeasureCli, TheTimeFormatMeasuresTheWholeProcessLikeHyperfine) {
  auto run = culprit_cli({"run", "HEAD", "--format", "time", "--max-runs", "6", "--json",
                          (temp / "time.json").string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto evidence = evidence::load_evidence(temp / "time.json");
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_EQ(evidence->measurements.size(), 1U);
  EXPECT_EQ(evidence->measurements[0].case_name, "bench");
  EXPECT_EQ(evidence->measurements[0].metric, "wall_time");
}

TEST_F(MeasureCli, CompareExitsOneOnARegressionAndZeroWithout) {
  auto slower = culprit_cli({"compare", good, bad, "--json", (temp / "cmp.json").string()});
  EXPECT_EQ(slower.exit_code, 1) << slower.out << slower.err;
  EXPECT_THAT(slower.out, HasSubstr("slower"));
  auto evidence = evidence::load_evidence(temp / "cmp.json");
  ASSERT_TRUE(evidence) << evidence.error().message;
  EXPECT_EQ(evidence->status, "slower");
  const auto loop = std::find_if(evidence->comparisons.begin(), evidence->comparisons.end(),
                                 [](const auto& c) { return c.case_name == "loop"; });
  ASSERT_NE(loop, evidence->comparisons.end());
  EXPECT_EQ(loop->verdict, "slower");
  EXPECT_GT(loop->ratio, 1.2);
  expect_report_reproduces((temp / "cmp.json").string(), slower);

  auto same = culprit_cli({"compare", culprit, bad, "--case", "steady"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
}

TEST_F(MeasureCli, BisectNamesTheCulpritLeavesTheCheckoutAloneAndReplaysForFree) {
  const auto before = snapshot(scratch.dir());
  const auto json = (temp / "bisect.json").string();
  const auto markdown = (temp / "bisect.md").string();
  const auto html = (temp / "bisect.html").string();
  auto found = culprit_cli({"bisect", "--good", good, "--bad", bad, "--json", json, "--markdown",
                            markdown, "--html", html});
  ASSERT_EQ(found.exit_code, 0) << found.out << found.err;
  EXPECT_THAT(found.out, HasSubstr("culprit " + culprit.substr(0, 12)));
  EXPECT_THAT(found.out, HasSubstr("Alan Turing"));
  EXPECT_THAT(found.out, HasSubstr(json));
  auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_TRUE(evidence->bisect.has_value());
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U);
  EXPECT_EQ(evidence->bisect->culprits[0].commit, culprit);
  EXPECT_EQ(evidence->bisect->culprits[0].files, std::vector<std::string>{"work"});
  EXPECT_EQ(evidence->bisect->culprits[0].owners, std::vector<std::string>{"@perf-team"});
  EXPECT_EQ(evidence->bisect->culprits[0].subject, "Do half as much work again");
  std::ifstream md(markdown);
  const std::string md_text{std::istreambuf_iterator<char>(md), std::istreambuf_iterator<char>()};
  EXPECT_THAT(md_text, HasSubstr("Do half as much work again"));
  EXPECT_THAT(md_text, HasSubstr("@perf-team"));
  std::ifstream page(html);
  const std::string html_text{std::istreambuf_iterator<char>(page),
                              std::istreambuf_iterator<char>()};
  EXPECT_THAT(html_text, HasSubstr("<svg"));
  EXPECT_EQ(evidence->bisect->commits_in_range, 8);
  EXPECT_EQ(snapshot(scratch.dir()), before) << "the user's checkout changed";
  expect_report_reproduces(json, found);

  // Again: every build is cached and every run stored.
  const auto evidence_bytes = std::filesystem::file_size(json);
  auto again = culprit_cli({"bisect", "--good", good, "--bad", bad, "--json", json});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  auto replay = evidence::load_evidence(json);
  ASSERT_TRUE(replay);
  for (const auto& build : replay->builds)
    EXPECT_EQ(build.status, "cached") << build.commit;
  std::size_t runs_first = 0;
  std::size_t runs_again = 0;
  for (const auto& m : evidence->measurements)
    runs_first += m.runs.size();
  for (const auto& m : replay->measurements)
    runs_again += m.runs.size();
  EXPECT_EQ(runs_again, runs_first) << "a replay must not add runs";
  EXPECT_GT(evidence_bytes, 0U);

  // Runs that another command adds for the culprit and its parent (paired, in blocks of the
  // two) do not change what the finished bisection found: it replays its own runs.
  const auto& found_first = evidence->bisect->culprits.at(0);
  auto compared =
      culprit_cli({"compare", found_first.parent, culprit, "--fresh", "--max-runs", "12"});
  EXPECT_EQ(compared.exit_code, 1) << compared.out << compared.err;
  auto third = culprit_cli({"bisect", "--good", good, "--bad", bad, "--json", json});
  ASSERT_EQ(third.exit_code, 0) << third.err;
  auto replayed = evidence::load_evidence(json);
  ASSERT_TRUE(replayed) << replayed.error().message;
  ASSERT_EQ(replayed->bisect->culprits.size(), 1U);
  const auto& found_again = replayed->bisect->culprits[0];
  ASSERT_EQ(found_again.cases.size(), found_first.cases.size());
  for (std::size_t i = 0; i < found_first.cases.size(); ++i) {
    EXPECT_EQ(found_again.cases[i].ratio, found_first.cases[i].ratio);
    EXPECT_EQ(found_again.cases[i].ci, found_first.cases[i].ci);
  }
  ASSERT_EQ(replayed->comparisons.size(), evidence->comparisons.size());
  for (std::size_t i = 0; i < evidence->comparisons.size(); ++i)
    EXPECT_EQ(replayed->comparisons[i].ratio, evidence->comparisons[i].ratio);
  ASSERT_EQ(replayed->measurements.size(), evidence->measurements.size());
  for (std::size_t i = 0; i < evidence->measurements.size(); ++i) {
    const auto& m = evidence->measurements[i];
    EXPECT_EQ(replayed->measurements[i].runs.size(), m.runs.size())
        << m.commit << " " << m.case_name;
    EXPECT_EQ(replayed->measurements[i].summary.median, m.summary.median)
        << m.commit << " " << m.case_name;
  }
}

TEST_F(MeasureCli, BisectWithoutAChangeExitsFiveAndBadRangesExitTwo) {
  const auto json = (temp / "none.json").string();
  auto none = culprit_cli(
      {"--quiet", "bisect", "--good", culprit, "--bad", bad, "--case", "loop", "--json", json});
  EXPECT_EQ(none.exit_code, 5) << none.out << none.err;
  EXPECT_THAT(none.out, HasSubstr("not reproduced"));
  expect_report_reproduces(json, none, {"--quiet"});

  auto same = culprit_cli({"bisect", "--good", bad, "--bad", bad});
  EXPECT_EQ(same.exit_code, 2);
  EXPECT_THAT(same.err, HasSubstr("same commit"));
  auto swapped = culprit_cli({"bisect", "--good", bad, "--bad", good});
  EXPECT_EQ(swapped.exit_code, 2);
  EXPECT_THAT(swapped.err, HasSubstr("swap"));
  auto unknown = culprit_cli({"bisect", "--good", "v0.0-nope", "--bad", bad});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unknown revision"));
}

// A benchmark with two cases that both cost WORK iterations: the commit that raises WORK moves
// both, and is one culprit.
constexpr std::string_view k_two_loops = R"(#include <stdio.h>
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static void timed(const char* name, long work) {
  volatile double x = 0;
  double t0 = now();
  for (long i = 0; i < work; i++) x += i * 0.5;
  printf("{\"type\":\"sample\",\"case\":\"%s\",\"metric\":\"time\",\"unit\":\"s\","
         "\"direction\":\"lower\",\"value\":%.9f}\n", name, now() - t0);
}
int main(void) {
  for (int s = 0; s < 5; s++) {
    timed("add", WORK);
    timed("add-twice", 2L * WORK);
  }
  return 0;
}
)";

TEST_F(MeasureCli, ACommitThatSlowedTwoCasesIsOneCulpritWithBothCases) {
  ScratchRepo two(temp / "two-loops");
  two.write("bench.c", k_two_loops);
  two.write("culprit.toml", testing::k_loop_recipe);
  // Samples well under a scheduler's slice (about 0.4 and 0.9 ms): a sample as long as a slice
  // on a CPU shared with another test is cut by it every time, and no run's fastest escapes.
  two.write("work", "100000\n");
  const auto first = two.commit("benchmark");
  two.write("NOTES", "a note\n");
  two.commit("notes");
  two.write("work", "150000\n");
  const auto slower = two.commit("Do half as much work again in both", "Alan Turing");
  two.write("NOTES", "a later note\n");
  const auto last = two.commit("later");

  const auto json = (temp / "two.json").string();
  // Judged by each run's fastest sample, with room for more runs: the test is about grouping
  // cases by commit, and a loaded CI machine (other tests beside it) must not leave a case
  // unresolved.
  auto found =
      run_culprit({"--cache-dir", (temp / "cache").string(), "bisect", "--good", first, "--bad",
                   last, "--json", json, "--statistic", "min", "--max-runs", "40"},
                  two.dir());
  ASSERT_EQ(found.exit_code, 0) << found.out << found.err;
  const auto out = "\n" + found.out;
  const auto named = "\nculprit " + slower.substr(0, 12);
  ASSERT_NE(out.find(named), std::string::npos) << found.out;
  EXPECT_EQ(out.find(named, out.find(named) + 1), std::string::npos)
      << "the commit is named once, with its cases under it:\n"
      << found.out;
  EXPECT_THAT(found.out, HasSubstr("  case add: +"));
  EXPECT_THAT(found.out, HasSubstr("  case add-twice: +"));
  auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U) << "one commit is one culprit";
  const auto& culprit_found = evidence->bisect->culprits[0];
  EXPECT_EQ(culprit_found.commit, slower);
  ASSERT_EQ(culprit_found.cases.size(), 2U);
  for (const auto& moved : culprit_found.cases)
    EXPECT_GT(moved.ratio, 1.2) << moved.name;

  auto text = run_culprit({"report", json}, two.dir());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, ::testing::StartsWith("culprit bisect: 1 culprit found, 2 cases: " +
                                              slower.substr(0, 12)));
}

} // namespace
} // namespace culprit
