// Calibration by simulation, with fixed seeds: do 95% intervals cover 95% of the time, does the
// sequential rule keep its error rate over all its looks, and how much power does it have?
//
// Monte Carlo slack: a rate estimated from N independent simulations has standard error
// sqrt(p (1 - p) / N); with N = 1000 and p = 0.95 that is 0.0069, so the band 93-97% is about
// three standard errors either side of 95%.

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "stats/bootstrap.hpp"
#include "stats/change_points.hpp"
#include "stats/decision.hpp"
#include "stats/rng.hpp"
#include "stats/sequential.hpp"
#include "tests/stats/simulate.hpp"

namespace culprit::stats {
namespace {

using testing::Noise;
using testing::RunShape;
using testing::simulate_runs;

constexpr std::size_t k_resamples = 1000;

void report(const std::string& name, double value) {
  ::testing::Test::RecordProperty(name, std::to_string(value));
  std::printf("calibration: %-48s %.4f\n", name.c_str(), value);
}

double coverage(const RunShape& shape, std::size_t simulations, std::uint64_t seed) {
  constexpr double k_true_ratio = 1.05;
  BootstrapOptions options;
  options.resamples = k_resamples;
  std::size_t covered = 0;
  for (std::size_t i = 0; i < simulations; ++i) {
    Rng rng(seed, i);
    const Runs base = simulate_runs(shape, 1.0, rng);
    const Runs head = simulate_runs(shape, k_true_ratio, rng);
    options.seed = seed * 1'000'003 + i;
    const auto interval = ratio_interval(base, head, Statistic::median, options);
    EXPECT_TRUE(interval);
    covered += static_cast<std::size_t>(interval && interval->lower <= k_true_ratio &&
                                        k_true_ratio <= interval->upper);
  }
  return static_cast<double>(covered) / static_cast<double>(simulations);
}

TEST(Calibration, RatioOfMediansIntervalsCoverTheTrueRatio) {
  std::uint64_t seed = 100;
  for (const Noise noise : {Noise::normal, Noise::lognormal, Noise::bimodal, Noise::heavy_tailed}) {
    for (const std::size_t runs : {10U, 30U}) {
      const RunShape shape{.runs = runs, .samples = 1, .noise = noise, .between = 0.03};
      const double rate = coverage(shape, 1000, ++seed);
      report("coverage " + std::string(testing::to_string(noise)) + " " + std::to_string(runs) +
                 " runs",
             rate);
      EXPECT_GE(rate, 0.93) << testing::to_string(noise) << ", " << runs << " runs";
      EXPECT_LE(rate, 0.97) << testing::to_string(noise) << ", " << runs << " runs";
    }
  }
}

// Several samples per run: run-to-run noise twice the sample-to-sample noise, as benchmark
// processes show. When samples within a run are in fact independent (no run-to-run noise), the
// two-level bootstrap counts their noise twice: the interval must then err on the wide side.
TEST(Calibration, TwoLevelIntervalsCoverTheTrueRatio) {
  for (const Noise noise : {Noise::normal, Noise::lognormal}) {
    const RunShape shape{.runs = 10, .samples = 5, .noise = noise, .between = 0.02, .within = 0.01};
    const double rate = coverage(shape, 600, 200 + static_cast<std::uint64_t>(noise));
    report("coverage two-level " + std::string(testing::to_string(noise)) + " 10x5", rate);
    EXPECT_GE(rate, 0.925);
    EXPECT_LE(rate, 0.975);
  }
  const RunShape independent{.runs = 10, .samples = 5, .between = 0.0, .within = 0.03};
  const double rate = coverage(independent, 600, 300);
  report("coverage two-level, independent samples 10x5", rate);
  EXPECT_GE(rate, 0.94);
}

struct SequentialOutcome {
  double false_calls = 0.0; // share of experiments ending in slower or faster
  double called = 0.0;      // share ending in slower
  double mean_runs = 0.0;   // runs per side when stopped
};

// Runs the whole schedule of looks on data drawn once per experiment; `naive` uses a plain
// 95% interval at every look, without the group-sequential levels or the rank test, to show
// what the test below would catch.
SequentialOutcome run_schedule(const SequentialPlan& plan, const RunShape& shape, double ratio,
                               double threshold, std::size_t experiments, std::uint64_t seed,
                               bool naive) {
  CompareOptions options;
  options.rule.threshold = threshold;
  options.bootstrap.resamples = k_resamples;
  SequentialOutcome outcome;
  RunShape all = shape;
  all.runs = plan.runs.back();
  for (std::size_t e = 0; e < experiments; ++e) {
    Rng rng(seed, e);
    const Runs all_base = simulate_runs(all, 1.0, rng);
    const Runs all_head = simulate_runs(all, ratio, rng);
    options.bootstrap.seed = seed * 1'000'003 + e;
    for (std::size_t look = 0; look < plan.runs.size(); ++look) {
      const auto count = static_cast<std::ptrdiff_t>(plan.runs[look]);
      const Runs base(all_base.begin(), all_base.begin() + count);
      const Runs head(all_head.begin(), all_head.begin() + count);
      Verdict verdict = Verdict::inconclusive;
      if (naive) {
        const auto interval = ratio_interval(base, head, Statistic::median, options.bootstrap);
        verdict = decide(*interval, 0.0, options.bootstrap.confidence, options.rule);
      } else {
        const auto decision = decide_at_look(plan, look, base, head, options);
        EXPECT_TRUE(decision);
        verdict = decision->comparison.verdict;
      }
      if (verdict != Verdict::inconclusive || look + 1 == plan.runs.size()) {
        outcome.false_calls +=
            static_cast<double>(verdict == Verdict::slower || verdict == Verdict::faster);
        outcome.called += static_cast<double>(verdict == Verdict::slower);
        outcome.mean_runs += static_cast<double>(count);
        break;
      }
    }
  }
  const auto n = static_cast<double>(experiments);
  return SequentialOutcome{outcome.false_calls / n, outcome.called / n, outcome.mean_runs / n};
}

// A/A: both sides from the same distribution. With a threshold of 0 any interval that excludes
// 1 is a false call, the hardest case. 1000 experiments: standard error 0.0069 at 5%.
TEST(Calibration, SequentialFalseCallRateStaysUnderAlphaOverAllLooks) {
  const auto plan = make_sequential_plan(5, 40, 5, 0.95);
  ASSERT_TRUE(plan);
  constexpr double k_alpha = 0.05;
  constexpr double k_slack = 2.0 * 0.0069;
  std::uint64_t seed = 400;
  for (const Noise noise : {Noise::lognormal, Noise::heavy_tailed}) {
    const RunShape shape{.samples = 1, .noise = noise, .between = 0.05};
    const auto outcome = run_schedule(*plan, shape, 1.0, 0.0, 1000, ++seed, false);
    report("A/A false calls, 8 looks, " + std::string(testing::to_string(noise)),
           outcome.false_calls);
    EXPECT_LE(outcome.false_calls, k_alpha + k_slack) << testing::to_string(noise);
  }
  // The same experiments judged naively at every look: the rate the rule above prevents.
  const RunShape shape{.samples = 1, .noise = Noise::lognormal, .between = 0.05};
  const auto naive = run_schedule(*plan, shape, 1.0, 0.0, 500, 401, true);
  report("A/A false calls, 8 naive looks, lognormal", naive.false_calls);
  EXPECT_GT(naive.false_calls, k_alpha + 2.0 * k_slack);
}

TEST(Calibration, PowerToCallAFivePercentShiftAtTwoPercentNoise) {
  const auto plan = make_sequential_plan(5, 40, 5, 0.95);
  ASSERT_TRUE(plan);
  const RunShape shape{.samples = 1, .noise = Noise::normal, .between = 0.02};
  const auto outcome = run_schedule(*plan, shape, 1.05, 0.02, 400, 500, false);
  report("power, 5% shift, 2% noise, 5..40 runs", outcome.called);
  report("mean runs per side at the verdict", outcome.mean_runs);
  EXPECT_GE(outcome.called, 0.8);
  const auto same = run_schedule(*plan, shape, 1.0, 0.02, 400, 501, false);
  report("A/A false calls, 2% threshold, 2% noise", same.false_calls);
  EXPECT_LE(same.false_calls, 0.05);
}

// The permutation test of E-divisive: on pure noise, a change point in at most about 5% of
// series (200 series: standard error 0.015).
TEST(Calibration, ChangePointFalseDetectionRate) {
  std::size_t detections = 0;
  constexpr std::size_t k_series = 200;
  for (std::size_t s = 0; s < k_series; ++s) {
    Rng rng(600, s);
    std::vector<double> series;
    for (int i = 0; i < 40; ++i)
      series.push_back(1.0 + 0.01 * rng.normal());
    ChangePointOptions options;
    options.permutations = 99;
    options.seed = s;
    detections += static_cast<std::size_t>(!e_divisive(series, options)->empty());
  }
  const double rate = static_cast<double>(detections) / k_series;
  report("E-divisive detections on noise", rate);
  EXPECT_LE(rate, 0.05 + 2.0 * 0.015);
}

} // namespace
} // namespace culprit::stats
