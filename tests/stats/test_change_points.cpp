#include "stats/change_points.hpp"

#include <cstddef>
#include <string>
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

TEST(ChangePoints, BadInputIsAnError) {
  EXPECT_EQ(e_divisive(std::vector<double>{}).error().kind, ErrorKind::empty);
  EXPECT_EQ(e_divisive(std::vector<double>{1.0, std::nan(""), 2.0}).error().kind,
            ErrorKind::non_finite);
  ChangePointOptions options;
  options.min_segment = 1;
  EXPECT_EQ(e_divisive(std::vector<double>{1.0, 2.0}, options).error().kind,
            ErrorKind::invalid_argument);
  EXPECT_EQ(e_divisive(std::vector<double>(2001, 1.0)).error().kind, ErrorKind::too_large);
  options = {};
  options.permutations = 10;
  EXPECT_EQ(e_divisive(std::vector<double>{1.0, 2.0}, options).error().kind,
            ErrorKind::invalid_argument);
}

} // namespace
} // namespace culprit::stats
