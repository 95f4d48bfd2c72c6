#include "stats/signed_rank.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "stats/rng.hpp"
#include "tests/stats/paired_reference.hpp"

namespace culprit::stats {
namespace {

using testing::differences;
using testing::paired_reference;

TEST(SignedRank, AgreesWithScipyOnEveryReferenceData) {
  for (const auto& c : paired_reference().at("signed_rank")) {
    const auto name = c.at("data").get<std::string>();
    const auto test = signed_rank_test(differences(name));
    ASSERT_TRUE(test) << name << ": " << test.error().message;
    EXPECT_DOUBLE_EQ(test->w_plus, c.at("w_plus").get<double>()) << name;
    EXPECT_NEAR(test->p_value, c.at("p_value").get<double>(),
                1e-9 + (1e-9 * c.at("p_value").get<double>()))
        << name;
  }
}

TEST(SignedRank, TheFewestDifferencesThatReachALevel) {
  EXPECT_EQ(pairs_reaching(0.95), 6U); // 1 - 2^-4 = 0.9375 < 0.95 <= 1 - 2^-5
  EXPECT_EQ(pairs_reaching(0.99), 8U);
  EXPECT_EQ(pairs_reaching(0.9375), 5U);
  EXPECT_EQ(pairs_reaching(0.5), 2U);
}

TEST(SignedRank, ExactDistributionOfThreeDifferences) {
  // Rank sums of {1, 2, 3}: 0,1,2,3,3,4,5,6, each with probability 1/8.
  const auto cdf = signed_rank_cdf(3);
  const std::vector<double> expected = {1, 2, 3, 5, 6, 7, 8};
  ASSERT_EQ(cdf.size(), expected.size());
  for (std::size_t k = 0; k < cdf.size(); ++k)
    EXPECT_DOUBLE_EQ(cdf[k], expected[k] / 8.0) << k;
}

TEST(SignedRank, AllZeroDifferencesAreNoEvidence) {
  const std::vector<double> zeros(6, 0.0);
  const auto test = signed_rank_test(zeros);
  ASSERT_TRUE(test);
  EXPECT_EQ(test->nonzero, 0U);
  EXPECT_DOUBLE_EQ(test->p_value, 1.0);
}

TEST(SignedRank, RefusesNonFiniteDifferences) {
  const std::vector<double> bad = {0.1, std::nan(""), 0.2};
  EXPECT_FALSE(signed_rank_test(bad));
}

TEST(HodgesLehmannLocation, IntervalIsTheSetScipysTestDoesNotReject) {
  for (const auto& c : paired_reference().at("location")) {
    const auto name = c.at("data").get<std::string>();
    const double confidence = c.at("confidence").get<double>();
    const auto interval = hodges_lehmann_location(differences(name), confidence);
    ASSERT_TRUE(interval) << name << ": " << interval.error().message;
    EXPECT_NEAR(interval->estimate, c.at("estimate").get<double>(), 1e-12) << name;
    EXPECT_NEAR(interval->lower, c.at("lower").get<double>(), 1e-12) << name << " " << confidence;
    EXPECT_NEAR(interval->upper, c.at("upper").get<double>(), 1e-12) << name << " " << confidence;
    EXPECT_GE(interval->confidence, confidence - 1e-3) << name;
  }
}

TEST(HodgesLehmannLocation, TooFewDifferencesGiveTheWholeRangeAtTheLevelItHas) {
  const std::vector<double> four = {0.01, 0.03, 0.02, 0.05};
  const auto interval = hodges_lehmann_location(four, 0.95);
  ASSERT_TRUE(interval);
  EXPECT_DOUBLE_EQ(interval->lower, 0.01);
  EXPECT_DOUBLE_EQ(interval->upper, 0.05);
  EXPECT_DOUBLE_EQ(interval->confidence, 1.0 - (2.0 / 16.0)); // 4 differences: 87.5% at most
}

TEST(HodgesLehmannLocation, ExactCoverageBySimulation) {
  // Differences of two exchangeable runs are symmetric whatever the noise: skewed noise here.
  Rng rng(42, 0);
  int covered = 0;
  constexpr int k_trials = 2000;
  for (int trial = 0; trial < k_trials; ++trial) {
    std::vector<double> d(12);
    for (double& value : d)
      value = 0.05 +
              (std::log(-std::log(rng.uniform_open())) - std::log(-std::log(rng.uniform_open())));
    const auto interval = hodges_lehmann_location(d, 0.95);
    ASSERT_TRUE(interval);
    covered += interval->lower <= 0.05 && 0.05 <= interval->upper ? 1 : 0;
  }
  const double coverage = static_cast<double>(covered) / k_trials;
  EXPECT_GE(coverage, 0.93);
  EXPECT_LE(coverage, 0.97);
}

} // namespace
} // namespace culprit::stats
