// Blocks of interleaved runs: what the sampler makes and stores, what it pairs, and duets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/measure/compare.hpp"
#include "stats/run_statistic.hpp"
#include "tests/support/fake_measure.hpp"

namespace culprit {
namespace {

using testing::fake_case;
using testing::FakeRig;

FakeCommit model(double median, int samples = 5) {
  FakeCommit commit;
  commit.cases = {fake_case("k", median, 0.01)};
  commit.samples_per_run = samples;
  return commit;
}

const measure::CaseKey k_key{"k", "time"};

TEST(Blocks, EachBlockHoldsOneRunOfEverySubjectAndTheyAreAligned) {
  FakeRig rig;
  rig.executor().set_commit("a", model(1e-3));
  rig.executor().set_commit("b", model(2e-3));
  const auto a = FakeRig::subject("a");
  const auto b = FakeRig::subject("b");
  ASSERT_TRUE(rig.sampler().ensure_blocks({{&a, &b}, 6}));
  EXPECT_EQ(rig.executor().total_runs(), 12);
  const std::array<const measure::Subject*, 2> group = {&a, &b};
  const auto blocks = rig.sampler().block_runs(group, k_key);
  ASSERT_TRUE(blocks) << blocks.error().message;
  ASSERT_EQ(blocks->blocks.size(), 6U);
  EXPECT_EQ(std::set<std::string>(blocks->blocks.begin(), blocks->blocks.end()).size(), 6U);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_NEAR(stats::evaluate(stats::RunStatistic::median(), blocks->runs[0][i]), 1e-3, 1e-4);
    EXPECT_NEAR(stats::evaluate(stats::RunStatistic::median(), blocks->runs[1][i]), 2e-3, 2e-4);
  }
  // The two runs of each block came one after the other: the order of the runs alternates
  // between blocks at random, and every block is a pair of neighbours.
  const auto order = rig.executor().run_order();
  for (std::size_t i = 0; i < order.size(); i += 2)
    EXPECT_NE(order[i], order[i + 1]);
}

TEST(Blocks, StoredRunsCountOnlyInBlocksThatHoldTheWholeGroup) {
  FakeRig rig;
  rig.executor().set_commit("a", model(1e-3));
  rig.executor().set_commit("b", model(1e-3));
  const auto a = FakeRig::subject("a");
  const auto b = FakeRig::subject("b");
  // Ten runs of a alone (a `run` made before), then a comparison of a and b: a's runs are not
  // paired with b's, so both sides are measured afresh, interleaved.
  const std::vector<measure::RunsWanted> alone = {{&a, 10}};
  ASSERT_TRUE(rig.sampler().ensure(alone));
  const std::array<const measure::Subject*, 2> group = {&a, &b};
  EXPECT_EQ(rig.sampler().complete_blocks(group).value(), 0U);
  ASSERT_TRUE(rig.sampler().ensure_blocks({{&a, &b}, 5}));
  EXPECT_EQ(rig.executor().run_count("a"), 15);
  EXPECT_EQ(rig.executor().run_count("b"), 5);
  // Asked again, by a new process: nothing more runs.
  rig.new_sampler();
  ASSERT_TRUE(rig.sampler().ensure_blocks({{&a, &b}, 5}));
  EXPECT_EQ(rig.executor().total_runs(), 20);
  // Blocks of three count for a group of two.
  const auto c = FakeRig::subject("c");
  rig.executor().set_commit("c", model(1e-3));
  ASSERT_TRUE(rig.sampler().ensure_blocks({{&a, &b, &c}, 3}));
  EXPECT_EQ(rig.sampler().complete_blocks(group).value(), 8U);
}

TEST(Blocks, AFailedRunLeavesItsBlockIncompleteAndAnotherIsMade) {
  FakeRig rig;
  rig.executor().set_commit("a", model(1e-3));
  FakeCommit failing = model(1e-3);
  failing.behaviour = FakeBehaviour::fail;
  rig.executor().set_commit("b", failing);
  const auto a = FakeRig::subject("a");
  const auto b = FakeRig::subject("b");
  const auto result = rig.sampler().ensure_blocks({{&a, &b}, 3});
  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message, ::testing::HasSubstr("in a row failed"));
  const std::array<const measure::Subject*, 2> group = {&a, &b};
  EXPECT_EQ(rig.sampler().complete_blocks(group).value(), 0U);
}

TEST(Blocks, SubjectsThatShareArtifactsCannotFormABlock) {
  FakeRig rig;
  const auto a = FakeRig::subject("a", "same");
  const auto b = FakeRig::subject("b", "same");
  const auto result = rig.sampler().ensure_blocks({{&a, &b}, 1});
  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message, ::testing::HasSubstr("share artifacts"));
}

TEST(Duets, BothRunsOfABlockStartTogetherOnCpusThatChangeSides) {
  FakeRig rig;
  rig.executor().set_commit("a", model(1e-3));
  rig.executor().set_commit("b", model(1e-3));
  auto& sampler = rig.new_duet_sampler();
  ASSERT_TRUE(sampler.can_duet());
  const auto a = FakeRig::subject("a");
  const auto b = FakeRig::subject("b");
  ASSERT_TRUE(sampler.ensure_blocks({{&a, &b}, 4, true}));
  EXPECT_EQ(rig.executor().duets(), 4);
  const std::array<const measure::Subject*, 2> group = {&a, &b};
  const auto blocks = sampler.block_runs(group, k_key);
  ASSERT_TRUE(blocks);
  ASSERT_EQ(blocks->duets.size(), 4U);
  EXPECT_TRUE(std::ranges::all_of(blocks->duets, [](bool duet) { return duet; }));
}

TEST(Duets, ADuetSeesTheSameMachineStateOnBothSidesAndCancelsIt) {
  // On a shared machine, the ratio of a duet's runs is steadier than that of two runs one after
  // the other: both sides of a duet are slowed alike.
  FakeMachine machine;
  machine.slow_share = 0.5;
  // Stretches longer than a run (3 ms) and about as long as the time between two runs (5 ms):
  // runs are mostly wholly fast or slow, and a run and the next often differ.
  machine.mean_slow_seconds = 0.006;
  const auto spread_of_ratios = [&](bool duet) {
    FakeRig rig(7);
    rig.executor().set_machine(machine);
    rig.executor().set_commit("a", model(1e-3, 3));
    rig.executor().set_commit("b", model(1e-3, 3));
    auto& sampler = rig.new_duet_sampler();
    const auto a = FakeRig::subject("a");
    const auto b = FakeRig::subject("b");
    EXPECT_TRUE(sampler.ensure_blocks({{&a, &b}, 30, duet}));
    const std::array<const measure::Subject*, 2> group = {&a, &b};
    const auto blocks = sampler.block_runs(group, k_key).value();
    std::vector<double> ratios;
    for (std::size_t i = 0; i < blocks.blocks.size(); ++i)
      ratios.push_back(
          std::abs(std::log(stats::evaluate(stats::RunStatistic::median(), blocks.runs[1][i]) /
                            stats::evaluate(stats::RunStatistic::median(), blocks.runs[0][i]))));
    return stats::evaluate(stats::RunStatistic::median(), ratios);
  };
  const double apart = spread_of_ratios(false);
  const double together = spread_of_ratios(true);
  EXPECT_LT(together, 0.02);
  EXPECT_GT(apart, 5 * together);
}

TEST(Compare, AutoDuetsStartAfterTheFirstLookWhenInterferenceShows) {
  FakeMachine machine;
  machine.slow_share = 0.4;
  FakeRig rig(3);
  rig.executor().set_machine(machine);
  rig.executor().set_commit("base", model(1e-3, 10));
  rig.executor().set_commit("head", model(1.05e-3, 10));
  auto& sampler = rig.new_duet_sampler();
  measure::CompareSettings settings;
  settings.duet = recipe::DuetMode::automatic;
  auto outcome = measure::compare_subjects(sampler, FakeRig::subject("base"),
                                           FakeRig::subject("head"), settings);
  ASSERT_TRUE(outcome) << outcome.error().message;
  const auto& k = outcome->cases.at(0);
  EXPECT_EQ(k.verdict, stats::Verdict::slower);
  ASSERT_TRUE(k.estimator);
  EXPECT_EQ(k.estimator->statistic, stats::RunStatistic::minimum());
  EXPECT_TRUE(outcome->duet);
  EXPECT_EQ(k.duets, k.blocks - settings.min_runs());
  EXPECT_THAT(outcome->duet_reason, ::testing::HasSubstr("one-sided interference"));
}

TEST(Compare, IdenticalArtifactsAreSameWithoutARun) {
  FakeRig rig;
  rig.executor().set_commit("a", model(1e-3));
  const auto a = FakeRig::subject("a", "shared-artifact");
  const auto b = FakeRig::subject("b", "shared-artifact");
  auto outcome = measure::compare_subjects(rig.sampler(), a, b, measure::CompareSettings{});
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_TRUE(outcome->identical);
  EXPECT_EQ(rig.executor().total_runs(), 0);
  ASSERT_EQ(outcome->cases.size(), 1U);
  EXPECT_EQ(outcome->cases[0].verdict, stats::Verdict::same);
  EXPECT_EQ(outcome->cases[0].selected.key.case_name, measure::k_every_case);
  EXPECT_THAT(outcome->cases[0].note, ::testing::HasSubstr("identical binaries"));
  // With cases stored for the artifact, each of them is named.
  const std::vector<measure::RunsWanted> some = {{&a, 2}};
  ASSERT_TRUE(rig.sampler().ensure(some));
  outcome = compare_subjects(rig.sampler(), a, b, measure::CompareSettings{});
  ASSERT_TRUE(outcome);
  ASSERT_EQ(outcome->cases.size(), 1U);
  EXPECT_EQ(outcome->cases[0].selected.key.case_name, "k");
}

TEST(Compare, OneSidedInterferenceIsJudgedByTheFastSideAndAQuietCaseByTheMedian) {
  FakeMachine machine;
  machine.slow_share = 0.5;
  FakeRig rig(5);
  rig.executor().set_machine(machine);
  FakeCommit base = model(1e-3, 10);
  FakeCommit head = model(1.05e-3, 10);
  rig.executor().set_commit("base", base);
  rig.executor().set_commit("head", head);
  auto outcome = measure::compare_subjects(rig.sampler(), FakeRig::subject("base"),
                                           FakeRig::subject("head"), measure::CompareSettings{});
  ASSERT_TRUE(outcome) << outcome.error().message;
  const auto& k = outcome->cases.at(0);
  EXPECT_EQ(k.verdict, stats::Verdict::slower);
  ASSERT_TRUE(k.estimator);
  EXPECT_TRUE(k.estimator->fast_side());
  EXPECT_THAT(k.estimator->reason, ::testing::HasSubstr("two speed states"));
  ASSERT_TRUE(k.interference[0]);
  EXPECT_TRUE(k.interference[0]->states);
  EXPECT_NEAR(k.comparison->ratio.estimate, 1.05, 0.01);

  FakeRig quiet(5);
  quiet.executor().set_commit("base", base);
  quiet.executor().set_commit("head", head);
  outcome = compare_subjects(quiet.sampler(), FakeRig::subject("base"), FakeRig::subject("head"),
                             measure::CompareSettings{});
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->cases.at(0).estimator->statistic, stats::RunStatistic::median());
}

TEST(Compare, ATailThatSlowsWithoutTheFastStateIsReportedBesideTheVerdict) {
  // Head is sometimes twice as slow (30% of its samples); its fast state is base's.
  FakeMachine machine;
  machine.slow_share = 0.3;
  FakeRig rig(11);
  rig.executor().set_machine(machine);
  rig.executor().set_commit("base", model(1e-3, 10));
  FakeCommit head = model(1e-3, 10);
  head.cases[0].outlier_rate = 0.3;
  head.cases[0].outlier_factor = 2.0;
  rig.executor().set_commit("head", head);
  auto outcome = measure::compare_subjects(rig.sampler(), FakeRig::subject("base"),
                                           FakeRig::subject("head"), measure::CompareSettings{});
  ASSERT_TRUE(outcome) << outcome.error().message;
  const auto& k = outcome->cases.at(0);
  EXPECT_EQ(k.verdict, stats::Verdict::same);
  ASSERT_TRUE(k.tail);
  EXPECT_EQ(k.tail->comparison.verdict, stats::Verdict::slower);
  EXPECT_EQ(stats::to_string(k.tail->statistic), "p90");
}

} // namespace
} // namespace culprit
