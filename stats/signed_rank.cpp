#include "stats/signed_rank.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include <boost/math/distributions/complement.hpp>
#include <boost/math/distributions/normal.hpp>

#include "stats/error.hpp"
#include "stats/validate.hpp"

namespace culprit::stats {
namespace {

constexpr std::size_t k_max_walsh_averages = 10'000'000;

struct AbsoluteRanks {
  double w_plus = 0.0;
  double tie_term = 0.0; // sum of t^3 - t over groups of t tied |d|
  bool ties = false;
  std::size_t nonzero = 0;
};

// Ranks of |d| over the nonzero d, ties averaged.
AbsoluteRanks rank_absolute(std::span<const double> differences) {
  std::vector<std::pair<double, bool>> ranked; // |d|, d > 0
  for (const double d : differences)
    if (d != 0.0)
      ranked.emplace_back(std::abs(d), d > 0.0);
  std::ranges::sort(ranked);
  AbsoluteRanks ranks;
  ranks.nonzero = ranked.size();
  for (std::size_t begin = 0; begin < ranked.size();) {
    std::size_t end = begin + 1;
    while (end < ranked.size() && ranked[end].first == ranked[begin].first)
      ++end;
    const double average_rank = static_cast<double>(begin + end + 1) / 2.0;
    for (std::size_t i = begin; i < end; ++i)
      if (ranked[i].second)
        ranks.w_plus += average_rank;
    const auto tied = static_cast<double>(end - begin);
    ranks.tie_term += tied * tied * tied - tied;
    ranks.ties = ranks.ties || end - begin > 1;
    begin = end;
  }
  return ranks;
}

// Standard deviation of W+ under the null for n ranked differences, with the tie correction.
double w_sigma(double n, double tie_term) {
  return std::sqrt((n * (n + 1.0) * (2.0 * n + 1.0) / 24.0) - (tie_term / 48.0));
}

} // namespace

std::vector<double> signed_rank_cdf(std::size_t n) {
  const std::size_t max_sum = n * (n + 1) / 2;
  std::vector<double> probability(max_sum + 1, 0.0);
  probability[0] = 1.0;
  std::size_t reach = 0;
  for (std::size_t rank = 1; rank <= n; ++rank) {
    reach += rank;
    for (std::size_t sum = reach + 1; sum-- > 0;)
      probability[sum] = (probability[sum] + (sum >= rank ? probability[sum - rank] : 0.0)) / 2.0;
  }
  for (std::size_t sum = 1; sum <= max_sum; ++sum)
    probability[sum] += probability[sum - 1];
  for (double& p : probability)
    p = std::min(p, 1.0);
  return probability;
}

Result<SignedRank> signed_rank_test(std::span<const double> differences) {
  CULPRIT_STATS_TRY(check_sample(differences, "differences", 1));
  const AbsoluteRanks ranks = rank_absolute(differences);
  SignedRank result;
  result.w_plus = ranks.w_plus;
  result.nonzero = ranks.nonzero;
  if (ranks.nonzero == 0)
    return result;
  const auto n = static_cast<double>(ranks.nonzero);
  const double mean = n * (n + 1.0) / 4.0;
  const bool zeros = ranks.nonzero != differences.size();
  if (!ranks.ties && !zeros && ranks.nonzero <= k_exact_signed_rank) {
    const auto cdf = signed_rank_cdf(ranks.nonzero);
    const auto w = static_cast<std::size_t>(std::llround(ranks.w_plus));
    const auto smaller = std::min(w, (cdf.size() - 1) - w); // by symmetry
    result.exact = true;
    result.p_value = std::min(1.0, 2.0 * cdf[smaller]);
    return result;
  }
  const double sigma = w_sigma(n, ranks.tie_term);
  if (!(sigma > 0.0))
    return result;
  const double z = std::abs(ranks.w_plus - mean) / sigma;
  const boost::math::normal normal;
  result.p_value = std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(normal, z)));
  return result;
}

Result<LocationInterval> hodges_lehmann_location(std::span<const double> differences,
                                                 double confidence) {
  CULPRIT_STATS_TRY(check_probability(confidence, "the confidence level"));
  CULPRIT_STATS_TRY(check_sample(differences, "differences", 2));
  const std::size_t n = differences.size();
  const std::size_t count = n * (n + 1) / 2;
  if (count > k_max_walsh_averages)
    return fail(ErrorKind::too_large,
                "{} differences make too many Walsh averages for a Hodges-Lehmann estimate; "
                "compare fewer pairs at a time",
                n);
  std::vector<double> averages;
  averages.reserve(count);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i; j < n; ++j)
      averages.push_back((differences[i] + differences[j]) / 2.0);
  std::ranges::sort(averages);

  LocationInterval result;
  const std::size_t half = count / 2;
  result.estimate = count % 2 == 1 ? averages[half] : (averages[half - 1] + averages[half]) / 2.0;

  // k: the smallest count with P(W+ <= k) > alpha / 2; the interval drops k averages at each end.
  const double alpha = 1.0 - confidence;
  const AbsoluteRanks ranks = rank_absolute(differences);
  std::size_t k = 0;
  // The level of the interval that drops k averages at each end: 1 - 2 P(W+ <= k - 1).
  std::function<double(std::size_t)> level;
  if (!ranks.ties && n <= k_exact_signed_rank) {
    auto cdf = signed_rank_cdf(n);
    while (k < half && cdf[k] <= alpha / 2.0)
      ++k;
    level = [cdf = std::move(cdf)](std::size_t drop) {
      return drop == 0 ? 1.0 : 1.0 - (2.0 * cdf[drop - 1]);
    };
    result.exact = true;
  } else {
    const boost::math::normal normal;
    const double z = boost::math::quantile(boost::math::complement(normal, alpha / 2.0));
    const double sigma = w_sigma(static_cast<double>(n), ranks.tie_term);
    const double centre = static_cast<double>(count) / 2.0;
    // The test without continuity correction rejects when W+ <= centre - z sigma: keep the
    // counts above that bound.
    const double bound = centre - (z * sigma);
    k = bound < 0.0 ? 0 : std::min(half, static_cast<std::size_t>(std::floor(bound)) + 1);
    level = [=](std::size_t drop) {
      const double below = static_cast<double>(drop) - 0.5 - centre;
      return 1.0 - (2.0 * boost::math::cdf(normal, below / sigma));
    };
  }
  // With too few differences for the level asked (k = 0), the interval is the whole range of
  // the averages, at the level that range has.
  const std::size_t drop = std::max<std::size_t>(k, 1);
  result.lower = averages[drop - 1];
  result.upper = averages[count - drop];
  result.confidence = level(drop);
  return result;
}

std::size_t pairs_reaching(double confidence) {
  std::size_t n = 1;
  while (n < 64 && 1.0 - std::ldexp(1.0, 1 - static_cast<int>(n)) < confidence)
    ++n;
  return n;
}

} // namespace culprit::stats
