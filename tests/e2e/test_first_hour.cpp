// What a newcomer reads in the first hour: each message says a thing once.

#include <cctype>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/evidence/evidence.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/process.hpp"
#include "tests/support/step_project.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using testing::run_culprit;
using testing::StepProject;
using testing::TempDir;

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++count;
  return count;
}

TEST(FirstHour, ACommitThatDoesNotBuildNamesItsLogOnce) {
  TempDir temp("culprit-first-hour");
  StepProject project(temp / "project", {.commits = 3, .step_at = 1});
  auto& repo = project.repo();
  repo.remove("value");
  const auto broken = repo.commit("value forgotten");
  repo.write("value", "13.000000\n");
  const auto fixed = repo.commit("value back");
  const auto track = run_culprit({"--cache-dir", (temp / "cache").string(), "track",
                                  project.good() + ".." + fixed, "--runs", "2"},
                                 project.dir());
  ASSERT_EQ(track.exit_code, 0) << track.err;
  const auto at = track.err.find(broken.substr(0, 12) + " does not build");
  ASSERT_NE(at, std::string::npos) << track.err;
  const auto line = track.err.substr(at, track.err.find('\n', at) - at);
  EXPECT_EQ(occurrences(line, ".log"), 1U) << line;
}

// The noisy-host warning is said once an hour per cache while it stays the same; -v says it
// every time.
TEST(FirstHour, TheHostWarningIsSaidOnceAnHour) {
  TempDir temp("culprit-host-warning");
  StepProject project(temp / "project", {.commits = 2, .step_at = 1});
  const std::vector<std::string> run = {"--cache-dir", (temp / "cache").string(),
                                        "run",         "HEAD",
                                        "--min-runs",  "2",
                                        "--max-runs",  "2"};
  const auto first = run_culprit(run, project.dir());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  if (first.err.find("culprit: warning: noisy host") == std::string::npos)
    GTEST_SKIP() << "this host draws no warning";
  const auto second = run_culprit(run, project.dir());
  // The warning comes again only when what it says changed (the load average crossed a bound in
  // between); its figures alone do not count.
  const auto warning_of = [](const std::string& err) {
    const auto at = err.find("culprit: warning: noisy host");
    std::string line = at == std::string::npos ? "" : err.substr(at, err.find('\n', at) - at);
    std::erase_if(line, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
    return line;
  };
  if (!warning_of(second.err).empty()) {
    EXPECT_NE(warning_of(second.err), warning_of(first.err)) << second.err;
  }
  auto verbose = run;
  verbose.emplace_back("-v");
  const auto third = run_culprit(verbose, project.dir());
  EXPECT_NE(third.err.find("noisy host"), std::string::npos) << third.err;
}

// A block of unbuildable commits around the culprit, in two cases: the candidates are listed once
// each, with their subjects, in the console, the evidence and the reports.
TEST(FirstHour, CandidatesAreListedOnceWithTheirSubjects) {
  TempDir temp("culprit-candidates");
  testing::ScratchRepo repo(temp / "project");
  // The step project's benchmark, for two cases.
  repo.write("bench.sh", R"(#!/bin/sh
v=$(cat "$1")
awk -v v="$v" -v seed="$$" 'BEGIN {
  srand(seed)
  for (k = 0; k < 2; k++)
    for (i = 0; i < 5; i++)
      printf "{\"type\":\"sample\",\"case\":\"%s\",\"metric\":\"time\",\"unit\":\"ms\",\"direction\":\"lower\",\"value\":%.6f}\n", k ? "b" : "a", v * (1 + 0.01 * (rand() - 0.5))
}'
)",
             true);
  repo.write("culprit.toml", testing::k_step_recipe);
  repo.write("value", "10\n");
  const auto good = repo.commit("start");
  for (int i = 1; i <= 3; ++i) {
    repo.write("NOTES", std::to_string(i) + "\n");
    repo.commit("note " + std::to_string(i));
  }
  repo.remove("value");
  const auto first = repo.commit("value gone for a while");
  repo.write("NOTES", "still broken\n");
  const auto second = repo.commit("still without a value");
  repo.write("value", "13\n");
  const auto third = repo.commit("value back, and slower");
  repo.write("NOTES", "last\n");
  const auto bad = repo.commit("last");
  const auto json = temp / "bisect.json";
  const auto markdown = temp / "bisect.md";
  const auto result =
      run_culprit({"--cache-dir", (temp / "cache").string(), "bisect", "--good", good, "--bad", bad,
                   "--json", json.string(), "--markdown", markdown.string()},
                  repo.dir());
  ASSERT_EQ(result.exit_code, 3) << result.out << result.err;
  for (const auto& [commit, subject] :
       std::vector<std::pair<std::string, std::string>>{{first, "value gone for a while"},
                                                        {second, "still without a value"},
                                                        {third, "value back, and slower"}}) {
    EXPECT_EQ(occurrences(result.out, "  " + commit.substr(0, 12) + " " + subject + "\n"), 1U)
        << result.out;
  }
  std::ifstream in(markdown);
  const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(occurrences(md, "still without a value"), 1U) << md;
  EXPECT_THAT(md, ::testing::HasSubstr("Candidates left (3)"));
}

// A Google Benchmark program that counts only the bytes it processed (a decompressor's, say)
// counts no work: no roofline row, and -v says why once for all its cases.
TEST(FirstHour, ACaseThatCountsNoWorkHasNoRooflineAndVerboseSaysWhyOnce) {
  TempDir temp("culprit-no-work");
  testing::ScratchRepo repo(temp / "project");
  repo.write("bench.sh", R"(#!/bin/sh
awk -v seed="$$" 'BEGIN {
  srand(seed)
  printf "{\"context\": {}, \"benchmarks\": ["
  for (k = 0; k < 3; k++)
    for (i = 0; i < 3; i++)
      printf "%s{\"name\": \"BM_Uncompress/%d\", \"run_type\": \"iteration\", \"iterations\": 100, \"real_time\": %.4f, \"cpu_time\": %.4f, \"time_unit\": \"us\", \"bytes_per_second\": 2.5e9}", (k || i) ? ", " : "", k, 20 + rand(), 20 + rand()
  print "]}"
}'
)",
             true);
  repo.write("culprit.toml", "[build]\ncommand = \"cp {src}/bench.sh {build}/bench.sh\"\n"
                             "[run]\ncommand = \"{build}/bench.sh\"\nformat = \"gbench\"\n");
  const auto head = repo.commit("a decompression benchmark");
  std::vector<std::string> run = {"--cache-dir",   (temp / "cache").string(),
                                  "run",           head,
                                  "--min-runs",    "2",
                                  "--max-runs",    "2",
                                  "--peak-gflops", "100",
                                  "--peak-gbps",   "20"};
  const auto quiet = run_culprit(run, repo.dir());
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_THAT(quiet.out, ::testing::HasSubstr("BM_Uncompress/2"));
  EXPECT_THAT(quiet.out, ::testing::Not(::testing::HasSubstr("FLOP/byte")));
  EXPECT_THAT(quiet.out, ::testing::Not(::testing::HasSubstr("of the bound")));
  EXPECT_THAT(quiet.out, ::testing::Not(::testing::HasSubstr("no roofline")));
  run.emplace_back("-v");
  const auto told = run_culprit(run, repo.dir());
  ASSERT_EQ(told.exit_code, 0) << told.err;
  EXPECT_EQ(occurrences(told.out, "no roofline"), 1U) << told.out;
  EXPECT_THAT(told.out, ::testing::HasSubstr("no roofline for BM_Uncompress/0, BM_Uncompress/1, "
                                             "BM_Uncompress/2: no work counted"));
  EXPECT_THAT(told.out, ::testing::HasSubstr("bytes_per_second counts only beside a FLOP counter"));
}

// A benchmark that reads its inputs from testdata/ by a relative path (snappy's, say): init
// keeps the directory beside the program and starts runs there, and the recipe runs as written;
// in a scratch directory the same run cannot find its input.
TEST(FirstHour, InitKeepsADataDirectoryBesideTheProgramAndRunsStartThere) {
  TempDir temp("culprit-data-dir");
  testing::ScratchRepo repo(temp / "project");
  repo.write("testdata/input.txt", "2.5\n");
  repo.write("bench.c", R"(#include <stdio.h>
int main(void) {
  FILE* input = fopen("testdata/input.txt", "r");
  double value = 0;
  if (input == NULL || fscanf(input, "%lf", &value) != 1) {
    perror("testdata/input.txt");
    return 1;
  }
  for (int i = 0; i < 5; ++i)
    printf("{\"type\":\"sample\",\"case\":\"decode\",\"metric\":\"time\",\"unit\":\"ms\","
           "\"direction\":\"lower\",\"value\":%.6f}\n", value * (1 + 0.001 * i));
  return 0;
}
)");
  repo.write("Makefile", "bench: bench.c\n\tcc -O1 -o bench bench.c\n");
  const auto head = repo.commit("a benchmark that reads testdata/");
  const auto init = run_culprit({"init"}, repo.dir());
  ASSERT_EQ(init.exit_code, 0) << init.err;
  EXPECT_THAT(init.out, ::testing::HasSubstr("the sources read testdata/ by relative paths"));
  std::ifstream file(repo.dir() / "culprit.toml");
  const std::string recipe{std::istreambuf_iterator<char>(file), {}};
  EXPECT_THAT(recipe, ::testing::HasSubstr(R"(artifacts = ["{src}/bench", "{src}/testdata"])"));
  EXPECT_THAT(recipe, ::testing::HasSubstr("\ncwd = \"artifacts\""));
  const std::vector<std::string> run = {
      "--cache-dir", (temp / "cache").string(), "run", head, "--min-runs", "2", "--max-runs", "2"};
  const auto measured = run_culprit(run, repo.dir());
  EXPECT_EQ(measured.exit_code, 0) << measured.out << measured.err;
  EXPECT_THAT(measured.out, ::testing::HasSubstr("decode"));
  auto scratch = run;
  scratch.insert(scratch.end(), {"--cwd", "scratch"});
  const auto lost = run_culprit(scratch, repo.dir());
  EXPECT_EQ(lost.exit_code, 4) << lost.out << lost.err;
  EXPECT_THAT(lost.err, ::testing::HasSubstr("testdata/input.txt: No such file"));
}

// [run] cwd takes "scratch" or "artifacts", nothing else, in one line that names the key.
TEST(FirstHour, ABadRunDirectoryIsOneLineUsageError) {
  TempDir temp("culprit-bad-cwd");
  StepProject project(temp / "project", {.commits = 2, .step_at = 1});
  const auto flag = run_culprit(
      {"--cache-dir", (temp / "cache").string(), "run", "HEAD", "--cwd", "home"}, project.dir());
  EXPECT_EQ(flag.exit_code, 2) << flag.err;
  EXPECT_THAT(flag.err, ::testing::HasSubstr("--cwd"));
  std::string recipe;
  {
    std::ifstream in(project.dir() / "culprit.toml");
    recipe.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_NE(recipe.find("[run]\n"), std::string::npos) << recipe;
  recipe.insert(recipe.find("[run]\n") + 6, "cwd = \"build\"\n");
  std::ofstream(project.dir() / "culprit.toml") << recipe;
  const auto key =
      run_culprit({"--cache-dir", (temp / "cache").string(), "run", "HEAD"}, project.dir());
  EXPECT_EQ(key.exit_code, 2) << key.err;
  EXPECT_EQ(std::ranges::count(key.err, '\n'), 1) << key.err;
  EXPECT_THAT(key.err, ::testing::HasSubstr(R"(cwd must be "scratch")"));
  EXPECT_FALSE(std::filesystem::exists(temp / "cache")) << "nothing was built or run";
}

// One run of a whole suite that takes long: a note, once, says how to measure fewer cases; a
// case filter keeps it quiet. (The suite is slow in its first run after the mark is removed.)
TEST(FirstHour, ASlowSuiteGetsOneNoteAboutCaseFilters) {
  TempDir temp("culprit-slow-suite");
  testing::ScratchRepo repo(temp / "project");
  repo.write("bench.sh", R"(#!/bin/sh
if [ ! -e "$SLOW_MARK" ]; then sleep 5.2; touch "$SLOW_MARK"; fi
for i in 1 2 3; do
  echo '{"type":"sample","case":"all","metric":"time","unit":"ms","direction":"lower","value":1.0}'
done
)",
             true);
  const auto mark = temp / "slow-mark";
  repo.write("culprit.toml", "[build]\ncommand = \"cp {src}/bench.sh {build}/bench.sh\"\n"
                             "[run]\ncommand = \"{build}/bench.sh\"\nenv = { SLOW_MARK = \"" +
                                 mark.string() + "\" }\n");
  const auto first = repo.commit("a slow suite");
  repo.write("notes.sh", "# another build of it\n");
  repo.write("culprit.toml", "[build]\ncommand = \"cp {src}/*.sh {build}/\"\n"
                             "[run]\ncommand = \"{build}/bench.sh\"\nenv = { SLOW_MARK = \"" +
                                 mark.string() + "\" }\n");
  const auto second = repo.commit("the same suite, built anew");
  std::vector<std::string> run = {"--cache-dir", (temp / "cache").string(),
                                  "run",         second,
                                  "--min-runs",  "2",
                                  "--max-runs",  "2"};
  std::vector<std::string> filtered = {"--cache-dir", (temp / "cache").string(),
                                       "run",         first,
                                       "--min-runs",  "2",
                                       "--max-runs",  "2",
                                       "--case",      "all"};
  const auto narrow = run_culprit(filtered, repo.dir());
  ASSERT_EQ(narrow.exit_code, 0) << narrow.err;
  ASSERT_TRUE(std::filesystem::exists(mark)) << "the filtered run was the slow one";
  EXPECT_EQ(narrow.err.find("whole suite"), std::string::npos) << narrow.err;
  std::filesystem::remove(mark);
  const auto told = run_culprit(run, repo.dir());
  ASSERT_EQ(told.exit_code, 0) << told.err;
  EXPECT_EQ(occurrences(told.err, "culprit: note: one run of the whole suite took"), 1U)
      << told.err;
  EXPECT_THAT(told.err, ::testing::HasSubstr("--case GLOB"));
}

// A step that dwarfs the noise (30% under 0.5%): every probe is classified at a quick look of two
// blocks, and the bisection names the planted commit.
TEST(FirstHour, AStepThatDwarfsTheNoiseIsBisectedWithTwoBlocksAProbe) {
  TempDir temp("culprit-quick-look");
  // The step project's benchmark and recipe, with a note that every commit changes and the build
  // keeps, so that no two commits share a build and every probe is measured.
  testing::ScratchRepo repo(temp / "project");
  repo.write("bench.sh", testing::k_step_bench_script, true);
  repo.write("value", "10.000000\n");
  repo.write("culprit.toml", "[build]\ncommand = \"cp {src}/bench.sh {src}/value {src}/note "
                             "{build}/\"\n[run]\ncommand = \"sh {build}/bench.sh {build}/value\"\n"
                             "format = \"culprit\"\n");
  std::vector<std::string> commits;
  for (int i = 0; i < 17; ++i) {
    repo.write("note", std::to_string(i) + "\n");
    if (i == 11)
      repo.write("value", "13.000000\n");
    commits.push_back(repo.commit("commit " + std::to_string(i)));
  }
  const auto json = temp / "bisect.json";
  const auto bisect =
      run_culprit({"--cache-dir", (temp / "cache").string(), "bisect", "--good", commits.front(),
                   "--bad", commits.back(), "--json", json.string()},
                  repo.dir());
  ASSERT_EQ(bisect.exit_code, 0) << bisect.out << bisect.err;
  const auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence && evidence->bisect) << bisect.err;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U);
  EXPECT_EQ(evidence->bisect->culprits[0].commit, commits[11]);
  ASSERT_GE(evidence->bisect->steps.size(), 3U);
  for (const auto& step : evidence->bisect->steps) {
    EXPECT_EQ(step.runs, 2) << step.commit;
    EXPECT_THAT(step.note, ::testing::HasSubstr("a quick look: the step is")) << step.commit;
  }
}

} // namespace
} // namespace culprit
