#include <gtest/gtest.h>

#include <vector>

#include "core/report/svg.hpp"

namespace culprit::report::svg {
namespace {

TEST(NiceTicks, AreWholeMultiplesOfAOneTwoFiveStepInsideTheRange) {
  const auto ticks = nice_ticks(0.0, 1.0, 5);
  ASSERT_EQ(ticks.size(), 6U);
  for (std::size_t i = 0; i < ticks.size(); ++i)
    EXPECT_DOUBLE_EQ(ticks[i], 0.2 * static_cast<double>(i));

  const auto narrow = nice_ticks(0.93, 1.12, 4);
  ASSERT_EQ(narrow.size(), 4U);
  EXPECT_DOUBLE_EQ(narrow.front(), 0.95);
  EXPECT_DOUBLE_EQ(narrow.back(), 1.10);
}

TEST(NiceTicks, ZeroIsExactlyZeroWhenTheRangeCrossesIt) {
  const auto ticks = nice_ticks(-0.3, 0.3, 6);
  ASSERT_FALSE(ticks.empty());
  bool has_zero = false;
  for (const double t : ticks)
    has_zero = has_zero || t == 0.0;
  EXPECT_TRUE(has_zero);
}

TEST(NiceTicks, ARangeNarrowerThanItsValuesPrecisionGetsOneTickAndEnds) {
  // At 1e16 adjacent doubles are 2 apart: adding a step of 1 to a tick left it where it was.
  EXPECT_EQ(nice_ticks(1e16, 1e16 + 4.0, 5), std::vector<double>{1e16});
  // Near the limit of precision the ticks still end, and stay inside the range.
  const auto fine = nice_ticks(1.0, 1.0 + 1e-15, 5);
  ASSERT_FALSE(fine.empty());
  EXPECT_LE(fine.size(), 6U);
  EXPECT_GE(fine.front(), 1.0);
  EXPECT_LE(fine.back(), 1.0 + 1e-15);
}

TEST(NiceTicks, DegenerateRangesGetTheOneTick) {
  EXPECT_EQ(nice_ticks(2.0, 2.0, 5), std::vector<double>{2.0});
  EXPECT_EQ(nice_ticks(3.0, 1.0, 5), std::vector<double>{3.0});
  EXPECT_EQ(nice_ticks(0.0, 1.0, 0), std::vector<double>{0.0});
}

} // namespace
} // namespace culprit::report::svg
