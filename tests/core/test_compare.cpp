#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/measure/compare.hpp"
#include "tests/support/fake_measure.hpp"

namespace culprit {
namespace {

using testing::fake_case;
using testing::FakeRig;
using ::testing::HasSubstr;

FakeCommit model(std::vector<FakeCase> cases, int samples = 5) {
  FakeCommit commit;
  commit.cases = std::move(cases);
  commit.samples_per_run = samples;
  return commit;
}

const measure::CaseVerdict& verdict_of(const measure::CompareOutcome& outcome,
                                       const std::string& name) {
  for (const auto& c : outcome.cases)
    if (c.selected.key.case_name == name)
      return c;
  throw std::runtime_error("no case " + name);
}

TEST(Compare, CallsASlowdownSlowerAndTheUnchangedCaseSame) {
  FakeRig rig;
  rig.executor().set_commit(
      "base", model({fake_case("sgemm", 1e-3, 0.01), fake_case("saxpy", 2e-4, 0.01)}));
  rig.executor().set_commit(
      "head", model({fake_case("sgemm", 1.10e-3, 0.01), fake_case("saxpy", 2e-4, 0.01)}));
  const auto base = FakeRig::subject("base");
  const auto head = FakeRig::subject("head");
  auto outcome = measure::compare_subjects(rig.sampler(), base, head, measure::CompareSettings{});
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(outcome->cases.size(), 2U);
  const auto& sgemm = verdict_of(*outcome, "sgemm");
  EXPECT_EQ(sgemm.verdict, stats::Verdict::slower);
  EXPECT_NEAR(sgemm.comparison->ratio.estimate, 1.10, 0.02);
  EXPECT_LT(sgemm.comparison->ratio.lower, 1.10);
  EXPECT_GT(sgemm.comparison->ratio.upper, 1.08);
  EXPECT_EQ(verdict_of(*outcome, "saxpy").verdict, stats::Verdict::same);
  EXPECT_TRUE(sgemm.min_detectable.has_value());
}

TEST(Compare, ThroughputsThatDropAreSlower) {
  FakeRig rig;
  rig.executor().set_commit(
      "base", model({fake_case("copy", 1e9, 0.01, parsers::Direction::higher_is_better)}));
  rig.executor().set_commit(
      "head", model({fake_case("copy", 0.9e9, 0.01, parsers::Direction::higher_is_better)}));
  auto outcome = measure::compare_subjects(rig.sampler(), FakeRig::subject("base"),
                                           FakeRig::subject("head"), measure::CompareSettings{});
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->cases.at(0).verdict, stats::Verdict::slower);
  EXPECT_EQ(outcome->cases.at(0).selected.key.metric, "bytes_per_second");
}

TEST(Compare, StoredRunsAreReusedAndAReplayIsIdentical) {
  FakeRig rig;
  rig.executor().set_commit("base", model({fake_case("k", 1e-3, 0.03)}));
  rig.executor().set_commit("head", model({fake_case("k", 1.01e-3, 0.03)}));
  const auto base = FakeRig::subject("base");
  const auto head = FakeRig::subject("head");
  auto first = measure::compare_subjects(rig.sampler(), base, head, measure::CompareSettings{});
  ASSERT_TRUE(first);
  const int runs = rig.executor().total_runs();
  EXPECT_GT(runs, 0);
  auto& again = rig.new_sampler();
  auto second = compare_subjects(again, base, head, measure::CompareSettings{});
  ASSERT_TRUE(second);
  EXPECT_EQ(rig.executor().total_runs(), runs) << "a replay must not run anything";
  EXPECT_EQ(again.runs_made(), 0);
  EXPECT_EQ(second->cases.at(0).verdict, first->cases.at(0).verdict);
  EXPECT_DOUBLE_EQ(second->cases.at(0).comparison->ratio.estimate,
                   first->cases.at(0).comparison->ratio.estimate);
}

TEST(Compare, ACaseMissingOnOneSideIsInconclusiveAndSaysWhy) {
  FakeRig rig;
  rig.executor().set_commit("base", model({fake_case("old", 1e-3), fake_case("both", 1e-3)}));
  rig.executor().set_commit("head", model({fake_case("both", 1e-3)}));
  auto outcome = measure::compare_subjects(rig.sampler(), FakeRig::subject("base"),
                                           FakeRig::subject("head"), measure::CompareSettings{});
  ASSERT_TRUE(outcome) << outcome.error().message;
  const auto& old = verdict_of(*outcome, "old");
  EXPECT_EQ(old.verdict, stats::Verdict::inconclusive);
  EXPECT_THAT(old.note, HasSubstr("head did not report this case"));
}

TEST(Compare, CaseGlobsSelectAndAGlobMatchingNothingListsTheCases) {
  FakeRig rig;
  rig.executor().set_default(model({fake_case("sgemm/M=64", 1e-3), fake_case("saxpy", 1e-3)}));
  measure::CompareSettings settings;
  settings.case_globs = {"sgemm/*"};
  auto outcome = measure::compare_subjects(rig.sampler(), FakeRig::subject("a"),
                                           FakeRig::subject("b"), settings);
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(outcome->cases.size(), 1U);
  settings.case_globs = {"nope*"};
  auto none =
      compare_subjects(rig.sampler(), FakeRig::subject("a"), FakeRig::subject("b"), settings);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ExitCode::usage);
  EXPECT_THAT(none.error().message, HasSubstr("saxpy"));
}

TEST(Compare, ABenchmarkThatAlwaysCrashesIsAnInfrastructureError) {
  FakeRig rig;
  auto crashing = model({fake_case("k", 1e-3)});
  crashing.behaviour = FakeBehaviour::crash;
  rig.executor().set_commit("base", model({fake_case("k", 1e-3)}));
  rig.executor().set_commit("head", crashing);
  auto outcome = measure::compare_subjects(rig.sampler(), FakeRig::subject("base"),
                                           FakeRig::subject("head"), measure::CompareSettings{});
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ExitCode::infrastructure);
  EXPECT_THAT(outcome.error().message, HasSubstr("signal"));
}

TEST(Compare, NoisyDataRunUntilMaxRunsAndReportWhatTheyCouldResolve) {
  // An A/A pair under 20% noise: inconclusive in 97.5% of 400 seeds (the rest are the false calls
  // the confidence level allows); seed 2 is one of the many.
  FakeRig rig(2);
  rig.executor().set_commit("base", model({fake_case("k", 1e-3, 0.2)}, 2));
  rig.executor().set_commit("head", model({fake_case("k", 1e-3, 0.2)}, 2));
  measure::CompareSettings settings;
  settings.decide.max_runs = 10;
  auto outcome = measure::compare_subjects(rig.sampler(), FakeRig::subject("base"),
                                           FakeRig::subject("head"), settings);
  ASSERT_TRUE(outcome) << outcome.error().message;
  const auto& k = outcome->cases.at(0);
  EXPECT_EQ(k.verdict, stats::Verdict::inconclusive);
  EXPECT_EQ(k.base_runs, 10U);
  EXPECT_THAT(k.note, HasSubstr("could not resolve changes under"));
}

} // namespace
} // namespace culprit
