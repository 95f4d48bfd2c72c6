// A flag given twice takes its last value, as in git and the GNU tools: a script appends its
// overrides to a command line it was handed, and the overrides must win.

#include <fstream>

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

TEST(RepeatedFlags, TheLastOfEachWins) {
  TempDir temp("culprit-repeated");
  StepProject project(temp / "project", {.commits = 2, .step_at = 1});
  const auto unused_cache = temp / "unused-cache";
  const auto cache = temp / "cache";
  const auto unused_json = temp / "unused.json";
  const auto json = temp / "run.json";
  const std::string bench = "sh {build}/bench.sh {build}/value";

  const auto run = run_culprit({"--cache-dir", unused_cache.string(),
                                "--cache-dir", cache.string(),
                                "run",         "HEAD",
                                "--run",       "false",
                                "--run",       bench,
                                "--min-runs",  "9",
                                "--min-runs",  "3",
                                "--max-runs",  "3",
                                "--json",      unused_json.string(),
                                "--json",      json.string()},
                               project.dir());

  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(std::filesystem::exists(unused_cache));
  EXPECT_TRUE(std::filesystem::exists(cache));
  EXPECT_FALSE(std::filesystem::exists(unused_json));
  std::ifstream in(json);
  const auto evidence = nlohmann::json::parse(in);
  EXPECT_EQ(evidence.at("settings").at("run"), bench);
  EXPECT_EQ(evidence.at("settings").at("min_runs"), 3);
}

// A list option still collects every value.
TEST(RepeatedFlags, AListOptionKeepsEveryValue) {
  TempDir temp("culprit-repeated");
  StepProject project(temp / "project", {.commits = 2, .step_at = 1});
  const auto run =
      run_culprit({"--cache-dir", (temp / "cache").string(), "run", "HEAD", "--case", "nothing*",
                   "--case", "kern*", "--min-runs", "3", "--max-runs", "3"},
                  project.dir());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, ::testing::HasSubstr("kernel"));
}

} // namespace
} // namespace culprit::testing
