// What a newcomer reads in the first hour: each message says a thing once.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

} // namespace
} // namespace culprit
