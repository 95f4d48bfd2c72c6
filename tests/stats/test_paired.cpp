#include "stats/paired.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "stats/rng.hpp"
#include "stats/run_statistic.hpp"
#include "tests/stats/simulate.hpp"

namespace culprit::stats {
namespace {

using testing::SharedMachine;
using testing::simulate_shared_run;

// n blocks of one base and one head run on the shared machine, each block also sharing a slow
// drift of the whole machine; the run statistic of each.
struct PairedBlocks {
  std::vector<double> base;
  std::vector<double> head;
};

PairedBlocks shared_blocks(std::size_t n, double ratio, Rng& rng, RunStatistic statistic,
                           double drift_per_block = 0.0) {
  PairedBlocks blocks;
  const SharedMachine machine;
  for (std::size_t i = 0; i < n; ++i) {
    const double machine_level = std::exp(drift_per_block * static_cast<double>(i));
    blocks.base.push_back(
        evaluate(statistic, simulate_shared_run(machine, 10, machine_level, rng)));
    blocks.head.push_back(
        evaluate(statistic, simulate_shared_run(machine, 10, machine_level * ratio, rng)));
  }
  return blocks;
}

TEST(ComparePaired, ASlowdownOfTenPercentIsSlowerWithAnIntervalAroundIt) {
  Rng rng(1, 0);
  const auto blocks = shared_blocks(20, 1.10, rng, RunStatistic::minimum());
  const auto comparison = compare_paired(blocks.base, blocks.head);
  ASSERT_TRUE(comparison) << comparison.error().message;
  EXPECT_EQ(comparison->verdict, Verdict::slower);
  EXPECT_EQ(comparison->method, ComparisonMethod::paired_signed_rank);
  EXPECT_LT(comparison->ratio.lower, 1.10);
  EXPECT_GT(comparison->ratio.upper, 1.10);
  EXPECT_GT(comparison->ratio.lower, 1.05);
  EXPECT_GE(comparison->interval_confidence, 0.95);
  EXPECT_LT(comparison->p_value, 0.001);
}

TEST(ComparePaired, ThroughputsCountTheOtherWayRound) {
  const std::vector<double> base = {100, 101, 99, 100, 102, 100, 98, 101, 100, 99};
  std::vector<double> head;
  for (const double value : base)
    head.push_back(value * 0.8);
  PairedOptions options;
  options.rule.direction = Direction::higher_is_better;
  const auto comparison = compare_paired(base, head, options);
  ASSERT_TRUE(comparison);
  EXPECT_EQ(comparison->verdict, Verdict::slower);
  EXPECT_NEAR(comparison->ratio.estimate, 0.8, 1e-12);
}

TEST(ComparePaired, TooFewBlocksForTheLevelNeverGiveAVerdict) {
  // Five identical pairs: the interval is [1, 1] but five blocks reach 93.75% at most.
  const std::vector<double> same = {1.0, 1.0, 1.0, 1.0, 1.0};
  const std::vector<double> close = {1.001, 1.0005, 1.0002, 1.0008, 1.0003};
  const auto comparison = compare_paired(same, close);
  ASSERT_TRUE(comparison);
  EXPECT_EQ(comparison->verdict, Verdict::inconclusive);
  EXPECT_LT(comparison->interval_confidence, 0.95);
}

TEST(ComparePaired, IdenticalHalvesOfEveryBlockAreSame) {
  std::vector<double> values;
  for (int i = 0; i < 12; ++i)
    values.push_back(1.0 + (0.01 * i));
  const auto comparison = compare_paired(values, values);
  ASSERT_TRUE(comparison);
  EXPECT_EQ(comparison->verdict, Verdict::same);
  EXPECT_DOUBLE_EQ(comparison->ratio.estimate, 1.0);
}

TEST(ComparePaired, RefusesUnequalSidesAndNonPositiveValues) {
  const std::vector<double> three = {1, 2, 3};
  const std::vector<double> two = {1, 2};
  const std::vector<double> zero = {1, 0, 3};
  EXPECT_FALSE(compare_paired(three, two));
  EXPECT_FALSE(compare_paired(three, zero));
}

TEST(ComparePaired, DriftThatOutlastsABlockCancels) {
  // The machine slows by 1% a block: unpaired groups blur, blocks do not.
  Rng rng(3, 0);
  const auto blocks = shared_blocks(30, 1.05, rng, RunStatistic::minimum(), 0.01);
  const auto comparison = compare_paired(blocks.base, blocks.head);
  ASSERT_TRUE(comparison);
  EXPECT_EQ(comparison->verdict, Verdict::slower);
  EXPECT_LT(comparison->ratio.upper - comparison->ratio.lower, 0.02);
}

// Calibration on the shared machine: 95% intervals of the ratio of per-run minima cover the true
// ratio 93-97% of the time, and under A/A (threshold 0, the hardest case) a slower or faster call
// is made at most 5% of the time.
TEST(ComparePaired, CoverageAndFalseCallsOnTheSharedMachine) {
  Rng rng(2026, 0);
  constexpr int k_trials = 1000;
  int covered = 0;
  int false_calls = 0;
  PairedOptions a_a;
  a_a.rule.threshold = 0.0;
  for (int trial = 0; trial < k_trials; ++trial) {
    const auto blocks = shared_blocks(15, 1.07, rng, RunStatistic::minimum());
    const auto comparison = compare_paired(blocks.base, blocks.head);
    ASSERT_TRUE(comparison);
    covered += comparison->ratio.lower <= 1.07 && 1.07 <= comparison->ratio.upper ? 1 : 0;
    const auto null_blocks = shared_blocks(15, 1.0, rng, RunStatistic::minimum());
    const auto null = compare_paired(null_blocks.base, null_blocks.head, a_a);
    ASSERT_TRUE(null);
    false_calls += null->verdict == Verdict::slower || null->verdict == Verdict::faster ? 1 : 0;
  }
  EXPECT_GE(covered, 930);
  EXPECT_LE(covered, 970);
  EXPECT_LE(false_calls, 50);
}

TEST(PairedStepPosition, PlacesProbesAtTheirLevels) {
  Rng rng(5, 0);
  const SharedMachine machine;
  const auto blocks = [&](double probe_level) {
    std::vector<double> good;
    std::vector<double> bad;
    std::vector<double> probe;
    for (int i = 0; i < 15; ++i) {
      good.push_back(evaluate(RunStatistic::minimum(), simulate_shared_run(machine, 10, 1.0, rng)));
      bad.push_back(evaluate(RunStatistic::minimum(), simulate_shared_run(machine, 10, 1.1, rng)));
      probe.push_back(
          evaluate(RunStatistic::minimum(), simulate_shared_run(machine, 10, probe_level, rng)));
    }
    StepOptions options;
    options.bootstrap.confidence = 0.99;
    options.bootstrap.resamples = 2000;
    return paired_step_position(good, bad, probe, options);
  };
  const auto at_good = blocks(1.0);
  ASSERT_TRUE(at_good) << at_good.error().message;
  EXPECT_EQ(at_good->classification, StepClass::good_like);
  EXPECT_NEAR(at_good->step.estimate, std::log(1.1), 0.01);
  const auto at_bad = blocks(1.1);
  ASSERT_TRUE(at_bad);
  EXPECT_EQ(at_bad->classification, StepClass::bad_like);
  const auto between = blocks(1.05);
  ASSERT_TRUE(between);
  EXPECT_EQ(between->classification, StepClass::intermediate);
  EXPECT_NEAR(between->position.estimate, std::log(1.05) / std::log(1.1), 0.1);
}

TEST(PairedStepPosition, NoStepIsAnError) {
  const std::vector<double> level = {1.0, 1.0, 1.0, 1.0};
  const auto position = paired_step_position(level, level, level);
  ASSERT_FALSE(position);
  EXPECT_EQ(position.error().kind, ErrorKind::degenerate);
}

} // namespace
} // namespace culprit::stats
