#include "stats/sequential.hpp"

#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include "stats/decision.hpp"
#include "stats/error.hpp"
#include "stats/group_sequential.hpp"
#include "stats/rng.hpp"
#include "tests/stats/simulate.hpp"

namespace culprit::stats {
namespace {

using testing::RunShape;
using testing::simulate_runs;

// Published values for O'Brien-Fleming-type spending (Lan & DeMets 1983), two-sided alpha 0.05,
// equally spaced looks; e.g. gsDesign's sfLDOF and Jennison & Turnbull (2000), chapter 7.
TEST(GroupSequential, BoundariesMatchPublishedValues) {
  const auto five = obrien_fleming_boundaries(std::vector<double>{0.2, 0.4, 0.6, 0.8, 1.0}, 0.05);
  ASSERT_TRUE(five) << five.error().message;
  const std::vector<double> expected_five{4.8769, 3.3569, 2.6803, 2.2898, 2.0310};
  for (std::size_t k = 0; k < expected_five.size(); ++k)
    EXPECT_NEAR((*five)[k], expected_five[k], 2e-4) << k;
  const auto four = obrien_fleming_boundaries(std::vector<double>{0.25, 0.5, 0.75, 1.0}, 0.05);
  ASSERT_TRUE(four);
  const std::vector<double> expected_four{4.3326, 2.9631, 2.3590, 2.0141};
  for (std::size_t k = 0; k < expected_four.size(); ++k)
    EXPECT_NEAR((*four)[k], expected_four[k], 2e-4) << k;
}

TEST(GroupSequential, OneLookIsTheFixedDesign) {
  const auto one = obrien_fleming_boundaries(std::vector<double>{1.0}, 0.05);
  ASSERT_TRUE(one);
  EXPECT_NEAR((*one)[0], 1.959964, 1e-6);
  EXPECT_NEAR(obrien_fleming_spending(1.0, 0.05), 0.05, 1e-12);
}

TEST(GroupSequential, BadFractionsAreAnError) {
  EXPECT_FALSE(obrien_fleming_boundaries(std::vector<double>{}, 0.05));
  EXPECT_FALSE(obrien_fleming_boundaries(std::vector<double>{0.5, 0.9}, 0.05));
  EXPECT_FALSE(obrien_fleming_boundaries(std::vector<double>{0.5, 0.5, 1.0}, 0.05));
  EXPECT_FALSE(obrien_fleming_boundaries(std::vector<double>{1.0}, 1.5));
}

TEST(Sequential, PlanFromMinMaxAndBatch) {
  const auto plan = make_sequential_plan(5, 40, 5, 0.95);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->runs, (std::vector<std::size_t>{5, 10, 15, 20, 25, 30, 35, 40}));
  ASSERT_EQ(plan->confidence.size(), 8U);
  for (std::size_t k = 1; k < plan->confidence.size(); ++k)
    EXPECT_LT(plan->confidence[k], plan->confidence[k - 1]);
  EXPECT_GT(plan->confidence.front(), 0.99999);
  // The last look's level is a little stricter than the overall 95%.
  EXPECT_GT(plan->confidence.back(), 0.95);
  EXPECT_LT(plan->confidence.back(), 0.965);

  const auto uneven = make_sequential_plan(5, 12, 5, 0.95);
  ASSERT_TRUE(uneven);
  EXPECT_EQ(uneven->runs, (std::vector<std::size_t>{5, 10, 12}));
  const auto single = make_sequential_plan(10, 10, 5, 0.95);
  ASSERT_TRUE(single);
  EXPECT_NEAR(single->confidence.front(), 0.95, 1e-9);
}

TEST(Sequential, BadPlansAreAnError) {
  EXPECT_EQ(make_sequential_plan(5, 40, 0, 0.95).error().kind, ErrorKind::invalid_argument);
  EXPECT_EQ(make_sequential_plan(40, 5, 5, 0.95).error().kind, ErrorKind::invalid_argument);
  EXPECT_EQ(make_sequential_plan(1, 5, 1, 0.95).error().kind, ErrorKind::too_few);
  EXPECT_EQ(make_sequential_plan(2, 5000, 1, 0.95).error().kind, ErrorKind::too_large);
  EXPECT_EQ(make_sequential_plan(5, 40, 5, 0.0).error().kind, ErrorKind::invalid_argument);
  const std::vector<std::size_t> not_increasing{5, 5, 10};
  EXPECT_EQ(make_sequential_plan(not_increasing, 0.95).error().kind, ErrorKind::invalid_argument);
}

TEST(Sequential, ClearChangeStopsEarly) {
  const auto plan = make_sequential_plan(5, 40, 5, 0.95);
  ASSERT_TRUE(plan);
  Rng rng(1, 0);
  const RunShape shape{.runs = 40, .samples = 3, .between = 0.01, .within = 0.003};
  const Runs all_base = simulate_runs(shape, 1.0, rng);
  const Runs all_head = simulate_runs(shape, 1.2, rng);
  for (std::size_t look = 0; look < plan->runs.size(); ++look) {
    const auto count = static_cast<std::ptrdiff_t>(plan->runs[look]);
    const Runs base(all_base.begin(), all_base.begin() + count);
    const Runs head(all_head.begin(), all_head.begin() + count);
    const auto decision = decide_at_look(*plan, look, base, head);
    ASSERT_TRUE(decision) << decision.error().message;
    if (decision->next == NextStep::stop) {
      EXPECT_EQ(decision->comparison.verdict, Verdict::slower);
      EXPECT_LE(look, 2U);
      EXPECT_EQ(decision->comparison.confidence, plan->confidence[look]);
      return;
    }
    EXPECT_EQ(decision->comparison.verdict, Verdict::inconclusive);
  }
  FAIL() << "a 20% slowdown at 1% noise never stopped";
}

TEST(Sequential, LastLookStopsEvenWhenInconclusive) {
  const auto plan = make_sequential_plan(5, 10, 5, 0.95);
  ASSERT_TRUE(plan);
  Rng rng(2, 0);
  const RunShape shape{.runs = 10, .samples = 1, .between = 0.3};
  const Runs base = simulate_runs(shape, 1.0, rng);
  const Runs head = simulate_runs(shape, 1.02, rng);
  const auto early = decide_at_look(*plan, 0, Runs(base.begin(), base.begin() + 5),
                                    Runs(head.begin(), head.begin() + 5));
  ASSERT_TRUE(early);
  EXPECT_EQ(early->next, NextStep::measure_more);
  EXPECT_FALSE(early->last_look);
  const auto last = decide_at_look(*plan, 1, base, head);
  ASSERT_TRUE(last);
  EXPECT_EQ(last->next, NextStep::stop);
  EXPECT_TRUE(last->last_look);
  EXPECT_EQ(last->comparison.verdict, Verdict::inconclusive);
  EXPECT_EQ(decide_at_look(*plan, 2, base, head).error().kind, ErrorKind::invalid_argument);
}

} // namespace
} // namespace culprit::stats
