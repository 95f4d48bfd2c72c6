#include "stats/rng.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include <boost/math/special_functions/beta.hpp>
#include <gtest/gtest.h>

namespace culprit::stats {
namespace {

TEST(Rng, SameSeedAndStreamSameSequence) {
  Rng a(42, 7);
  Rng b(42, 7);
  for (int i = 0; i < 100; ++i)
    ASSERT_EQ(a.next(), b.next());
}

TEST(Rng, StreamsAndSeedsDiffer) {
  Rng a(42, 7);
  Rng b(42, 8);
  Rng c(43, 7);
  Rng d(43, 6);
  int same = 0;
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next();
    same += static_cast<int>(x == b.next()) + static_cast<int>(x == c.next());
    same += static_cast<int>(c.next() == d.next());
  }
  EXPECT_EQ(same, 0);
}

TEST(Rng, IndexIsUniformAndInRange) {
  Rng rng(1, 0);
  constexpr std::size_t k_bound = 7;
  constexpr int k_draws = 70'000;
  std::vector<int> counts(k_bound, 0);
  for (int i = 0; i < k_draws; ++i) {
    const std::size_t index = rng.index(k_bound);
    ASSERT_LT(index, k_bound);
    ++counts[index];
  }
  // Chi-square with 6 degrees of freedom: 22.5 is its 0.999 quantile.
  double chi_square = 0.0;
  const double expected = static_cast<double>(k_draws) / k_bound;
  for (const int count : counts)
    chi_square += (count - expected) * (count - expected) / expected;
  EXPECT_LT(chi_square, 22.5);
}

struct Moments {
  double mean = 0.0;
  double variance = 0.0;
};

template <class Draw> Moments moments(Draw draw, int count) {
  double sum = 0.0;
  double squares = 0.0;
  for (int i = 0; i < count; ++i) {
    const double x = draw();
    sum += x;
    squares += x * x;
  }
  const double mean = sum / count;
  return Moments{mean, squares / count - mean * mean};
}

// Tolerances are five standard errors of the estimated moments.
TEST(Rng, VariatesHaveTheRightMoments) {
  Rng rng(3, 0);
  constexpr int k_count = 200'000;
  const auto uniform = moments([&] { return rng.uniform(); }, k_count);
  EXPECT_NEAR(uniform.mean, 0.5, 5 * std::sqrt(1.0 / 12 / k_count));
  EXPECT_NEAR(uniform.variance, 1.0 / 12, 0.002);

  const auto normal = moments([&] { return rng.normal(); }, k_count);
  EXPECT_NEAR(normal.mean, 0.0, 5 * std::sqrt(1.0 / k_count));
  EXPECT_NEAR(normal.variance, 1.0, 5 * std::sqrt(2.0 / k_count));

  for (const double shape : {0.3, 1.0, 2.5, 500.0}) {
    const auto gamma = moments([&] { return rng.gamma(shape); }, k_count);
    EXPECT_NEAR(gamma.mean, shape, 5 * std::sqrt(shape / k_count)) << shape;
    EXPECT_NEAR(gamma.variance / shape, 1.0, 0.05) << shape;
  }

  for (const auto& [a, b] : {std::pair{1.0, 9.0}, {500.0, 501.0}, {3.0, 1.0}, {2.0, 5.0}}) {
    const auto beta = moments([&] { return rng.beta(a, b); }, k_count);
    const double mean = a / (a + b);
    const double variance = a * b / ((a + b) * (a + b) * (a + b + 1));
    EXPECT_NEAR(beta.mean, mean, 5 * std::sqrt(variance / k_count)) << a << ", " << b;
    EXPECT_NEAR(beta.variance / variance, 1.0, 0.05) << a << ", " << b;
  }
}

// The k-th of n uniforms is Beta(k, n + 1 - k), drawn directly up to 16 uniforms and by beta()
// beyond: the Kolmogorov-Smirnov distance of 20,000 draws from the Beta CDF (Boost's regularized
// incomplete beta) stays under the 0.1% critical value, 1.95 / sqrt(20,000). A k one off (Beta(2,
// 4) for the 3rd of 5) is 0.17 away.
TEST(Rng, OrderStatisticsAreBetaDistributed) {
  constexpr std::size_t k_count = 20'000;
  const double critical = 1.95 / std::sqrt(static_cast<double>(k_count));
  for (const auto& [k, n] : {std::pair<std::size_t, std::size_t>{3, 5},
                             {1, 4},
                             {4, 4},
                             {2, 7},
                             {8, 16},
                             {9, 17},
                             {20, 40}}) {
    Rng rng(11, k * 100 + n);
    std::vector<double> draws(k_count);
    for (auto& draw : draws) {
      draw = rng.order_statistic(k, n);
      ASSERT_GE(draw, 0.0);
      ASSERT_LT(draw, 1.0);
    }
    std::ranges::sort(draws);
    const auto a = static_cast<double>(k);
    const auto b = static_cast<double>(n + 1 - k);
    double distance = 0;
    for (std::size_t i = 0; i < k_count; ++i) {
      const double cdf = boost::math::ibeta(a, b, draws[i]);
      distance = std::max({distance, cdf - (static_cast<double>(i) / k_count),
                           (static_cast<double>(i + 1) / k_count) - cdf});
    }
    EXPECT_LT(distance, critical) << "k " << k << " of n " << n;
  }
}

TEST(Rng, UniformOpenNeverHitsTheEnds) {
  Rng rng(5, 0);
  for (int i = 0; i < 100'000; ++i) {
    const double u = rng.uniform_open();
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

} // namespace
} // namespace culprit::stats
