#include "stats/rank_tests.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include <boost/math/distributions/complement.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "stats/error.hpp"
#include "stats/statistic.hpp"
#include "stats/summary.hpp"
#include "stats/types.hpp"
#include "stats/u_distribution.hpp"
#include "stats/validate.hpp"

namespace culprit::stats {
namespace {

constexpr std::size_t k_max_pairs = 10'000'000;

struct Ranking {
  double head_rank_sum = 0.0;
  double tie_term = 0.0; // sum of t^3 - t over groups of t tied values
  bool ties = false;
};

// Average ranks (1-based) of the combined samples.
Ranking rank(std::span<const double> base, std::span<const double> head) {
  std::vector<std::pair<double, bool>> combined; // value, is head
  combined.reserve(base.size() + head.size());
  for (const double value : base)
    combined.emplace_back(value, false);
  for (const double value : head)
    combined.emplace_back(value, true);
  std::ranges::sort(combined);
  Ranking ranking;
  for (std::size_t begin = 0; begin < combined.size();) {
    std::size_t end = begin + 1;
    while (end < combined.size() && combined[end].first == combined[begin].first)
      ++end;
    const double average_rank = static_cast<double>(begin + end + 1) / 2.0;
    for (std::size_t i = begin; i < end; ++i)
      if (combined[i].second)
        ranking.head_rank_sum += average_rank;
    const auto tied = static_cast<double>(end - begin);
    ranking.tie_term += tied * tied * tied - tied;
    ranking.ties = ranking.ties || end - begin > 1;
    begin = end;
  }
  return ranking;
}

// Standard deviation of U under the null, with the tie correction.
double u_sigma(double m, double n, double tie_term) {
  const double total = m + n;
  return std::sqrt(m * n / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0))));
}

} // namespace

Result<MannWhitney> mann_whitney(std::span<const double> base, std::span<const double> head) {
  CULPRIT_STATS_TRY(check_sample(base, "base", 2));
  CULPRIT_STATS_TRY(check_sample(head, "head", 2));
  const auto m = static_cast<double>(base.size());
  const auto n = static_cast<double>(head.size());
  const Ranking ranking = rank(base, head);
  MannWhitney result;
  result.u = ranking.head_rank_sum - (n * (n + 1.0) / 2.0);
  const double larger = std::max(result.u, (m * n) - result.u);

  if (!ranking.ties && exact_u_is_practical(base.size(), head.size())) {
    // P(U >= larger) = P(U <= mn - larger) by symmetry.
    const auto k = static_cast<std::size_t>(std::llround((m * n) - larger));
    result.exact = true;
    result.p_value = std::min(1.0, 2.0 * u_cdf(base.size(), head.size(), k).back());
    return result;
  }
  const double sigma = u_sigma(m, n, ranking.tie_term);
  if (!(sigma > 0.0)) // every value tied: no evidence of any difference
    return result;
  const double z = (larger - (m * n / 2.0) - 0.5) / sigma;
  const boost::math::normal normal;
  result.p_value = std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(normal, z)));
  return result;
}

Result<ShiftRatio> hodges_lehmann_ratio(std::span<const double> base, std::span<const double> head,
                                        double confidence) {
  CULPRIT_STATS_TRY(check_probability(confidence, "the confidence level"));
  CULPRIT_STATS_TRY(check_sample(base, "base", 2, Positivity::positive));
  CULPRIT_STATS_TRY(check_sample(head, "head", 2, Positivity::positive));
  const std::size_t pairs = base.size() * head.size();
  if (pairs > k_max_pairs)
    return fail(ErrorKind::too_large,
                "{} x {} values make too many pairs for a Hodges-Lehmann estimate; pass one "
                "summary per run instead of every sample",
                base.size(), head.size());

  std::vector<double> differences;
  differences.reserve(pairs);
  for (const double b : base)
    for (const double h : head)
      differences.push_back(std::log(h) - std::log(b));
  const auto m = static_cast<double>(base.size());
  const auto n = static_cast<double>(head.size());
  const double alpha = 1.0 - confidence;

  // k: the largest rank with P(U <= k - 1) <= alpha / 2.
  ShiftRatio result;
  std::size_t k = 0;
  const Ranking ranking = rank(base, head);
  if (!ranking.ties && exact_u_is_practical(base.size(), head.size())) {
    const std::vector<double> cdf = u_cdf(base.size(), head.size(), pairs / 2);
    while (k < cdf.size() && cdf[k] <= alpha / 2.0)
      ++k;
    result.exact = true;
  } else {
    const boost::math::normal normal;
    const double z = boost::math::quantile(boost::math::complement(normal, alpha / 2.0));
    const double bound = (m * n / 2.0) + 0.5 - (z * u_sigma(m, n, ranking.tie_term));
    k = bound < 1.0 ? 0 : static_cast<std::size_t>(std::floor(bound));
  }
  if (k < 1)
    return fail(ErrorKind::too_few,
                "{} and {} values are too few for a {}% Hodges-Lehmann interval; measure more "
                "runs",
                base.size(), head.size(), 100.0 * confidence);
  k = std::min(k, (pairs + 1) / 2);

  result.ratio = std::exp(evaluate(Statistic::median, differences));
  const auto nth = [&](std::size_t rank_index) {
    auto position = differences.begin() + static_cast<std::ptrdiff_t>(rank_index);
    std::nth_element(differences.begin(), position, differences.end());
    return *position;
  };
  result.lower = std::exp(nth(k - 1));
  result.upper = std::exp(nth(pairs - k));
  return result;
}

Result<WelchTest> welch_t_test(std::span<const double> base, std::span<const double> head) {
  CULPRIT_STATS_TRY(check_sample(base, "base", 2));
  CULPRIT_STATS_TRY(check_sample(head, "head", 2));
  const auto [base_mean, base_variance] = moments_of(base);
  const auto [head_mean, head_variance] = moments_of(head);
  const double base_term = base_variance / static_cast<double>(base.size());
  const double head_term = head_variance / static_cast<double>(head.size());
  const double variance = base_term + head_term;
  if (!(variance > 0.0))
    return fail(ErrorKind::degenerate,
                "both samples have zero variance, so Welch's t-test is undefined; compare them "
                "directly");
  WelchTest result;
  result.mean_difference = head_mean - base_mean;
  result.t = result.mean_difference / std::sqrt(variance);
  result.degrees_of_freedom = variance * variance /
                              (base_term * base_term / static_cast<double>(base.size() - 1) +
                               head_term * head_term / static_cast<double>(head.size() - 1));
  const boost::math::students_t distribution(result.degrees_of_freedom);
  result.p_value =
      2.0 * boost::math::cdf(boost::math::complement(distribution, std::abs(result.t)));
  return result;
}

} // namespace culprit::stats
