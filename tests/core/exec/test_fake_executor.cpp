#include "tests/support/fake_executor.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <stdexcept>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/parsers/culprit_jsonl.hpp"
#include "core/util/interrupt.hpp"
#include "tests/core/exec/exec_test_support.hpp"

namespace culprit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

exec::ExecRequest request_for(const std::string& commit) {
  auto request = testing::argv_request({"{build}/bench"});
  request.env["CULPRIT_COMMIT"] = commit;
  return request;
}

FakeCommit model(double median, double sigma = 0.02) {
  FakeCommit commit;
  commit.cases = {FakeCase{.name = "sgemm/N=512", .median = median, .sigma = sigma}};
  commit.samples_per_run = 5;
  return commit;
}

std::string run_out(FakeExecutor& executor, const std::string& commit) {
  const auto result = executor.run(request_for(commit));
  EXPECT_TRUE(result) << (result ? "" : result.error().message);
  return result ? result->out : "";
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

TEST(FakeExecutor, WritesCulpritJsonLinesThatParse) {
  FakeExecutor executor(7);
  FakeCommit commit = model(2e-3);
  commit.cases.push_back(FakeCase{.name = "bw",
                                  .metric = "bytes_per_second",
                                  .unit = "B/s",
                                  .direction = parsers::Direction::higher_is_better,
                                  .median = 5e11});
  executor.set_commit("aaaa", commit);
  const auto parsed = parsers::parse_culprit_jsonl(run_out(executor, "aaaa1111"));
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->samples.size(), 2U);
  EXPECT_EQ(parsed->samples[0].case_name, "sgemm/N=512");
  EXPECT_EQ(parsed->samples[0].values.size(), 5U);
  EXPECT_EQ(parsed->samples[1].direction, parsers::Direction::higher_is_better);
  EXPECT_EQ(parsed->samples[1].unit, "B/s");
}

TEST(FakeExecutor, IsDeterministicForASeedAndIndependentOfInterleaving) {
  FakeExecutor first(11);
  FakeExecutor second(11);
  FakeExecutor other_seed(12);
  for (auto* executor : {&first, &second, &other_seed}) {
    executor->set_commit("good", model(1e-3));
    executor->set_commit("bad", model(1.1e-3));
  }
  const auto a1 = run_out(first, "good");
  const auto b1 = run_out(first, "bad");
  const auto a2 = run_out(first, "good");
  // Same seed, another order: the k-th run of each commit is the same.
  EXPECT_EQ(run_out(second, "good"), a1);
  EXPECT_EQ(run_out(second, "good"), a2);
  EXPECT_EQ(run_out(second, "bad"), b1);
  EXPECT_NE(a1, a2);
  EXPECT_NE(run_out(other_seed, "good"), a1);
}

TEST(FakeExecutor, SamplesFollowTheModel) {
  FakeExecutor executor(3);
  executor.set_commit("good", model(1e-3));
  executor.set_commit("bad", model(1.2e-3));
  std::vector<double> good;
  std::vector<double> bad;
  for (int run = 0; run < 40; ++run) {
    for (const auto& [commit, values] : {std::pair{"good", &good}, std::pair{"bad", &bad}}) {
      const auto parsed = parsers::parse_culprit_jsonl(run_out(executor, commit));
      ASSERT_TRUE(parsed);
      const auto& samples = parsed->samples.at(0).values;
      values->insert(values->end(), samples.begin(), samples.end());
    }
  }
  EXPECT_NEAR(median_of(good), 1e-3, 0.01e-3);
  EXPECT_NEAR(median_of(bad) / median_of(good), 1.2, 0.02);
}

TEST(FakeExecutor, RunLevelNoiseAndOutliers) {
  FakeExecutor executor(5);
  FakeCommit commit = model(1.0, 0.0);
  commit.cases[0].run_sigma = 0.1;
  commit.cases[0].outlier_rate = 1.0;
  commit.cases[0].outlier_factor = 2.0;
  executor.set_commit("c", commit);
  const auto first = parsers::parse_culprit_jsonl(run_out(executor, "c"));
  const auto second = parsers::parse_culprit_jsonl(run_out(executor, "c"));
  ASSERT_TRUE(first && second);
  const auto& values = first->samples[0].values;
  // Without within-run spread, every sample of a run is the run's level (times the outlier factor).
  EXPECT_TRUE(std::all_of(values.begin(), values.end(), [&](double v) { return v == values[0]; }));
  EXPECT_NE(values[0], second->samples[0].values[0]);
  EXPECT_GT(values[0], 1.0); // doubled by the outlier factor: exp(0.1 z) alone stays near 1
}

TEST(FakeExecutor, CountsRunsPerCommit) {
  FakeExecutor executor;
  executor.set_commit("abc", model(1e-3));
  executor.set_default(model(2e-3));
  run_out(executor, "abc123");
  run_out(executor, "def456");
  run_out(executor, "abc123");
  EXPECT_EQ(executor.run_count("abc123"), 2);
  EXPECT_EQ(executor.run_count("abc"), 2);
  EXPECT_EQ(executor.run_count("def456"), 1);
  EXPECT_EQ(executor.run_count("ffff"), 0);
  EXPECT_EQ(executor.total_runs(), 3);
  EXPECT_THAT(executor.run_order(), ElementsAre("abc123", "def456", "abc123"));
}

TEST(FakeExecutor, TheLongestPrefixWins) {
  FakeExecutor executor;
  executor.set_commit("ab", model(1.0, 0.0));
  executor.set_commit("abcd", model(5.0, 0.0));
  const auto parsed = parsers::parse_culprit_jsonl(run_out(executor, "abcdef"));
  ASSERT_TRUE(parsed);
  EXPECT_DOUBLE_EQ(parsed->samples[0].values[0], 5.0);
}

TEST(FakeExecutor, FailsCrashesAndTimesOutWhenTold) {
  FakeExecutor executor;
  FakeCommit failing = model(1e-3);
  failing.behaviour = FakeBehaviour::fail;
  FakeCommit crashing = model(1e-3);
  crashing.behaviour = FakeBehaviour::crash;
  FakeCommit hanging = model(1e-3);
  hanging.behaviour = FakeBehaviour::time_out;
  executor.set_commit("fail", failing);
  executor.set_commit("crash", crashing);
  executor.set_commit("hang", hanging);

  const auto failed = executor.run(request_for("fail"));
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->exit_code, 1);
  EXPECT_THAT(failed->err, HasSubstr("failing as told"));
  const auto crashed = executor.run(request_for("crash"));
  ASSERT_TRUE(crashed);
  EXPECT_EQ(crashed->signal, SIGSEGV);
  auto request = request_for("hang");
  request.timeout = exec::Seconds(30);
  const auto timed_out = executor.run(request);
  ASSERT_TRUE(timed_out);
  EXPECT_TRUE(timed_out->timed_out);
  EXPECT_EQ(timed_out->wall, exec::Seconds(30));
  EXPECT_FALSE(timed_out->succeeded());
  EXPECT_EQ(executor.total_runs(), 3);
}

TEST(FakeExecutor, ErrorsForRequestsItCannotAnswer) {
  FakeExecutor executor;
  executor.set_commit("abc", model(1e-3));
  const auto unknown = executor.run(request_for("fff"));
  ASSERT_FALSE(unknown);
  EXPECT_THAT(unknown.error().message, HasSubstr("no distribution for commit fff"));
  const auto no_commit = executor.run(testing::argv_request({"bench"}));
  ASSERT_FALSE(no_commit);
  EXPECT_THAT(no_commit.error().message, HasSubstr("has no CULPRIT_COMMIT"));
  EXPECT_THROW(executor.set_commit("x", model(-1.0)), std::invalid_argument);
  FakeCommit no_samples = model(1e-3);
  no_samples.samples_per_run = 0;
  EXPECT_THROW(executor.set_commit("x", no_samples), std::invalid_argument);
}

TEST(FakeExecutor, AnInterruptStopsTheBatch) {
  FakeExecutor executor;
  executor.set_default(model(1e-3));
  const std::vector<exec::ExecRequest> batch = {request_for("a"), request_for("b")};
  request_interrupt(SIGINT);
  const auto outcomes = executor.run_batch(batch);
  clear_interrupt();
  ASSERT_EQ(outcomes.size(), 2U);
  for (const auto& outcome : outcomes) {
    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().code, ExitCode::interrupted);
  }
  EXPECT_EQ(executor.total_runs(), 0);
  const auto after = executor.run_batch(batch);
  EXPECT_TRUE(after[0] && after[1]);
  EXPECT_EQ(executor.total_runs(), 2);
}

} // namespace
} // namespace culprit
