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

} // namespace culprit::stats
