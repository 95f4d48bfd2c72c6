#include "stats/quick_look.hpp"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace culprit::stats {
namespace {

// Reference values from numpy 1.24 and scipy 1.10 (Debian 12): with r = log(bad / good),
// numpy.median(r), scipy.stats.median_abs_deviation(r, scale="normal") and
// numpy.max(numpy.abs(r - numpy.median(r))).
const std::vector<double> k_good = {1.00, 1.02, 0.99, 1.01, 0.98, 1.03, 1.00};
const std::vector<double> k_bad = {1.21, 1.20, 1.25, 1.19, 1.22, 1.18, 1.24};

TEST(StepNoise, MatchesScipysMedianAndScaledMad) {
  const auto noise = step_noise(k_good, k_bad);
  ASSERT_TRUE(noise);
  EXPECT_EQ(noise->blocks, 7U);
  EXPECT_NEAR(noise->step, 0.19062035960864968, 1e-12);
  EXPECT_NEAR(noise->spread, 0.04166324262556301, 1e-12);
  EXPECT_NEAR(noise->worst, 0.05466472337262074, 1e-12);
  EXPECT_TRUE(noise->dwarfed());
}

TEST(StepNoise, NeedsFiveBlocksOfPositiveValuesOnBothSides) {
  EXPECT_FALSE(step_noise(std::vector<double>{1, 1, 1, 1}, std::vector<double>{2, 2, 2, 2}));
  EXPECT_FALSE(step_noise(std::vector<double>{1, 1, 1, 1, 1}, std::vector<double>{2, 2, 2, 2}));
  EXPECT_FALSE(step_noise(std::vector<double>{1, 1, 0, 1, 1}, std::vector<double>{2, 2, 2, 2, 2}));
  EXPECT_FALSE(
      step_noise(std::vector<double>{1, 1, NAN, 1, 1}, std::vector<double>{2, 2, 2, 2, 2}));
}

TEST(StepNoise, ANoisyOrHeavyTailedStepIsNotDwarfed) {
  // Spread: a 5% step under about 5% block noise.
  const auto noisy = step_noise(std::vector<double>{1, 1, 1, 1, 1, 1},
                                std::vector<double>{1.10, 1.00, 1.05, 1.12, 0.98, 1.05});
  ASSERT_TRUE(noisy);
  EXPECT_FALSE(noisy->dwarfed());
  // A tail: six clean blocks of a 20% step and one whose bad run was 1.8x slow.
  const auto tail = step_noise(std::vector<double>{1, 1, 1, 1, 1, 1, 1},
                               std::vector<double>{1.2, 1.2, 1.21, 1.19, 1.2, 2.16, 1.2});
  ASSERT_TRUE(tail);
  EXPECT_LT(tail->spread * 4, std::abs(tail->step));
  EXPECT_FALSE(tail->dwarfed());
  // No step at all.
  const auto flat =
      step_noise(std::vector<double>{1, 1, 1, 1, 1}, std::vector<double>{1, 1, 1, 1, 1});
  ASSERT_TRUE(flat);
  EXPECT_FALSE(flat->dwarfed());
}

const StepNoise k_clean{.step = std::log(1.2), .spread = 0.01, .worst = 0.02, .blocks = 10};

TEST(QuickPosition, BothBlocksAtOneEndDecide) {
  const std::vector<double> lo = {1.0, 1.01};
  const std::vector<double> hi = {1.2, 1.21};
  const auto good = quick_position(k_clean, lo, hi, std::vector<double>{1.005, 1.0}, 0.02);
  ASSERT_TRUE(good);
  EXPECT_EQ(good->classification, StepClass::good_like);
  EXPECT_LE(good->position.lower, good->position.estimate);
  EXPECT_LE(good->position.estimate, good->position.upper);
  EXPECT_LT(good->position.upper, 0.25);
  EXPECT_NEAR(good->tolerance, std::log(1.02) / std::log(1.2), 1e-12);
  const auto bad = quick_position(k_clean, lo, hi, std::vector<double>{1.2, 1.2}, 0.02);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->classification, StepClass::bad_like);
  EXPECT_GT(bad->position.lower, 0.75);
}

TEST(QuickPosition, ThroughputsStepDownward) {
  const StepNoise down{.step = std::log(1 / 1.2), .spread = 0.01, .worst = 0.02, .blocks = 10};
  const std::vector<double> lo = {100, 101};
  const std::vector<double> hi = {83, 84};
  const auto bad = quick_position(down, lo, hi, std::vector<double>{83.5, 83}, 0.02);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->classification, StepClass::bad_like);
}

TEST(QuickPosition, DecidesNothingWhenABlockDisagrees) {
  const std::vector<double> lo = {1.0, 1.0};
  const std::vector<double> hi = {1.2, 1.2};
  // One block near good, one near bad; a level in the middle; a level a quarter up, which the
  // ordinary looks would call intermediate under this little noise.
  EXPECT_FALSE(quick_position(k_clean, lo, hi, std::vector<double>{1.0, 1.2}, 0.02));
  EXPECT_FALSE(quick_position(k_clean, lo, hi, std::vector<double>{1.095, 1.095}, 0.02));
  EXPECT_FALSE(quick_position(k_clean, lo, hi, std::vector<double>{1.047, 1.047}, 0.02));
  // The references of a block stray from the ends' step: a slow run, or a bracket that holds
  // only part of the step (more than one culprit).
  EXPECT_FALSE(
      quick_position(k_clean, lo, std::vector<double>{1.2, 1.8}, std::vector<double>{1, 1}, 0.02));
  EXPECT_FALSE(quick_position(k_clean, lo, std::vector<double>{1.05, 1.05},
                              std::vector<double>{1, 1}, 0.02));
  // Too few blocks, unequal blocks, a noise that is not dwarfed.
  EXPECT_FALSE(quick_position(k_clean, std::vector<double>{1.0}, std::vector<double>{1.2},
                              std::vector<double>{1.0}, 0.02));
  EXPECT_FALSE(quick_position(k_clean, lo, hi, std::vector<double>{1.0}, 0.02));
  StepNoise noisy = k_clean;
  noisy.spread = 0.06;
  EXPECT_FALSE(quick_position(noisy, lo, hi, std::vector<double>{1.0, 1.0}, 0.02));
}

// By simulation: runs lognormal with sd sigma_run, a step of exactly four block-noises (the
// weakest step the quick look accepts), the probe at good's level. The quick look must never put
// it at bad's level, and must decide most probes; a probe a third of the way up (intermediate)
// must rarely be called good-like.
TEST(QuickPosition, NeverCallsAGoodProbeBadAtTheWeakestDwarfedStep) {
  std::mt19937_64 rng(7);
  const double sigma_run = 0.02;
  const double sigma_block = sigma_run * std::sqrt(2.0);
  const double step = 4 * sigma_block;
  std::normal_distribution<double> z(0.0, sigma_run);
  const auto run = [&](double level) { return std::exp(level + z(rng)); };
  const StepNoise ends{.step = step, .spread = sigma_block, .worst = step / 4, .blocks = 10};
  int wrong = 0;
  int decided = 0;
  int intermediate_called_good = 0;
  constexpr int k_trials = 200'000;
  for (int trial = 0; trial < k_trials; ++trial) {
    std::vector<double> lo;
    std::vector<double> hi;
    std::vector<double> probe;
    std::vector<double> third;
    for (std::size_t i = 0; i < k_quick_blocks; ++i) {
      lo.push_back(run(0.0));
      hi.push_back(run(step));
      probe.push_back(run(0.0));
      third.push_back(run(step / 3));
    }
    if (const auto position = quick_position(ends, lo, hi, probe, 0.02)) {
      ++decided;
      wrong += position->classification == StepClass::bad_like ? 1 : 0;
    }
    if (const auto position = quick_position(ends, lo, hi, third, 0.02))
      intermediate_called_good += position->classification == StepClass::good_like ? 1 : 0;
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(decided, k_trials / 2);
  EXPECT_LT(intermediate_called_good, k_trials / 15);
}

TEST(QuickStop, CallsAStepThatDwarfsTheNoiseInEveryBlockAndNothingElse) {
  const DecisionRule rule{.threshold = 0.02, .direction = Direction::lower_is_better};
  std::vector<double> base(10, 1.0);
  std::vector<double> head = {1.20, 1.21, 1.19, 1.20, 1.22, 1.18, 1.20, 1.21, 1.19, 1.20};
  EXPECT_EQ(quick_stop(base, head, rule), Verdict::slower);
  EXPECT_EQ(quick_stop(head, base, rule), Verdict::faster);
  const DecisionRule higher{.threshold = 0.02, .direction = Direction::higher_is_better};
  EXPECT_EQ(quick_stop(base, head, higher), Verdict::faster) << "more throughput is faster";
  // Nine blocks: too few for the sign test.
  EXPECT_FALSE(quick_stop(std::span(base).first(9), std::span(head).first(9), rule));
  // One block within the threshold: no stop, the ordinary looks decide.
  auto one_within = head;
  one_within[4] = 1.01;
  EXPECT_FALSE(quick_stop(base, one_within, rule));
  // A block that strays by half the step: a heavy tail, no stop.
  auto stray = head;
  stray[2] = 1.35;
  EXPECT_FALSE(quick_stop(base, stray, rule));
  // Below the threshold as the verdict reads it: a fall must reach 1 - delta, not 1 / (1 + delta).
  const DecisionRule tenth{.threshold = 0.10, .direction = Direction::higher_is_better};
  const std::vector<double> fell = {0.905, 0.906, 0.904, 0.905, 0.907,
                                    0.903, 0.905, 0.906, 0.904, 0.905};
  EXPECT_FALSE(quick_stop(base, fell, tenth)) << "0.905 is within 10% by decide()'s reading";
  const std::vector<double> fell_far = {0.80, 0.81, 0.79, 0.80, 0.82, 0.78, 0.80, 0.81, 0.79, 0.80};
  EXPECT_EQ(quick_stop(base, fell_far, tenth), Verdict::slower) << "less throughput is slower";
  // Every block beyond a 2% threshold, but the step (3%) is not four times the noise.
  const std::vector<double> noisy = {1.025, 1.05,  1.021, 1.04,  1.023,
                                     1.045, 1.022, 1.035, 1.021, 1.05};
  EXPECT_FALSE(quick_stop(base, noisy, rule));
}

// The sign test's bound, by simulation: a true change exactly at the threshold, with noise so
// small that the step dwarfs it, is called at most 2^-10 of the time (each block is beyond the
// threshold with probability 1/2); a 20% step is called in about 95% of trials under 2% noise per
// run, and in about half under 3% (where four times a block's noise, 0.17, nears the step's 0.18:
// the others go on to the ordinary looks).
TEST(QuickStop, ErrsAtMostOnceInAThousandAtTheThresholdAndCallsALargeStep) {
  std::mt19937_64 rng(11);
  const DecisionRule rule{.threshold = 0.02, .direction = Direction::lower_is_better};
  const auto trials_of = [&](double step, double sigma_run, int trials) {
    std::normal_distribution<double> z(0.0, sigma_run);
    int called = 0;
    for (int t = 0; t < trials; ++t) {
      std::vector<double> base;
      std::vector<double> head;
      for (std::size_t j = 0; j < k_quick_stop_blocks; ++j) {
        base.push_back(std::exp(z(rng)));
        head.push_back(std::exp(step + z(rng)));
      }
      called += quick_stop(base, head, rule) == Verdict::slower ? 1 : 0;
    }
    return static_cast<double>(called) / trials;
  };
  constexpr int k_trials = 200'000;
  const double at_threshold = trials_of(std::log1p(0.02), 0.001, k_trials);
  EXPECT_NEAR(at_threshold, 1.0 / 1024, 4.0 * std::sqrt((1.0 / 1024) / k_trials)) << at_threshold;
  EXPECT_EQ(trials_of(0.0, 0.001, 20'000), 0.0) << "no change is never called";
  EXPECT_GT(trials_of(std::log(1.2), 0.02, 20'000), 0.9);
  const double at_three = trials_of(std::log(1.2), 0.03, 20'000);
  EXPECT_GT(at_three, 0.4);
  EXPECT_LT(at_three, 0.65);
}

} // namespace
} // namespace culprit::stats
