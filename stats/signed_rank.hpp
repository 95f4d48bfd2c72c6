#pragma once
// One-sample rank methods for paired differences d_i (in the drivers: log(head / base) of the two
// runs of one interleaved block).
//
// Wilcoxon signed-rank test (Wilcoxon, Biometrics Bulletin 1945) of "the d_i are symmetric about
// 0", two-sided. Zero differences are dropped (Wilcoxon's own rule, scipy's zero_method="wilcox").
// W+ is the sum of the ranks of |d_i| over the positive d_i, ties taking average ranks. With at
// most 50 differences, none tied or zero, the p-value comes from the exact null distribution of
// W+; otherwise from the normal approximation with the tie correction and without a continuity
// correction. This is the rule of scipy.stats.wilcoxon(method="auto") in scipy 1.10, and the
// results agree with it.
//
// Hodges-Lehmann one-sample estimate (Hodges & Lehmann, Ann. Math. Statist. 1963): the median of
// the n (n + 1) / 2 Walsh averages (d_i + d_j) / 2, i <= j, with the distribution-free interval
// [A_(k), A_(N + 1 - k)] of the ordered averages, k the smallest count with P(W+ <= k) > alpha / 2
// under the null (Hollander & Wolfe, "Nonparametric Statistical Methods", 1999, section 3.3): the
// set of shifts the signed-rank test does not reject. Its coverage is exact whenever the d_i are
// independent and symmetric about their centre, which holds for the difference of two runs whose
// noise is exchangeable, whatever the shape of that noise. With too few differences for the level
// asked (n differences reach at most 1 - 2^(1 - n)), the interval is the whole range of the data
// and its `confidence` says what level it really has.

#include <cstddef>
#include <span>
#include <vector>

#include "stats/error.hpp"

namespace culprit::stats {

// Differences up to this many, without ties or zeros, get the exact distribution.
constexpr std::size_t k_exact_signed_rank = 50;

// The fewest differences whose rank interval reaches `confidence` (in (0, 1)): the smallest n with
// 1 - 2^(1 - n) >= confidence (6 for 95%, 8 for 99%).
std::size_t pairs_reaching(double confidence);

// P(W+ <= k) for k = 0..n(n+1)/2, for n differences without ties: the recursion
// p_n(k) = (p_(n-1)(k) + p_(n-1)(k - n)) / 2 over the probability of each rank sum.
std::vector<double> signed_rank_cdf(std::size_t n);

struct SignedRank {
  double w_plus = 0.0;     // sum of the ranks of the positive differences
  std::size_t nonzero = 0; // differences that are not zero: those ranked
  double p_value = 1.0;    // two-sided
  bool exact = false;
};

// Needs at least one finite difference; all zero gives p = 1.
Result<SignedRank> signed_rank_test(std::span<const double> differences);

struct LocationInterval {
  double estimate = 0.0; // median of the Walsh averages
  double lower = 0.0;
  double upper = 0.0;
  double confidence = 0.0; // the level the interval has: the one asked, or less with too few data
  bool exact = false;
};

// Needs at least two finite differences; confidence in (0, 1). At most 10^7 Walsh averages.
Result<LocationInterval> hodges_lehmann_location(std::span<const double> differences,
                                                 double confidence);

} // namespace culprit::stats
