#include "stats/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "stats/error.hpp"
#include "stats/rng.hpp"
#include "tests/stats/reference.hpp"

namespace culprit::stats {
namespace {

using testing::reference;

const nlohmann::json& series_named(const std::string& name) {
  for (const auto& entry : reference().at("change_points"))
    if (entry.at("name") == name)
      return entry;
  throw std::runtime_error("no series " + name);
}

// The reference computes Q from its definition for every split (numpy, quadratic sums); the
// bisection's first candidates must be the same splits with the same statistic.
TEST(ChangePoints, SplitsAndStatisticsMatchTheDefinition) {
  for (const auto& entry : reference().at("change_points")) {
    SCOPED_TRACE(entry.at("name").get<std::string>());
    const auto series = entry.at("series").get<std::vector<double>>();
    const auto min_segment = entry.at("min_segment").get<std::size_t>();
    std::vector<std::size_t> bounds{0, series.size()};
    for (const auto& candidate : entry.at("candidates")) {
      Split best;
      std::size_t index = 0;
      for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
        const Split split = best_split(
            std::span(series).subspan(bounds[s], bounds[s + 1] - bounds[s]), min_segment);
        if (split.found && (!best.found || split.statistic > best.statistic)) {
          best = split;
          index = bounds[s] + split.tau;
        }
      }
      ASSERT_TRUE(best.found);
      EXPECT_EQ(index, candidate.at("index").get<std::size_t>());
      EXPECT_NEAR(best.statistic, candidate.at("statistic").get<double>(), 1e-9);
      bounds.insert(std::upper_bound(bounds.begin(), bounds.end(), index), index);
    }
  }
}

TEST(ChangePoints, FindsPlantedSteps) {
  const auto series = series_named("two_steps").at("series").get<std::vector<double>>();
  const auto found = e_divisive(series);
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_EQ(found->size(), 2U);
  EXPECT_EQ((*found)[0].index, 30U);
  EXPECT_EQ((*found)[1].index, 55U);
  for (const auto& point : *found)
    EXPECT_NEAR(point.p_value, 1.0 / 200.0, 1e-12);
}

TEST(ChangePoints, NoiseAloneHasNoChangePoint) {
  const auto series = series_named("noise").at("series").get<std::vector<double>>();
  const auto found = e_divisive(series);
  ASSERT_TRUE(found);
  EXPECT_TRUE(found->empty());
}

TEST(ChangePoints, ConstantAndShortSeriesHaveNone) {
  EXPECT_TRUE(e_divisive(std::vector<double>(20, 1.0))->empty());
  EXPECT_TRUE(e_divisive(std::vector<double>{1.0, 5.0, 9.0})->empty());
}

TEST(ChangePoints, ResultsDoNotDependOnTheNumberOfThreads) {
  Rng rng(8, 0);
  std::vector<double> series;
  for (int i = 0; i < 80; ++i)
    series.push_back((i < 50 ? 1.0 : 1.01) + 0.01 * rng.normal());
  ChangePointOptions one;
  one.threads = 1;
  ChangePointOptions four = one;
  four.threads = 4;
  const auto a = e_divisive(series, one);
  const auto b = e_divisive(series, four);
  ASSERT_TRUE(a && b);
  ASSERT_EQ(a->size(), b->size());
  for (std::size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ((*a)[i].index, (*b)[i].index);
    EXPECT_EQ((*a)[i].p_value, (*b)[i].p_value);
  }
}

// Q at every split of a segment from its definition: the sums over every pair, for each split
// afresh (cubic, so only for the tests).
Split split_by_definition(const std::vector<double>& segment, std::size_t min_segment) {
  Split best;
  const std::size_t length = segment.size();
  for (std::size_t tau = min_segment; tau + min_segment <= length; ++tau) {
    double between = 0;
    double left = 0;
    double right = 0;
    for (std::size_t i = 0; i < length; ++i)
      for (std::size_t j = i + 1; j < length; ++j) {
        const double d = std::abs(segment[i] - segment[j]);
        if (j < tau)
          left += d;
        else if (i >= tau)
          right += d;
        else
          between += d;
      }
    const auto n = static_cast<double>(tau);
    const auto m = static_cast<double>(length - tau);
    const double q =
        n * m / (n + m) *
        ((2 * between / (n * m)) - (left / (n * (n - 1) / 2)) - (right / (m * (m - 1) / 2)));
    if (!best.found || q > best.statistic)
      best = {.tau = tau, .statistic = q, .found = true};
  }
  return best;
}

// Long segments are searched through the ranks of their values: the same split and statistic as
// the definition, with noise, with ties (counts that take two values) and with nothing at all.
TEST(ChangePoints, LongSegmentsFindTheSplitOfTheDefinition) {
  Rng rng(26, 5);
  std::vector<std::vector<double>> segments;
  std::vector<double> noisy;
  for (int i = 0; i < 300; ++i)
    noisy.push_back(std::log(1e-3) + (i < 217 ? 0.0 : 0.03) + 0.02 * rng.normal());
  segments.push_back(noisy);
  std::vector<double> noise;
  for (int i = 0; i < 280; ++i)
    noise.push_back(-6.9 + 0.02 * rng.normal());
  segments.push_back(noise);
  std::vector<double> counts;
  for (int i = 0; i < 260; ++i)
    counts.push_back(i < 100 || (i >= 150 && i < 160) ? 5910162.0 : 8910162.0);
  segments.push_back(counts);
  segments.emplace_back(270, 3.5);
  for (const auto& segment : segments) {
    SCOPED_TRACE(segment.size());
    const Split fast = best_split(segment, 3);
    const Split slow = split_by_definition(segment, 3);
    ASSERT_TRUE(fast.found && slow.found);
    EXPECT_NEAR(fast.statistic, slow.statistic, 1e-9 * std::max(1.0, std::abs(slow.statistic)));
    if (slow.statistic > 1e-9) {
      EXPECT_EQ(fast.tau, slow.tau);
    }
  }
}

// The permutations stop once the candidate cannot be significant; the change points and p-values
// are those of counting every permutation (the test's own count below, from the same streams).
TEST(ChangePoints, StoppingThePermutationsEarlyChangesNoAnswer) {
  const auto full = [](const std::vector<double>& series, const ChangePointOptions& options) {
    std::vector<std::size_t> bounds{0, series.size()};
    std::vector<ChangePoint> found;
    const auto best_of = [&](const std::vector<double>& values) {
      std::pair<std::size_t, double> best{0, 0};
      bool any = false;
      for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
        const auto split = best_split(
            std::span(values).subspan(bounds[s], bounds[s + 1] - bounds[s]), options.min_segment);
        if (split.found && (!any || split.statistic > best.second)) {
          best = {bounds[s] + split.tau, split.statistic};
          any = true;
        }
      }
      return std::pair{any, best};
    };
    for (std::uint64_t iteration = 0;; ++iteration) {
      const auto [any, candidate] = best_of(series);
      if (!any)
        break;
      std::size_t exceeding = 0;
      for (std::size_t r = 0; r < options.permutations; ++r) {
        Rng rng(options.seed, (iteration << 32U) + r);
        auto shuffled = series;
        for (std::size_t s = 0; s + 1 < bounds.size(); ++s)
          for (std::size_t i = bounds[s + 1] - 1; i > bounds[s]; --i)
            std::swap(shuffled[i], shuffled[bounds[s] + rng.index(i - bounds[s] + 1)]);
        exceeding += static_cast<std::size_t>(best_of(shuffled).second.second >= candidate.second);
      }
      const double p =
          static_cast<double>(exceeding + 1) / static_cast<double>(options.permutations + 1);
      if (p > options.significance)
        break;
      found.push_back({.index = candidate.first, .p_value = p, .statistic = candidate.second});
      bounds.insert(std::upper_bound(bounds.begin(), bounds.end(), candidate.first),
                    candidate.first);
    }
    std::ranges::sort(found, {}, &ChangePoint::index);
    return found;
  };
  Rng rng(26, 6);
  for (int trial = 0; trial < 12; ++trial) {
    SCOPED_TRACE(trial);
    std::vector<double> series;
    const std::size_t length = 40 + (trial * 23);
    for (std::size_t i = 0; i < length; ++i) {
      const double level = (trial % 3 == 0) ? 0.0 : (i > length / 3 ? 0.02 * (trial % 3) : 0.0);
      series.push_back(level + (trial % 4 == 1 && i > length * 3 / 4 ? -0.015 : 0.0) +
                       0.01 * rng.normal());
    }
    ChangePointOptions options;
    options.significance = trial % 2 == 0 ? 0.05 : 0.01;
    options.permutations = trial % 2 == 0 ? 199 : 299;
    options.threads = 1 + (trial % 3);
    const auto fast = e_divisive(series, options);
    ASSERT_TRUE(fast);
    const auto slow = full(series, options);
    ASSERT_EQ(fast->size(), slow.size());
    for (std::size_t k = 0; k < slow.size(); ++k) {
      EXPECT_EQ((*fast)[k].index, slow[k].index);
      EXPECT_EQ((*fast)[k].p_value, slow[k].p_value);
    }
  }
}

TEST(ChangePoints, BadInputIsAnError) {
  EXPECT_EQ(e_divisive(std::vector<double>{}).error().kind, ErrorKind::empty);
  EXPECT_EQ(e_divisive(std::vector<double>{1.0, std::nan(""), 2.0}).error().kind,
            ErrorKind::non_finite);
  ChangePointOptions options;
  options.min_segment = 1;
  EXPECT_EQ(e_divisive(std::vector<double>{1.0, 2.0}, options).error().kind,
            ErrorKind::invalid_argument);
  EXPECT_EQ(e_divisive(std::vector<double>(50001, 1.0)).error().kind, ErrorKind::too_large);
  options = {};
  options.permutations = 10;
  EXPECT_EQ(e_divisive(std::vector<double>{1.0, 2.0}, options).error().kind,
            ErrorKind::invalid_argument);
}

} // namespace
} // namespace culprit::stats
