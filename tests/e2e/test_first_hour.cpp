// What a newcomer reads in the first hour: each message says a thing once.

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
  EXPECT_EQ(second.err.find("noisy host"), std::string::npos) << second.err;
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

} // namespace
} // namespace culprit
