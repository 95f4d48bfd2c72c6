// End to end, the command line's surface on a small history of imported results (no builds, no
// runs): '-' as standard output for every output flag of every command, what `culprit
// regressions` takes and shows, and the metric a history of counted runs shows by default.

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/evidence/evidence.hpp"
#include "core/history/ledger.hpp"
#include "core/history/regressions.hpp"
#include "tests/support/evidence_samples.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::run_culprit;
using ::testing::StartsWith;

// One run of the case `loop` as Valgrind's lane records it: the program's wall time (taken on a
// simulated CPU) and the instructions it executed.
std::string counted_run(double seconds, double instructions) {
  return nlohmann::json{{"type", "sample"}, {"case", "loop"},       {"metric", "wall_time"},
                        {"unit", "s"},      {"direction", "lower"}, {"value", seconds}}
             .dump() +
         "\n" +
         nlohmann::json{{"type", "sample"}, {"case", "loop"},       {"metric", "instructions"},
                        {"unit", ""},       {"direction", "lower"}, {"value", instructions}}
             .dump() +
         "\n";
}

class CliOutputs : public ::testing::Test {
protected:
  void SetUp() override {
    scratch.write("README", "one\n");
    first = scratch.commit("first");
    scratch.write("README", "two\n");
    second = scratch.commit("second");
    import(first, counted_run(0.5, 1000));
    import(second, counted_run(0.4, 1500));
  }

  testing::ProcessOutput cli(std::vector<std::string> args,
                             const std::map<std::string, std::string>& env = {}) {
    args.insert(args.begin(), {"--cache-dir", (temp / "cache").string()});
    return run_culprit(args, scratch.dir(), env);
  }

  void import(const std::string& commit, const std::string& lines) {
    const auto file = temp / ("run-" + commit + ".jsonl");
    std::ofstream(file) << lines;
    const auto imported =
        cli({"import", file.string(), "--commit", commit, "--format", "culprit", "--host", "ci"});
    ASSERT_EQ(imported.exit_code, 0) << imported.err;
  }

  // Records a regression of `host` in the ledger, as triage would have; returns its id.
  std::string record(const std::string& host) {
    EXPECT_EQ(cli({"regressions"}).exit_code, 0); // makes the ledger
    std::filesystem::path file;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(temp / "cache"))
      if (entry.path().filename() == history::k_ledger_file_name)
        file = entry.path();
    EXPECT_FALSE(file.empty());
    auto ledger = history::Ledger::open(file).value();
    const auto at = store::now();
    const auto id = history::range_regression_id(host, first, second);
    history::Regression found{.id = id,
                              .host_id = host,
                              .range_before = first,
                              .range_after = second,
                              .state = history::RegressionState::confirmed,
                              .cases = {{"loop", "wall_time", 1.5, {1.45, 1.55}, {}}},
                              .evidence = {},
                              .first_seen = at,
                              .last_seen = at};
    EXPECT_TRUE(ledger.record_regression(found, "triage").value());
    return id;
  }

  // Nothing named '-' (or anything else) appeared in the user's tree.
  void expect_tree_untouched() const {
    EXPECT_FALSE(std::filesystem::exists(scratch.dir() / "-"));
    EXPECT_EQ(testing::snapshot(scratch.dir()), before);
  }

  testing::TempDir temp{"culprit-cli-outputs"};
  testing::ScratchRepo scratch{temp / "project"};
  std::string first, second;
  std::map<std::string, std::string> before;
};

void expect_both_on_stdout_refused(const testing::ProcessOutput& out) {
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_THAT(out.err, HasSubstr("would both write to standard output"));
  EXPECT_EQ(std::ranges::count(out.err, '\n'), 1) << out.err;
  EXPECT_EQ(out.out, "");
}

TEST_F(CliOutputs, HistoryWritesEachOutputToStandardOutput) {
  before = testing::snapshot(scratch.dir());
  const auto json = cli({"history", "--json", "-"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out).at("series").at(0).at("case"), "loop");
  EXPECT_THAT(json.err, HasSubstr("loop [wall_time]")) << "the text goes to standard error";
  const auto csv = cli({"history", "--csv", "-", "-q"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_THAT(csv.out, StartsWith("case,metric,unit,commit,"));
  EXPECT_EQ(csv.err, "");
  const auto markdown = cli({"history", "--markdown", "-", "-q"});
  ASSERT_EQ(markdown.exit_code, 0) << markdown.err;
  EXPECT_THAT(markdown.out, StartsWith("# Performance history"));
  EXPECT_THAT(markdown.out, Not(HasSubstr(".svg)"))) << "no chart to link on standard output";
  const auto html = cli({"history", "--html", "-", "-q"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_THAT(html.out, HasSubstr("<html"));
  expect_tree_untouched();
  expect_both_on_stdout_refused(cli({"history", "--json", "-", "--markdown", "-"}));
  expect_both_on_stdout_refused(cli({"history", "--csv", "-", "--html", "-"}));
}

TEST_F(CliOutputs, RegressionsWriteEachOutputToStandardOutput) {
  const auto id = record("ci");
  before = testing::snapshot(scratch.dir());
  for (const auto& action : std::vector<std::vector<std::string>>{{"list"}, {"show", id}}) {
    auto args = std::vector<std::string>{"regressions"};
    args.insert(args.end(), action.begin(), action.end());
    auto markdown = args;
    markdown.insert(markdown.end(), {"--markdown", "-"});
    const auto shown = cli(markdown);
    ASSERT_EQ(shown.exit_code, 0) << action[0] << ": " << shown.err;
    EXPECT_THAT(shown.out, StartsWith("### " + id)) << action[0] << ": Markdown alone";
    auto json = args;
    json.insert(json.end(), {"--json", "-"});
    const auto listed = cli(json);
    ASSERT_EQ(listed.exit_code, 0) << action[0] << ": " << listed.err;
    EXPECT_EQ(nlohmann::json::parse(listed.out).at("regressions").at(0).at("id"), id);
    auto both = args;
    both.insert(both.end(), {"--json", "-", "--markdown", "-"});
    expect_both_on_stdout_refused(cli(both));
  }
  expect_tree_untouched();
}

TEST_F(CliOutputs, ReportAndEnvWriteToStandardOutput) {
  auto evidence = testing::bisect_sample();
  evidence.repo_path = (temp / "nowhere").string();
  const auto file = temp / "bisect.json";
  ASSERT_TRUE(save_evidence(evidence, file));
  before = testing::snapshot(scratch.dir());
  const auto markdown = cli({"report", file.string(), "--markdown", "-"});
  ASSERT_EQ(markdown.exit_code, 0) << markdown.err;
  EXPECT_THAT(markdown.out, StartsWith("### culprit bisect: "));
  const auto output = cli({"report", file.string(), "--format", "junit", "-o", "-"});
  ASSERT_EQ(output.exit_code, 0) << output.err;
  EXPECT_THAT(output.out, StartsWith("<?xml"));
  expect_both_on_stdout_refused(cli({"report", file.string(), "-o", "-", "--json", "-"}));
  const auto env = cli({"env", "--json", "-"});
  ASSERT_EQ(env.exit_code, 0) << env.err;
  EXPECT_TRUE(nlohmann::json::parse(env.out).contains("hostname")) << env.out;
  expect_tree_untouched();
}

TEST_F(CliOutputs, RegressionsRefuseWhatTheActionWouldIgnore) {
  const auto id = record("ci");
  const std::vector<std::vector<std::string>> refused = {
      {"regressions", "list", id},
      {"regressions", "list", "--note", "why"},
      {"regressions", "--who", "ada"},
      {"regressions", "show", id, "--note", "why"},
      {"regressions", "show", id, "--who", "ada"},
      {"regressions", "show", id, "--state", "all"},
      {"regressions", "ack", id, "--owner", "@perf"},
      {"regressions", "show", id, "extra"},
      {"regressions", "ack", id, "extra", "--note", "why"},
  };
  for (const auto& args : refused) {
    const auto out = cli(args);
    EXPECT_EQ(out.exit_code, 2) << ::testing::PrintToString(args) << ": " << out.out;
    EXPECT_EQ(std::ranges::count(out.err, '\n'), 1) << out.err;
  }
  const auto listed = cli({"regressions", "list", "--state", "all"});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr(id + " confirmed"));
  const auto still = cli({"regressions", "show", id, "--json", "-"});
  ASSERT_EQ(still.exit_code, 0) << still.err;
  EXPECT_EQ(nlohmann::json::parse(still.out).at("regressions").at(0).at("events").size(), 1U)
      << "nothing was moved";
}

TEST_F(CliOutputs, RegressionsListNamesTheHostOfEach) {
  const auto here = record("0123456789abcdef0123");
  const auto there = record("ci-gpu-node-17.example.com");
  const auto listed = cli({"regressions"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out,
              ::testing::ContainsRegex(here + " +confirmed +0123456789ab +not bisected"));
  EXPECT_THAT(listed.out,
              ::testing::ContainsRegex(there + " +confirmed +ci-gpu-node- +not bisected"));
  const auto shown = cli({"regressions", "show", there});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_THAT(shown.out, HasSubstr("host ci-gpu-node-"));
}

TEST_F(CliOutputs, HistoryOfCountedRunsShowsTheInstrumentsCount) {
  const auto plain = cli({"history"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_THAT(plain.out, HasSubstr("loop [wall_time]"));
  const auto counted = cli({"history", "--instrument", "valgrind"});
  ASSERT_EQ(counted.exit_code, 0) << counted.err;
  EXPECT_THAT(counted.out, HasSubstr("loop [instructions]"));
  const auto timed = cli({"history", "--instrument", "valgrind", "--metric", "wall_time"});
  ASSERT_EQ(timed.exit_code, 0) << timed.err;
  EXPECT_THAT(timed.out, HasSubstr("loop [wall_time]"));
  // The recipe's instrument, as compare reads it.
  scratch.write("culprit.toml", "[build]\ncommand = \"true\"\n[run]\ncommand = \"true\"\n"
                                "instrument = \"valgrind\"\n");
  const auto recipe = cli({"history"});
  ASSERT_EQ(recipe.exit_code, 0) << recipe.err;
  EXPECT_THAT(recipe.out, HasSubstr("loop [instructions]"));
  const auto overridden = cli({"history", "--instrument", "time"});
  ASSERT_EQ(overridden.exit_code, 0) << overridden.err;
  EXPECT_THAT(overridden.out, HasSubstr("loop [wall_time]"));
  const auto unknown = cli({"history", "--instrument", "stopwatch"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(std::ranges::count(unknown.err, '\n'), 1) << unknown.err;
}

} // namespace
} // namespace culprit
