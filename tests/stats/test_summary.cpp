#include "stats/summary.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "stats/error.hpp"
#include "tests/stats/reference.hpp"

namespace culprit::stats {
namespace {

using testing::dataset;
using testing::reference;

constexpr double k_relative = 1e-12;

TEST(Summary, MatchesNumpyAndScipy) {
  for (const auto& expected : reference().at("summaries")) {
    const std::string name = expected.at("data");
    SCOPED_TRACE(name);
    const std::vector<double> values = dataset(name);
    const auto summary = summarize(values);
    ASSERT_TRUE(summary) << summary.error().message;
    const auto near = [](double ours, double theirs) {
      EXPECT_NEAR(ours, theirs, k_relative * std::abs(theirs) + 1e-300);
    };
    near(summary->mean, expected.at("mean"));
    near(summary->median, expected.at("median"));
    near(summary->standard_deviation, expected.at("std"));
    near(summary->mad, expected.at("mad"));
    near(summary->iqr, expected.at("iqr"));
    near(summary->min, expected.at("min"));
    near(summary->max, expected.at("max"));
    ASSERT_TRUE(summary->coefficient_of_variation);
    near(*summary->coefficient_of_variation, expected.at("cv"));
    for (const auto& pair : expected.at("quantiles")) {
      const auto q = quantile(values, pair[0].get<double>());
      ASSERT_TRUE(q);
      near(*q, pair[1].get<double>());
    }
  }
}

TEST(Summary, TukeyFencesMatchTheReference) {
  for (const auto& expected : reference().at("summaries")) {
    const std::string name = expected.at("data");
    SCOPED_TRACE(name);
    const auto outliers = classify_outliers(dataset(name));
    ASSERT_TRUE(outliers);
    EXPECT_EQ(outliers->mild, expected.at("mild").get<std::vector<std::size_t>>());
    EXPECT_EQ(outliers->severe, expected.at("severe").get<std::vector<std::size_t>>());
  }
}

TEST(Summary, OutliersAreReportedNotDropped) {
  const std::vector<double> values{10, 10.1, 9.9, 10.05, 9.95, 10.02, 10.6, 30};
  const auto outliers = classify_outliers(values);
  ASSERT_TRUE(outliers);
  EXPECT_EQ(outliers->severe, std::vector<std::size_t>{7});
  EXPECT_EQ(outliers->mild, std::vector<std::size_t>{6});
  const auto summary = summarize(values);
  ASSERT_TRUE(summary);
  EXPECT_EQ(summary->count, values.size());
  EXPECT_EQ(summary->max, 30.0);
}

TEST(Summary, ZeroMeanHasNoCoefficientOfVariation) {
  const auto summary = summarize(std::vector<double>{-1.0, 1.0});
  ASSERT_TRUE(summary);
  EXPECT_FALSE(summary->coefficient_of_variation);
}

TEST(Summary, AllEqualValuesHaveZeroSpread) {
  const auto summary = summarize(std::vector<double>(7, 2.5));
  ASSERT_TRUE(summary);
  EXPECT_EQ(summary->standard_deviation, 0.0);
  EXPECT_EQ(summary->mad, 0.0);
  EXPECT_EQ(summary->iqr, 0.0);
  EXPECT_EQ(*summary->coefficient_of_variation, 0.0);
  const auto outliers = classify_outliers(std::vector<double>(7, 2.5));
  ASSERT_TRUE(outliers);
  EXPECT_TRUE(outliers->mild.empty());
  EXPECT_TRUE(outliers->severe.empty());
}

TEST(Summary, BadInputIsAnError) {
  EXPECT_EQ(summarize(std::vector<double>{}).error().kind, ErrorKind::empty);
  EXPECT_EQ(summarize(std::vector<double>{1.0}).error().kind, ErrorKind::too_few);
  EXPECT_EQ(standard_deviation(std::vector<double>{1.0}).error().kind, ErrorKind::too_few);
  EXPECT_EQ(median(std::vector<double>{}).error().kind, ErrorKind::empty);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(mean(std::vector<double>{1.0, nan}).error().kind, ErrorKind::non_finite);
  EXPECT_EQ(summarize(std::vector<double>{1.0, inf}).error().kind, ErrorKind::non_finite);
  EXPECT_EQ(quantile(std::vector<double>{1.0, 2.0}, 1.5).error().kind, ErrorKind::invalid_argument);
  EXPECT_EQ(quantile(std::vector<double>{1.0, 2.0}, nan).error().kind, ErrorKind::invalid_argument);
  const auto error = mean(std::vector<double>{1.0, nan}).error();
  EXPECT_NE(error.message.find("value 1"), std::string::npos) << error.message;
}

TEST(Summary, SingleValueStatisticsThatAreDefinedWork) {
  EXPECT_EQ(*median(std::vector<double>{4.0}), 4.0);
  EXPECT_EQ(*mean(std::vector<double>{4.0}), 4.0);
  EXPECT_EQ(*quantile(std::vector<double>{4.0}, 0.9), 4.0);
}

} // namespace
} // namespace culprit::stats
