#include "stats/fdr.hpp"

#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include "stats/error.hpp"
#include "tests/stats/reference.hpp"

namespace culprit::stats {
namespace {

TEST(Fdr, BenjaminiHochbergMatchesTheReference) {
  for (const auto& expected : testing::reference().at("fdr")) {
    const auto p_values = expected.at("p_values").get<std::vector<double>>();
    const auto control = benjamini_hochberg(p_values, expected.at("q").get<double>());
    ASSERT_TRUE(control) << control.error().message;
    const auto adjusted = expected.at("adjusted").get<std::vector<double>>();
    ASSERT_EQ(control->adjusted.size(), adjusted.size());
    for (std::size_t i = 0; i < adjusted.size(); ++i)
      EXPECT_NEAR(control->adjusted[i], adjusted[i], 1e-14) << i;
    EXPECT_EQ(control->discoveries, expected.at("discoveries").get<std::vector<std::size_t>>());
  }
}

TEST(Fdr, StepUpRejectsMoreThanBonferroni) {
  // Every p_(i) <= i q / m: all five are discoveries, though only one passes Bonferroni.
  const std::vector<double> p_values{0.01, 0.02, 0.03, 0.04, 0.05};
  const auto control = benjamini_hochberg(p_values, 0.05);
  ASSERT_TRUE(control);
  EXPECT_EQ(control->discoveries.size(), 5U);
}

TEST(Fdr, BadInputIsAnError) {
  EXPECT_EQ(benjamini_hochberg(std::vector<double>{}, 0.05).error().kind, ErrorKind::empty);
  EXPECT_EQ(benjamini_hochberg(std::vector<double>{0.1, 1.5}, 0.05).error().kind,
            ErrorKind::invalid_argument);
  EXPECT_EQ(benjamini_hochberg(std::vector<double>{0.1, std::nan("")}, 0.05).error().kind,
            ErrorKind::invalid_argument);
  EXPECT_EQ(benjamini_hochberg(std::vector<double>{0.1}, 0.0).error().kind,
            ErrorKind::invalid_argument);
}

} // namespace
} // namespace culprit::stats
