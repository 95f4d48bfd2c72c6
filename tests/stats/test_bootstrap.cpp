#include "stats/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "stats/error.hpp"
#include "stats/intervals.hpp"
#include "stats/resampler.hpp"
#include "stats/rng.hpp"
#include "stats/statistic.hpp"
#include "stats/types.hpp"
#include "tests/stats/reference.hpp"

namespace culprit::stats {
namespace {

using testing::agrees_with_scipy;
using testing::dataset;
using testing::reference;

BootstrapOptions scipy_like(const nlohmann::json& expected, std::uint64_t seed = 1) {
  BootstrapOptions options;
  options.resamples = reference().at("resamples").get<std::size_t>();
  options.confidence = expected.at("confidence").get<double>();
  options.method =
      expected.at("method") == "bca" ? IntervalMethod::bca : IntervalMethod::percentile;
  options.seed = seed;
  return options;
}

void expect_agreement(const Interval& ours, const nlohmann::json& expected) {
  EXPECT_NEAR(ours.estimate, expected.at("estimate").get<double>(),
              1e-12 * std::abs(expected.at("estimate").get<double>()));
  for (const auto& [endpoint, value] : {std::pair{"lower", ours.lower}, {"upper", ours.upper}}) {
    const auto agreement = agrees_with_scipy(value, expected.at(endpoint));
    EXPECT_TRUE(agreement.agrees) << endpoint << ": ours " << value << ", scipy " << agreement.mean
                                  << " +- " << agreement.tolerance;
  }
}

Statistic statistic_named(const std::string& name) {
  return *parse_statistic(name);
}

TEST(Bootstrap, OneSampleIntervalsAgreeWithScipy) {
  for (const auto& expected : reference().at("bootstrap_one_sample")) {
    const std::string name = expected.at("data");
    const std::string statistic = expected.at("statistic");
    SCOPED_TRACE(name + " " + statistic + " " + expected.at("method").get<std::string>());
    const auto interval =
        bootstrap_interval(dataset(name), statistic_named(statistic), scipy_like(expected));
    ASSERT_TRUE(interval) << interval.error().message;
    expect_agreement(*interval, expected);
  }
}

// The median and the minimum are resampled through order statistics of uniforms; a custom
// statistic goes the plain way (draw n values, evaluate). Both must agree with scipy.
TEST(Bootstrap, PlainResamplingOfACustomStatisticAgreesWithScipy) {
  for (const auto& expected : reference().at("bootstrap_one_sample")) {
    const std::string statistic = expected.at("statistic");
    const std::string name = expected.at("data");
    SCOPED_TRACE(name + " " + statistic + " " + expected.at("method").get<std::string>());
    const Statistic which = statistic_named(statistic);
    const StatisticFn function = [which](std::span<const double> values) {
      return evaluate(which, values);
    };
    const auto interval = bootstrap_interval(dataset(name), function, scipy_like(expected, 77));
    ASSERT_TRUE(interval) << interval.error().message;
    expect_agreement(*interval, expected);
  }
}

TEST(Bootstrap, RatioIntervalsAgreeWithScipy) {
  for (const auto& expected : reference().at("bootstrap_ratio")) {
    const std::string base = expected.at("base");
    const std::string statistic = expected.at("statistic");
    SCOPED_TRACE(base + " " + statistic + " " + expected.at("method").get<std::string>() + " " +
                 std::to_string(expected.at("confidence").get<double>()));
    const auto interval = ratio_interval(dataset(base), dataset(expected.at("head")),
                                         statistic_named(statistic), scipy_like(expected));
    ASSERT_TRUE(interval) << interval.error().message;
    expect_agreement(*interval, expected);
  }
}

Runs synthetic_runs(std::uint64_t seed, std::size_t runs, std::size_t samples, double level,
                    double between, double within) {
  Rng rng(seed, 0);
  Runs result(runs);
  for (auto& run : result) {
    const double run_level = level * (1.0 + between * rng.normal());
    for (std::size_t s = 0; s < samples; ++s)
      run.push_back(run_level * (1.0 + within * rng.normal()));
  }
  return result;
}

TEST(Bootstrap, ResultsDoNotDependOnTheNumberOfThreads) {
  const Runs base = synthetic_runs(1, 12, 5, 1.0, 0.02, 0.01);
  const Runs head = synthetic_runs(2, 10, 5, 1.05, 0.02, 0.01);
  const Runs single_base = synthetic_runs(3, 20, 1, 1.0, 0.02, 0.01);
  const Runs single_head = synthetic_runs(4, 20, 1, 1.0, 0.02, 0.01);
  for (const auto method : {IntervalMethod::percentile, IntervalMethod::bca}) {
    for (const auto statistic : {Statistic::median, Statistic::mean, Statistic::min}) {
      BootstrapOptions one;
      one.method = method;
      one.resamples = 2000;
      one.seed = 9;
      one.threads = 1;
      BootstrapOptions four = one;
      four.threads = 4;
      const auto check = [](const Result<Interval>& a, const Result<Interval>& b) {
        ASSERT_TRUE(a && b);
        EXPECT_EQ(a->lower, b->lower);
        EXPECT_EQ(a->upper, b->upper);
        EXPECT_EQ(a->standard_error, b->standard_error);
      };
      check(ratio_interval(base, head, statistic, one),
            ratio_interval(base, head, statistic, four));
      check(ratio_interval(single_base, single_head, statistic, one),
            ratio_interval(single_base, single_head, statistic, four));
      check(level_interval(base, statistic, one), level_interval(base, statistic, four));
      const StatisticFn function = [statistic](std::span<const double> values) {
        return evaluate(statistic, values);
      };
      const std::vector<double> values = dataset("bimodal_50");
      check(bootstrap_interval(values, function, one), bootstrap_interval(values, function, four));
    }
  }
}

TEST(Bootstrap, SeedsChangeTheDrawsButNotTheEstimate) {
  const std::vector<double> values = dataset("lognormal_30");
  BootstrapOptions first;
  first.seed = 1;
  BootstrapOptions second;
  second.seed = 2;
  const auto a = bootstrap_interval(values, Statistic::median, first);
  const auto b = bootstrap_interval(values, Statistic::median, second);
  const auto again = bootstrap_interval(values, Statistic::median, first);
  ASSERT_TRUE(a && b && again);
  EXPECT_EQ(a->estimate, b->estimate);
  EXPECT_NE(a->standard_error, b->standard_error);
  EXPECT_EQ(a->lower, again->lower);
  EXPECT_EQ(a->upper, again->upper);
}

// Runs that differ in level while their samples barely vary: pooling the samples as if they
// were independent would give a narrow interval; the two-level bootstrap must count the
// run-to-run spread.
TEST(Bootstrap, TwoLevelIntervalCountsTheRunToRunSpread) {
  const Runs runs = synthetic_runs(5, 10, 50, 1.0, 0.05, 0.001);
  std::vector<double> pooled;
  for (const auto& run : runs)
    pooled.insert(pooled.end(), run.begin(), run.end());
  const auto two_level = level_interval(runs, Statistic::median);
  const auto as_if_independent = bootstrap_interval(pooled, Statistic::median);
  ASSERT_TRUE(two_level && as_if_independent);
  const double two_level_width = two_level->upper - two_level->lower;
  const double pooled_width = as_if_independent->upper - as_if_independent->lower;
  EXPECT_GT(two_level_width, 3.0 * pooled_width);
  EXPECT_EQ(two_level->estimate, as_if_independent->estimate);
}

// The largest distance between the empirical distribution functions of two sorted samples of
// the same size (Kolmogorov-Smirnov).
double ks_distance(const std::vector<double>& a, const std::vector<double>& b) {
  double largest = 0.0;
  for (const double x : b) {
    const auto below_a = std::ranges::upper_bound(a, x) - a.begin();
    const auto below_b = std::ranges::upper_bound(b, x) - b.begin();
    largest = std::max(largest, std::abs(static_cast<double>(below_a - below_b)) /
                                    static_cast<double>(a.size()));
  }
  return largest;
}

// Checks that the replicates of a resampler follow the plain definition of resampling,
// `plain(rng)`: Kolmogorov-Smirnov on 20000 replicates a side; D > 1.95 sqrt(2 / 20000) has
// probability about 0.001 when both come from the same distribution (less for a discrete one).
void expect_plain_distribution(const Resampler& resampler,
                               const std::function<double(Rng&)>& plain) {
  constexpr std::size_t k_count = 20'000;
  std::vector<double> ours;
  std::vector<double> theirs;
  std::vector<double> scratch;
  for (std::size_t b = 0; b < k_count; ++b) {
    Rng rng(7, b);
    ours.push_back(resampler.replicate(rng, scratch));
    Rng other(8, b);
    theirs.push_back(plain(other));
  }
  std::ranges::sort(ours);
  std::ranges::sort(theirs);
  EXPECT_LT(ks_distance(ours, theirs), 1.95 * std::sqrt(2.0 / k_count));
}

// The two-level resampler never builds the pooled resample (it counts draws, or takes order
// statistics). Few samples per run and a large spread make every shortcut visible.
TEST(Bootstrap, TwoLevelReplicatesFollowThePlainDefinition) {
  const Runs runs = synthetic_runs(6, 6, 3, 1.0, 0.2, 0.2);
  for (const auto statistic : {Statistic::median, Statistic::mean, Statistic::min}) {
    SCOPED_TRACE(std::string(to_string(statistic)));
    expect_plain_distribution(*make_resampler(runs, statistic), [&](Rng& rng) {
      std::vector<double> pooled;
      for (std::size_t r = 0; r < runs.size(); ++r) {
        const auto& run = runs[rng.index(runs.size())];
        for (std::size_t s = 0; s < run.size(); ++s)
          pooled.push_back(run[rng.index(run.size())]);
      }
      return evaluate(statistic, pooled);
    });
  }
}

// Likewise the order-statistic shortcut for the median and the minimum of one sample, on odd and
// even sizes.
TEST(Bootstrap, OrderStatisticReplicatesFollowThePlainDefinition) {
  for (const std::size_t size : {7U, 8U, 50U}) {
    std::vector<double> values;
    for (const auto& run : synthetic_runs(9, size, 1, 1.0, 0.2, 0.0))
      values.push_back(run.front());
    for (const auto statistic : {Statistic::median, Statistic::min}) {
      SCOPED_TRACE(std::string(to_string(statistic)) + " of " + std::to_string(size));
      expect_plain_distribution(*make_resampler(values, statistic), [&](Rng& rng) {
        std::vector<double> resample;
        for (std::size_t i = 0; i < size; ++i)
          resample.push_back(values[rng.index(size)]);
        return evaluate(statistic, resample);
      });
    }
  }
}

TEST(Bootstrap, RunsOfOneSampleAreOneSample) {
  const std::vector<double> values = dataset("lognormal_30");
  Runs runs;
  for (const double value : values)
    runs.push_back({value});
  const auto from_runs = level_interval(runs, Statistic::median);
  const auto from_values = bootstrap_interval(values, Statistic::median);
  ASSERT_TRUE(from_runs && from_values);
  EXPECT_EQ(from_runs->lower, from_values->lower);
  EXPECT_EQ(from_runs->upper, from_values->upper);
}

TEST(Bootstrap, NonFiniteStatisticsAreAnErrorNotASilentNaN) {
  const std::vector<double> values = dataset("lognormal_30");
  // Undefined for resamples that draw the first value more than twice.
  const StatisticFn sometimes_nan = [&](std::span<const double> sample) {
    const auto repeats = std::ranges::count(sample, values.front());
    return repeats > 2 ? std::nan("") : evaluate(Statistic::median, sample);
  };
  const auto interval = bootstrap_interval(values, sometimes_nan);
  ASSERT_FALSE(interval);
  EXPECT_EQ(interval.error().kind, ErrorKind::non_finite);

  const std::vector<double> huge(10, 1e308);
  const auto overflow = ratio_interval(huge, huge, Statistic::mean);
  ASSERT_FALSE(overflow);
  EXPECT_EQ(overflow.error().kind, ErrorKind::non_finite);
}

TEST(Bootstrap, BadInputIsAnError) {
  const std::vector<double> good{1.0, 2.0, 3.0};
  EXPECT_EQ(bootstrap_interval(std::vector<double>{}, Statistic::median).error().kind,
            ErrorKind::empty);
  EXPECT_EQ(bootstrap_interval(std::vector<double>{1.0}, Statistic::median).error().kind,
            ErrorKind::too_few);
  EXPECT_EQ(
      bootstrap_interval(std::vector<double>{1.0, std::nan("")}, Statistic::mean).error().kind,
      ErrorKind::non_finite);
  EXPECT_EQ(bootstrap_interval(good, StatisticFn{}).error().kind, ErrorKind::invalid_argument);
  EXPECT_EQ(ratio_interval(good, std::vector<double>{1.0, 0.0}).error().kind,
            ErrorKind::non_positive);
  EXPECT_EQ(ratio_interval(std::vector<double>{-1.0, 2.0}, good).error().kind,
            ErrorKind::non_positive);
  EXPECT_EQ(ratio_interval(good, std::vector<double>{1.0, HUGE_VAL}).error().kind,
            ErrorKind::non_finite);
  EXPECT_EQ(level_interval(Runs{{1.0, 2.0}}).error().kind, ErrorKind::too_few);
  EXPECT_EQ(level_interval(Runs{{1.0}, {}}).error().kind, ErrorKind::empty);
  BootstrapOptions options;
  options.confidence = 0.0;
  EXPECT_EQ(bootstrap_interval(good, Statistic::median, options).error().kind,
            ErrorKind::invalid_argument);
  options = {};
  options.resamples = 0;
  EXPECT_EQ(bootstrap_interval(good, Statistic::median, options).error().kind,
            ErrorKind::invalid_argument);
}

TEST(Bootstrap, AllEqualValuesGiveAZeroWidthInterval) {
  const std::vector<double> values(9, 2.0);
  for (const auto method : {IntervalMethod::percentile, IntervalMethod::bca}) {
    BootstrapOptions options;
    options.method = method;
    for (const auto statistic : {Statistic::median, Statistic::mean, Statistic::min}) {
      const auto interval = bootstrap_interval(values, statistic, options);
      ASSERT_TRUE(interval);
      EXPECT_EQ(interval->lower, 2.0);
      EXPECT_EQ(interval->upper, 2.0);
      const auto ratio = ratio_interval(values, std::vector<double>(5, 3.0), statistic, options);
      ASSERT_TRUE(ratio);
      EXPECT_EQ(ratio->estimate, 1.5);
      EXPECT_EQ(ratio->lower, 1.5);
      EXPECT_EQ(ratio->upper, 1.5);
    }
  }
}

} // namespace
} // namespace culprit::stats
