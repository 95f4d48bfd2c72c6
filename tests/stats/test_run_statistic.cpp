#include "stats/run_statistic.hpp"

#include <vector>

#include <gtest/gtest.h>

namespace culprit::stats {
namespace {

TEST(RunStatistic, NamesRoundTrip) {
  for (const char* name : {"median", "mean", "min", "max", "p10", "p1", "p99", "p25"}) {
    const auto parsed = parse_run_statistic(name);
    ASSERT_TRUE(parsed) << name;
    EXPECT_EQ(to_string(*parsed), name);
  }
  EXPECT_EQ(*parse_run_statistic("p50"), RunStatistic::median());
}

TEST(RunStatistic, RefusesWhatIsNotAStatistic) {
  for (const char* name : {"p0", "p100", "p101", "p-5", "p", "p1.5", "nonsense", "", "P10"}) {
    const auto parsed = parse_run_statistic(name);
    ASSERT_FALSE(parsed) << name;
    EXPECT_EQ(parsed.error().message.find('\n'), std::string::npos);
  }
  EXPECT_NE(parse_run_statistic("p0").error().message.find("write min"), std::string::npos);
  EXPECT_NE(parse_run_statistic("p100").error().message.find("write max"), std::string::npos);
}

TEST(RunStatistic, EvaluatesLikeNumpy) {
  const std::vector<double> run = {5, 1, 4, 2, 3, 10, 6, 7, 9, 8};
  EXPECT_DOUBLE_EQ(evaluate(RunStatistic::minimum(), run), 1);
  EXPECT_DOUBLE_EQ(evaluate(RunStatistic::maximum(), run), 10);
  EXPECT_DOUBLE_EQ(evaluate(RunStatistic::median(), run), 5.5);
  EXPECT_DOUBLE_EQ(evaluate(RunStatistic::mean(), run), 5.5);
  EXPECT_DOUBLE_EQ(evaluate(RunStatistic::percentile(10), run), 1.9); // numpy.quantile(run, 0.1)
  EXPECT_DOUBLE_EQ(evaluate(RunStatistic::percentile(75), run), 7.75);
}

TEST(RunStatistic, FastSideFollowsTheDirection) {
  EXPECT_EQ(fast_side(Direction::lower_is_better), RunStatistic::minimum());
  EXPECT_EQ(fast_side(Direction::higher_is_better), RunStatistic::maximum());
}

} // namespace
} // namespace culprit::stats
