#include "stats/decision.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "stats/error.hpp"
#include "stats/rng.hpp"
#include "stats/types.hpp"
#include "tests/stats/simulate.hpp"

namespace culprit::stats {
namespace {

using testing::RunShape;
using testing::simulate_runs;

Interval interval(double lower, double upper) {
  return Interval{(lower + upper) / 2, lower, upper, 0};
}

TEST(Decision, ThreeWayRuleForATime) {
  const DecisionRule rule{.threshold = 0.02, .direction = Direction::lower_is_better};
  EXPECT_EQ(decide(interval(1.03, 1.08), 0.001, 0.95, rule), Verdict::slower);
  EXPECT_EQ(decide(interval(0.90, 0.97), 0.001, 0.95, rule), Verdict::faster);
  EXPECT_EQ(decide(interval(0.99, 1.015), 0.4, 0.95, rule), Verdict::same);
  EXPECT_EQ(decide(interval(0.98, 1.02), 0.4, 0.95, rule), Verdict::same);
  EXPECT_EQ(decide(interval(1.01, 1.05), 0.001, 0.95, rule), Verdict::inconclusive);
  EXPECT_EQ(decide(interval(0.90, 1.10), 0.3, 0.95, rule), Verdict::inconclusive);
  // The interval alone is not enough: the rank test has to agree.
  EXPECT_EQ(decide(interval(1.03, 1.08), 0.2, 0.95, rule), Verdict::inconclusive);
  // A change inside the band is "same" even when it is significant.
  EXPECT_EQ(decide(interval(1.005, 1.015), 0.001, 0.95, rule), Verdict::same);
}

TEST(Decision, DirectionTurnsHigherIntoFaster) {
  const DecisionRule rule{.threshold = 0.02, .direction = Direction::higher_is_better};
  EXPECT_EQ(decide(interval(1.03, 1.08), 0.001, 0.95, rule), Verdict::faster);
  EXPECT_EQ(decide(interval(0.90, 0.97), 0.001, 0.95, rule), Verdict::slower);
  EXPECT_EQ(decide(interval(0.99, 1.01), 0.5, 0.95, rule), Verdict::same);
}

TEST(Decision, CompareCallsAClearSlowdown) {
  Rng rng(1, 0);
  const RunShape shape{.runs = 10, .samples = 5, .between = 0.01, .within = 0.005};
  const Runs base = simulate_runs(shape, 1.0, rng);
  const Runs head = simulate_runs(shape, 1.10, rng);
  const auto comparison = compare(base, head);
  ASSERT_TRUE(comparison) << comparison.error().message;
  EXPECT_EQ(comparison->verdict, Verdict::slower);
  EXPECT_GT(comparison->ratio.lower, 1.05);
  EXPECT_LT(comparison->ratio.upper, 1.15);
  EXPECT_LT(comparison->p_value, 0.001);
  EXPECT_GT(comparison->log_standard_error, 0.0);
  EXPECT_EQ(comparison->base_runs, 10U);

  CompareOptions throughput;
  throughput.rule.direction = Direction::higher_is_better;
  EXPECT_EQ(compare(base, head, throughput)->verdict, Verdict::faster);
  EXPECT_EQ(compare(head, base, throughput)->verdict, Verdict::slower);
}

TEST(Decision, CompareCallsSameWhenNoiseIsSmallAndThereIsNoChange) {
  Rng rng(2, 0);
  const RunShape shape{.runs = 20, .samples = 3, .between = 0.004, .within = 0.002};
  const auto comparison = compare(simulate_runs(shape, 1.0, rng), simulate_runs(shape, 1.0, rng));
  ASSERT_TRUE(comparison);
  EXPECT_EQ(comparison->verdict, Verdict::same);
}

TEST(Decision, CompareIsInconclusiveWhenNoiseIsLarge) {
  Rng rng(3, 0);
  const RunShape shape{.runs = 5, .samples = 1, .between = 0.2};
  const auto comparison = compare(simulate_runs(shape, 1.0, rng), simulate_runs(shape, 1.03, rng));
  ASSERT_TRUE(comparison);
  EXPECT_EQ(comparison->verdict, Verdict::inconclusive);
}

// What a driver needs from identical, perfectly stable measurements: "same", with a zero-width
// interval at exactly 1, not an error.
TEST(Decision, AllEqualValuesOnBothSidesAreTheSame) {
  const Runs runs(6, std::vector<double>(4, 0.0123));
  const auto comparison = compare(runs, runs);
  ASSERT_TRUE(comparison) << comparison.error().message;
  EXPECT_EQ(comparison->verdict, Verdict::same);
  EXPECT_EQ(comparison->ratio.estimate, 1.0);
  EXPECT_EQ(comparison->ratio.lower, 1.0);
  EXPECT_EQ(comparison->ratio.upper, 1.0);
  EXPECT_EQ(comparison->p_value, 1.0);
}

TEST(Decision, ConstantButDifferentSidesAreAChange) {
  const Runs base(6, std::vector<double>(3, 1.0));
  const Runs head(6, std::vector<double>(3, 1.2));
  const auto comparison = compare(base, head);
  ASSERT_TRUE(comparison);
  EXPECT_EQ(comparison->verdict, Verdict::slower);
  EXPECT_EQ(comparison->ratio.lower, 1.2);
  EXPECT_EQ(comparison->ratio.upper, 1.2);
}

TEST(Decision, BadInputIsAnError) {
  const Runs good(5, std::vector<double>{1.0, 1.1});
  EXPECT_EQ(compare(Runs{}, good).error().kind, ErrorKind::empty);
  EXPECT_EQ(compare(Runs{{1.0, 2.0}}, good).error().kind, ErrorKind::too_few);
  EXPECT_EQ(compare(good, Runs{{1.0}, {}}).error().kind, ErrorKind::empty);
  EXPECT_EQ(compare(good, Runs{{1.0}, {-1.0}}).error().kind, ErrorKind::non_positive);
  EXPECT_EQ(compare(good, Runs{{1.0}, {0.0}}).error().kind, ErrorKind::non_positive);
  EXPECT_EQ(compare(good, Runs{{1.0}, {std::nan("")}}).error().kind, ErrorKind::non_finite);
  CompareOptions options;
  options.rule.threshold = -0.1;
  EXPECT_EQ(compare(good, good, options).error().kind, ErrorKind::invalid_argument);
  options = {};
  options.bootstrap.confidence = 1.0;
  EXPECT_EQ(compare(good, good, options).error().kind, ErrorKind::invalid_argument);
  options = {};
  options.bootstrap.resamples = 10;
  EXPECT_EQ(compare(good, good, options).error().kind, ErrorKind::invalid_argument);
  const auto error = compare(good, Runs{{1.0}, {-1.0}}).error();
  EXPECT_NE(error.message.find("head"), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("run 1"), std::string::npos) << error.message;
}

TEST(ExactComparison, IdenticalCountsGiveTheRatioExactlyAndTheRulesVerdict) {
  const std::vector<double> base = {1000, 1000};
  const DecisionRule rule{.threshold = 0.02, .direction = Direction::lower_is_better};
  const auto slower = exact_comparison(base, std::vector<double>{1031, 1031, 1031}, 0.95, rule);
  ASSERT_TRUE(slower);
  EXPECT_EQ(slower->method, ComparisonMethod::exact);
  EXPECT_EQ(slower->ratio.estimate, 1.031);
  EXPECT_EQ(slower->ratio.lower, 1.031);
  EXPECT_EQ(slower->ratio.upper, 1.031);
  EXPECT_EQ(slower->interval_confidence, 1.0);
  EXPECT_EQ(slower->verdict, Verdict::slower);
  EXPECT_EQ(slower->base_runs, 2U);
  EXPECT_EQ(slower->head_runs, 3U);
  // Within the threshold: the same; no change at all: the same with p = 1.
  const auto within = exact_comparison(base, std::vector<double>{1015, 1015}, 0.95, rule);
  ASSERT_TRUE(within);
  EXPECT_EQ(within->verdict, Verdict::same);
  const auto equal = exact_comparison(base, base, 0.95, rule);
  ASSERT_TRUE(equal);
  EXPECT_EQ(equal->verdict, Verdict::same);
  EXPECT_EQ(equal->p_value, 1.0);
  // Fewer counts is faster; for a throughput, more is.
  EXPECT_EQ(exact_comparison(base, std::vector<double>{900, 900}, 0.95, rule)->verdict,
            Verdict::faster);
  const DecisionRule higher{.threshold = 0.02, .direction = Direction::higher_is_better};
  EXPECT_EQ(exact_comparison(base, std::vector<double>{900, 900}, 0.95, higher)->verdict,
            Verdict::slower);
}

TEST(ExactComparison, CountsThatVaryOrAreTooFewAreLeftToTheStatistics) {
  const std::vector<double> base = {1000, 1000};
  EXPECT_FALSE(exact_comparison(base, std::vector<double>{1031, 1032}, 0.95, {}));
  EXPECT_FALSE(exact_comparison(std::vector<double>{1000}, std::vector<double>{1031}, 0.95, {}));
  EXPECT_FALSE(exact_comparison(base, std::vector<double>{0, 0}, 0.95, {}));
  EXPECT_FALSE(exact_comparison(std::vector<double>{NAN, NAN}, base, 0.95, {}));
  EXPECT_FALSE(exact_comparison(std::vector<double>{1e-300, 1e-300},
                                std::vector<double>{1e300, 1e300}, 0.95, {}))
      << "a ratio past what a double holds";
}

} // namespace
} // namespace culprit::stats
