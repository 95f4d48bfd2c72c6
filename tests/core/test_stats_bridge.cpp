#include <gtest/gtest.h>

#include "core/measure/compare.hpp"
#include "core/measure/stats_bridge.hpp"

namespace culprit {
namespace {

// Each deciding setting reaches the statistics through one conversion: a classification made at
// another level than the recipe's would be a verdict nobody asked for.
TEST(StatsBridge, TheRecipesDecideSettingsReachTheStatisticsOptions) {
  recipe::DecideOptions decide;
  decide.threshold = 0.05;
  decide.confidence = 0.9;
  decide.classify_confidence = 0.995;
  decide.seed = 42;

  const auto paired = measure::paired_options(decide, parsers::Direction::higher_is_better);
  EXPECT_DOUBLE_EQ(paired.rule.threshold, 0.05);
  EXPECT_DOUBLE_EQ(paired.confidence, 0.9);
  EXPECT_EQ(paired.rule.direction, stats::Direction::higher_is_better);
  EXPECT_DOUBLE_EQ(
      measure::paired_options(decide, parsers::Direction::lower_is_better, 0.999).confidence,
      0.999);

  const auto step = measure::step_options(decide, 3, 500);
  EXPECT_DOUBLE_EQ(step.threshold, 0.05);
  EXPECT_DOUBLE_EQ(step.bootstrap.confidence, 0.995);
  EXPECT_EQ(step.bootstrap.seed, 42U);
  EXPECT_EQ(step.bootstrap.threads, 3U);
  EXPECT_EQ(step.bootstrap.resamples, 500U);

  const auto planning = measure::planning_options(decide);
  EXPECT_DOUBLE_EQ(planning.threshold, 0.05);
  EXPECT_DOUBLE_EQ(planning.confidence, 0.9);

  const auto level = measure::level_interval_options(decide.confidence, decide.seed, 800, 1);
  EXPECT_DOUBLE_EQ(level.confidence, 0.9);
  EXPECT_EQ(level.seed, 42U);
  EXPECT_EQ(level.resamples, 800U);
  EXPECT_EQ(level.threads, 1U);
  EXPECT_EQ(level.method, stats::IntervalMethod::percentile);
}

TEST(StatsBridge, ACompareCarriesTheRecipesSettingsWhole) {
  recipe::Recipe recipe;
  recipe.decide.threshold = 0.03;
  recipe.decide.min_runs = 7;
  recipe.decide.max_runs = 70;
  recipe.decide.statistic = "min";
  recipe.run.cases = {"sgemm/*"};
  recipe.run.metric = "gpu_time";
  const auto settings = measure::compare_settings_of(recipe);
  EXPECT_DOUBLE_EQ(settings.decide.threshold, 0.03);
  EXPECT_EQ(settings.min_runs(), 7U);
  EXPECT_EQ(settings.max_runs(), 70U);
  EXPECT_EQ(settings.statistic().name(), "min");
  EXPECT_EQ(settings.case_globs, recipe.run.cases);
  EXPECT_EQ(settings.metric, "gpu_time");
}

} // namespace
} // namespace culprit
