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

TEST(RankTests, BadInputIsAnError) {
  const std::vector<double> two{1.0, 2.0};
  EXPECT_EQ(mann_whitney(std::vector<double>{}, two).error().kind, ErrorKind::empty);
  EXPECT_EQ(mann_whitney(std::vector<double>{1.0}, two).error().kind, ErrorKind::too_few);
}

} // namespace
} // namespace culprit::stats
