#include "stats/rank_tests.hpp"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "stats/error.hpp"
#include "stats/u_distribution.hpp"
#include "tests/stats/reference.hpp"

namespace culprit::stats {
namespace {

using testing::dataset;
using testing::reference;

TEST(RankTests, MannWhitneyAgreesWithScipy) {
  for (const auto& expected : reference().at("mann_whitney")) {
    const std::string base = expected.at("base");
    const std::string head = expected.at("head");
    SCOPED_TRACE(base + " vs " + head);
    const auto test = mann_whitney(dataset(base), dataset(head));
    ASSERT_TRUE(test) << test.error().message;
    EXPECT_DOUBLE_EQ(test->u, expected.at("u").get<double>());
    EXPECT_NEAR(test->p_value, expected.at("p_value").get<double>(),
                1e-10 * expected.at("p_value").get<double>());
  }
}

TEST(RankTests, MannWhitneyIsExactOnlyForSmallSamplesWithoutTies) {
  EXPECT_TRUE(mann_whitney(dataset("small_8"), dataset("small_6_faster"))->exact);
  EXPECT_TRUE(mann_whitney(dataset("small_8"), dataset("lognormal_30"))->exact);
  EXPECT_FALSE(mann_whitney(dataset("lognormal_30"), dataset("lognormal_25_slower"))->exact);
  EXPECT_FALSE(mann_whitney(dataset("constant_5"), dataset("constant_6"))->exact);
}

TEST(RankTests, ExactDistributionOfSmallSamples) {
  // m = n = 2: the 6 arrangements give U = 0, 1, 2, 2, 3, 4.
  const auto cdf = u_cdf(2, 2, 4);
  const std::vector<double> expected{1.0 / 6, 2.0 / 6, 4.0 / 6, 5.0 / 6, 1.0};
  for (std::size_t k = 0; k < expected.size(); ++k)
    EXPECT_NEAR(cdf[k], expected[k], 1e-15) << k;
  // m = 3, n = 5: P(U = 0) = 1 / C(8, 3) = 1/56; by symmetry P(U <= 7) = 1/2.
  const auto larger = u_cdf(3, 5, 7);
  EXPECT_NEAR(larger[0], 1.0 / 56, 1e-15);
  EXPECT_NEAR(larger[7], 0.5, 1e-15);
}

TEST(RankTests, WelchAgreesWithScipy) {
  for (const auto& expected : reference().at("welch")) {
    const std::string base = expected.at("base");
    const std::string head = expected.at("head");
    SCOPED_TRACE(base + " vs " + head);
    const auto test = welch_t_test(dataset(base), dataset(head));
    ASSERT_TRUE(test) << test.error().message;
    EXPECT_NEAR(test->t, expected.at("t").get<double>(), 1e-10 * std::abs(test->t));
    EXPECT_NEAR(test->degrees_of_freedom, expected.at("df").get<double>(), 1e-9);
    EXPECT_NEAR(test->p_value, expected.at("p_value").get<double>(),
                1e-9 * expected.at("p_value").get<double>());
  }
}

// The reference intervals come from inverting scipy's Mann-Whitney test: the shifts it does not
// reject at level 1 - c. Both ends are differences of the data, so they match exactly.
TEST(RankTests, HodgesLehmannAgreesWithInvertingScipysTest) {
  for (const auto& expected : reference().at("hodges_lehmann")) {
    const std::string base = expected.at("base");
    const double confidence = expected.at("confidence");
    SCOPED_TRACE(base + " " + std::to_string(confidence));
    const auto shift =
        hodges_lehmann_ratio(dataset(base), dataset(expected.at("head")), confidence);
    ASSERT_TRUE(shift) << shift.error().message;
    EXPECT_NEAR(shift->ratio, expected.at("ratio").get<double>(), 1e-12);
    EXPECT_NEAR(shift->lower, expected.at("lower").get<double>(), 1e-12);
    EXPECT_NEAR(shift->upper, expected.at("upper").get<double>(), 1e-12);
  }
}

TEST(RankTests, HodgesLehmannIsARatio) {
  const std::vector<double> base{1.0, 1.1, 0.9, 1.05, 0.95, 1.02};
  std::vector<double> head;
  for (const double value : base)
    head.push_back(1.2 * value);
  const auto shift = hodges_lehmann_ratio(base, head);
  ASSERT_TRUE(shift);
  EXPECT_NEAR(shift->ratio, 1.2, 1e-12);
  EXPECT_LE(shift->lower, 1.2);
  EXPECT_GE(shift->upper, 1.2);
}

TEST(RankTests, BadInputIsAnError) {
  const std::vector<double> two{1.0, 2.0};
  EXPECT_EQ(mann_whitney(std::vector<double>{}, two).error().kind, ErrorKind::empty);
  EXPECT_EQ(mann_whitney(std::vector<double>{1.0}, two).error().kind, ErrorKind::too_few);
  EXPECT_EQ(welch_t_test(two, std::vector<double>{std::nan(""), 1.0}).error().kind,
            ErrorKind::non_finite);
  EXPECT_EQ(welch_t_test(std::vector<double>{1.0, 1.0}, std::vector<double>{2.0, 2.0}).error().kind,
            ErrorKind::degenerate);
  EXPECT_EQ(hodges_lehmann_ratio(two, std::vector<double>{0.0, 1.0}).error().kind,
            ErrorKind::non_positive);
  // Two values a side cannot make a 95% interval: P(U = 0) = 1/6.
  EXPECT_EQ(hodges_lehmann_ratio(two, std::vector<double>{3.0, 4.0}).error().kind,
            ErrorKind::too_few);
  EXPECT_EQ(hodges_lehmann_ratio(two, two, 1.0).error().kind, ErrorKind::invalid_argument);
  EXPECT_EQ(hodges_lehmann_ratio(std::vector<double>(4000, 1.0), std::vector<double>(4000, 1.0))
                .error()
                .kind,
            ErrorKind::too_large);
}

} // namespace
} // namespace culprit::stats
