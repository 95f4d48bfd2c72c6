#pragma once
// The two-sample rank test. base and head are independent samples (in the drivers: one value per
// run, e.g. each run's median, because runs are the independent unit).
//
// Mann-Whitney U (Mann & Whitney, Ann. Math. Statist. 1947), two-sided. The exact null
// distribution when there are no ties and the smaller sample has at most 8 values (and the
// larger at most 1000); otherwise the normal approximation with the tie correction and a
// continuity correction. This is the rule of scipy.stats.mannwhitneyu(method="auto"), and the
// results agree with it.

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

} // namespace culprit::stats
