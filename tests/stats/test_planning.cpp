#include "stats/planning.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "stats/decision.hpp"
#include "stats/error.hpp"
#include "stats/rng.hpp"
#include "tests/stats/simulate.hpp"

namespace culprit::stats {
namespace {

using testing::RunShape;
using testing::simulate_runs;

Comparison comparison_with(double log_standard_error, std::size_t runs) {
  Comparison comparison;
  comparison.log_standard_error = log_standard_error;
  comparison.base_runs = runs;
  comparison.head_runs = runs;
  return comparison;
}

TEST(Planning, MinimumDetectableEffectFollowsTheFormula) {
  // (1.959964 + 0.841621) * 0.01 = 0.0280159 on the log scale.
  const auto budget = plan_runs(comparison_with(0.01, 10));
  ASSERT_TRUE(budget) << budget.error().message;
  EXPECT_NEAR(budget->minimum_detectable_effect, std::expm1(0.0280159), 1e-6);
  // To resolve 2%: 10 * (0.0280159 / log(1.02))^2 = 20.016 -> 21 runs per side.
  EXPECT_EQ(budget->runs_needed, 21U);
  EXPECT_DOUBLE_EQ(budget->runs_now, 10.0);
}

TEST(Planning, QuarterTheNoiseNeedsASixteenthOfTheRuns) {
  const auto noisy = plan_runs(comparison_with(0.04, 10));
  const auto quiet = plan_runs(comparison_with(0.01, 10));
  ASSERT_TRUE(noisy && quiet);
  // 320.25 -> 321 against 20.016 -> 21: the ratio of the unrounded counts is 16.
  EXPECT_EQ(noisy->runs_needed, 321U);
  EXPECT_EQ(quiet->runs_needed, 21U);
}

TEST(Planning, UnequalRunsUseTheHarmonicMean) {
  Comparison comparison = comparison_with(0.01, 10);
  comparison.head_runs = 30;
  const auto budget = plan_runs(comparison);
  ASSERT_TRUE(budget);
  EXPECT_DOUBLE_EQ(budget->runs_now, 15.0);
}

// The one-call form on real data: the MDE it promises is what the data deliver, i.e. more runs
// bring the measured standard error down as 1 / sqrt(runs).
TEST(Planning, PredictionFromFewRunsHoldsWithMore) {
  Rng rng(4, 0);
  const RunShape few{.runs = 10, .samples = 3, .between = 0.02, .within = 0.005};
  RunShape many = few;
  many.runs = 40;
  const auto from_few = plan_runs(simulate_runs(few, 1.0, rng), simulate_runs(few, 1.0, rng));
  const auto from_many = plan_runs(simulate_runs(many, 1.0, rng), simulate_runs(many, 1.0, rng));
  ASSERT_TRUE(from_few && from_many) << from_few.error().message;
  const double predicted = from_few->log_standard_error / 2.0;
  EXPECT_NEAR(from_many->log_standard_error / predicted, 1.0, 0.35);
  EXPECT_LT(from_many->minimum_detectable_effect, from_few->minimum_detectable_effect);
}

TEST(Planning, ZeroNoiseNeedsNoMoreRuns) {
  const auto budget = plan_runs(comparison_with(0.0, 5));
  ASSERT_TRUE(budget);
  EXPECT_EQ(budget->minimum_detectable_effect, 0.0);
  EXPECT_EQ(budget->runs_needed, 2U);
}

TEST(Planning, BadOptionsAreAnError) {
  PlanningOptions options;
  options.threshold = 0.0;
  EXPECT_EQ(plan_runs(comparison_with(0.01, 10), options).error().kind,
            ErrorKind::invalid_argument);
  options = {};
  options.power = 1.0;
  EXPECT_EQ(plan_runs(comparison_with(0.01, 10), options).error().kind,
            ErrorKind::invalid_argument);
  EXPECT_EQ(plan_runs(comparison_with(0.01, 1)).error().kind, ErrorKind::too_few);
  EXPECT_EQ(plan_runs(Runs{{1.0}}, Runs{{1.0}, {2.0}}).error().kind, ErrorKind::too_few);
}

TEST(Planning, HugeNoiseSaturatesInsteadOfOverflowing) {
  const auto budget = plan_runs(comparison_with(500.0, 10));
  ASSERT_TRUE(budget);
  EXPECT_EQ(budget->runs_needed, 1'000'000'000U);
  EXPECT_TRUE(std::isinf(budget->minimum_detectable_effect) ||
              budget->minimum_detectable_effect > 1e10);
}

} // namespace
} // namespace culprit::stats
