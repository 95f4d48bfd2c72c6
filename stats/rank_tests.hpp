#pragma once
// Two-sample tests and shift estimates. base and head are independent samples (in the drivers:
// one value per run, e.g. each run's median, because runs are the independent unit).
//
// Mann-Whitney U (Mann & Whitney, Ann. Math. Statist. 1947), two-sided. The exact null
// distribution when there are no ties and the smaller sample has at most 8 values (and the
// larger at most 1000); otherwise the normal approximation with the tie correction and a
// continuity correction. This is the rule of scipy.stats.mannwhitneyu(method="auto"), and the
// results agree with it.
//
// Hodges-Lehmann shift (Hodges & Lehmann, Ann. Math. Statist. 1963) on the log scale: the
// median of the m n differences log(head_j) - log(base_i), reported as the ratio exp(median),
// with the distribution-free interval [D_(k), D_(mn+1-k)] of the ordered differences, k from
// the null distribution of U (exact under the same rule as above, else the normal approximation
// with continuity correction: k = floor(mn/2 + 1/2 - z sigma_U)); Lehmann, "Nonparametrics",
// 1975, section 2.6.
//
// Welch's t-test (Welch, Biometrika 1947): unequal variances, Welch-Satterthwaite degrees of
// freedom; agrees with scipy.stats.ttest_ind(head, base, equal_var=False).

#include <span>

#include "stats/error.hpp"

namespace culprit::stats {

struct MannWhitney {
  // Pairs (base_i, head_j) with head_j > base_i, ties counting one half: large when head is
  // larger. scipy's statistic for mannwhitneyu(head, base).
  double u = 0.0;
  double p_value = 1.0; // two-sided
  bool exact = false;
};

// Each sample needs at least two finite values.
Result<MannWhitney> mann_whitney(std::span<const double> base, std::span<const double> head);

struct ShiftRatio {
  double ratio = 1.0; // exp(Hodges-Lehmann estimate of log(head) - log(base))
  double lower = 1.0;
  double upper = 1.0;
  bool exact = false; // interval from the exact null distribution of U
};

// Positive values; the samples must be large enough for the confidence asked (with 95%, two
// values on each side are too few: 3 and 3 suffice). At most 10^7 pairs.
Result<ShiftRatio> hodges_lehmann_ratio(std::span<const double> base, std::span<const double> head,
                                        double confidence = 0.95);

struct WelchTest {
  double t = 0.0; // (mean(head) - mean(base)) / standard error
  double degrees_of_freedom = 0.0;
  double p_value = 1.0; // two-sided
  double mean_difference = 0.0;
};

// Each sample needs at least two finite values, and not both with zero variance.
Result<WelchTest> welch_t_test(std::span<const double> base, std::span<const double> head);

} // namespace culprit::stats
