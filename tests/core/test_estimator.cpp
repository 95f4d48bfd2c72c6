// Which statistic of each run decides a case, and the words that say why.
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/measure/estimator.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;

stats::Interference states(double slow_share, double slow_stretch) {
  stats::Interference i;
  i.samples = 200;
  i.runs = 10;
  i.one_sided = true;
  i.states = stats::SpeedStates{.fast = 1e-3,
                                .slow = 1.8e-3,
                                .slow_share = slow_share,
                                .separation = 9,
                                .threshold = 1.34e-3,
                                .slow_stretch = slow_stretch};
  return i;
}

TEST(StatisticSetting, ParsesAutoAndEveryStatisticAndRefusesTheRest) {
  EXPECT_TRUE(measure::StatisticSetting::parse("auto")->automatic);
  for (const auto* name : {"median", "mean", "min", "max", "p1", "p10", "p99"}) {
    const auto setting = measure::StatisticSetting::parse(name);
    ASSERT_TRUE(setting) << name;
    EXPECT_FALSE(setting->automatic);
    EXPECT_EQ(setting->name(), name);
  }
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"nonsense", "use auto, median, mean, min, max or a percentile p1 to p99"},
      {"p0", "write min"},
      {"p100", "write max"},
      {"p101", "write p1 to p99"},
      {"p-5", "write p1 to p99"},
      {"p1.5", "write p1 to p99"},
      {"", "unknown statistic"},
      {"MIN", "unknown statistic"},
      {std::string(100000, 'x'), "unknown statistic"}};
  for (const auto& [bad, says] : refused) {
    const auto setting = measure::StatisticSetting::parse(bad);
    ASSERT_FALSE(setting) << bad;
    EXPECT_EQ(setting.error().code, ExitCode::usage);
    EXPECT_THAT(setting.error().message, HasSubstr(says)) << bad;
    EXPECT_LT(setting.error().message.size(), 200U);
  }
}

TEST(ChooseEstimator, OneSidedInterferenceOnEitherSideTakesTheFastSide) {
  const std::array<std::optional<stats::Interference>, 2> quiet_then_states = {
      stats::Interference{}, states(0.5, 3)};
  const auto time =
      measure::choose_estimator({}, parsers::Direction::lower_is_better, quiet_then_states);
  EXPECT_EQ(time.statistic, stats::RunStatistic::minimum());
  EXPECT_TRUE(time.fast_side());
  EXPECT_THAT(time.reason, HasSubstr("two speed states"));
  const auto throughput =
      measure::choose_estimator({}, parsers::Direction::higher_is_better, quiet_then_states);
  EXPECT_EQ(throughput.statistic, stats::RunStatistic::maximum());
  EXPECT_TRUE(throughput.fast_side());

  const std::array<std::optional<stats::Interference>, 2> quiet = {stats::Interference{},
                                                                   std::nullopt};
  const auto median = measure::choose_estimator({}, parsers::Direction::lower_is_better, quiet);
  EXPECT_EQ(median.statistic, stats::RunStatistic::median());
  EXPECT_FALSE(median.fast_side());
  EXPECT_THAT(median.reason, HasSubstr("no one-sided interference"));

  // A statistic asked for is taken whatever the samples say.
  const auto asked = choose_estimator(measure::StatisticSetting::parse("p10").value(),
                                      parsers::Direction::lower_is_better, quiet_then_states);
  EXPECT_EQ(asked.statistic, stats::RunStatistic::percentile(10));
  EXPECT_EQ(asked.reason, "asked for");
  EXPECT_FALSE(asked.fast_side());
}

TEST(JudgeLaterBy, AMedianGivesWayToTheFastSideOnceInterferenceShows) {
  const measure::Estimator median{stats::RunStatistic::median(), "auto: no one-sided interference"};
  const std::array<std::optional<stats::Interference>, 3> later = {
      std::nullopt, stats::Interference{}, states(0.4, 5)};
  const auto fast = measure::judge_later_by({}, parsers::Direction::lower_is_better, median, later,
                                            "the probes' runs");
  ASSERT_TRUE(fast.has_value());
  EXPECT_EQ(fast->statistic, stats::RunStatistic::minimum());
  EXPECT_EQ(fast->reason, "auto: one-sided interference (two speed states) in the probes' runs, "
                          "so the min of each run");

  // Nothing new to learn: no interference, a statistic asked for, or the fast side already.
  const std::array<std::optional<stats::Interference>, 2> quiet = {stats::Interference{},
                                                                   std::nullopt};
  EXPECT_FALSE(judge_later_by({}, parsers::Direction::lower_is_better, median, quiet, "x"));
  const auto asked = measure::StatisticSetting::parse("median").value();
  EXPECT_FALSE(judge_later_by(asked, parsers::Direction::lower_is_better, median, later, "x"));
  const measure::Estimator minimum{stats::RunStatistic::minimum(), "auto: ..."};
  EXPECT_FALSE(judge_later_by({}, parsers::Direction::lower_is_better, minimum, later, "x"));
  // A throughput's fast side is its maximum.
  const auto throughput =
      judge_later_by({}, parsers::Direction::higher_is_better, median, later, "x");
  ASSERT_TRUE(throughput.has_value());
  EXPECT_EQ(throughput->statistic, stats::RunStatistic::maximum());
}

// Rare preemptions (1% of the samples 3x slower, one at a time) are isolated slow samples: the
// median of each run already ignores them, and taking each run's minimum for them made a
// simulated bisection under lognormal noise with outliers (bench_bisect) miss a culprit it had
// found with the median. A long slow tail still takes the fast side.
TEST(ChooseEstimator, IsolatedSlowSamplesLeaveTheMedianInCharge) {
  const std::array<std::optional<stats::Interference>, 1> preempted = {states(0.01, 1.0)};
  EXPECT_FALSE(stats::fast_side_decides(*preempted[0]));
  EXPECT_EQ(measure::choose_estimator({}, parsers::Direction::lower_is_better, preempted).statistic,
            stats::RunStatistic::median());
  const measure::Estimator median{stats::RunStatistic::median(), "auto: no one-sided interference"};
  EXPECT_FALSE(
      measure::judge_later_by({}, parsers::Direction::lower_is_better, median, preempted, "x"));

  stats::Interference tail;
  tail.one_sided = true;
  tail.slow_tail = true;
  tail.spread = 0.31;
  const std::array<std::optional<stats::Interference>, 1> tailed = {tail};
  const auto fast = measure::choose_estimator({}, parsers::Direction::lower_is_better, tailed);
  EXPECT_EQ(fast.statistic, stats::RunStatistic::minimum());
  EXPECT_THAT(fast.reason, HasSubstr("a long slow tail"));
  // Preemptions on top of a slow tail: the tail decides.
  auto both = states(0.01, 1.0);
  both.slow_tail = true;
  EXPECT_TRUE(stats::fast_side_decides(both));
}

TEST(ChooseEstimator, TheSlowSideIsTheNinetiethPercentileOfATime) {
  EXPECT_EQ(measure::slow_side(parsers::Direction::lower_is_better),
            stats::RunStatistic::percentile(90));
  EXPECT_EQ(measure::slow_side(parsers::Direction::higher_is_better),
            stats::RunStatistic::percentile(10));
}

TEST(DescribeInterference, NamesTheShapeInWordsOfAKernelDeveloper) {
  EXPECT_THAT(measure::describe_interference(states(0.46, 4)),
              HasSubstr("two speed states: the slow one 1.8x the fast, 46% of the samples, in "
                        "stretches of 4 samples"));
  EXPECT_THAT(measure::describe_interference(states(0.07, 1.0)),
              HasSubstr("isolated slow samples: 7% of the samples 1.8x the others"));
  // Half the samples slow, even one at a time, is a second state, not isolated preemptions.
  EXPECT_THAT(measure::describe_interference(states(0.5, 1.2)), HasSubstr("two speed states"));

  stats::Interference tail;
  tail.one_sided = true;
  tail.spread = 0.31;
  EXPECT_EQ(measure::describe_interference(tail),
            "a long slow tail: the 90th percentile 31% above the 10th");

  stats::Interference drift;
  drift.drift = stats::Drift{.change = 0.031, .tau = 0.8, .p_value = 1e-4};
  EXPECT_EQ(measure::describe_interference(drift), "drift +3.1% from the first run to the last");
  EXPECT_EQ(measure::describe_interference(stats::Interference{}), "");
}

} // namespace
} // namespace culprit
