#pragma once
// Change points in a series (e.g. per-commit medians): E-divisive with means (Matteson &
// James, "A nonparametric approach for multiple change point analysis of multivariate data",
// JASA 2014), the method of MongoDB's and Apache Otava's performance CI work (Daly et al.,
// "The use of change point detection to identify software performance regressions in a
// continuous integration system", ICPE 2020).
//
// For a segment split at tau into X (left, n values) and Y (right, m values), with alpha = 1:
//   E = 2/(nm) sum|X_i - Y_j| - 1/C(n,2) sum_(i<k)|X_i - X_k| - 1/C(m,2) sum_(j<k)|Y_j - Y_k|,
//   Q(tau) = nm/(n + m) E.
// Bisection: within every segment bounded by the change points found so far, the split with the
// largest Q (each side at least min_segment values); the best over all segments is the
// candidate. Its significance comes from a permutation test: the values of each segment are
// shuffled within that segment and the best Q over all segments recomputed; the p-value is
// (1 + #{permuted >= observed}) / (1 + permutations). A candidate with p <= significance is a
// change point and the search goes on; the first that is not ends it. (The right end of each
// split is the segment's end, as in MongoDB's implementation, rather than searched over too.)
//
// Cost. A split of n values is found in O(n log n) (through the ranks of the values; the sums of
// the definition below 64 values), and the permutations stop as soon as enough of them reach the
// observed statistic that it cannot be significant, which takes a round of them where nothing
// changed: a series of 1,000 points without a step costs about 16 splits, not 500. The decisions
// and p-values are those of the full test.
//
// Deterministic for a given seed whatever the number of threads: permutation r of iteration i
// draws from its own stream.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "stats/error.hpp"

namespace culprit::stats {

struct ChangePointOptions {
  std::size_t min_segment = 3; // at least 2
  std::size_t permutations = 199;
  double significance = 0.05;
  std::uint64_t seed = 1;
  unsigned threads = 0; // 0: std::thread::hardware_concurrency()
};

struct ChangePoint {
  std::size_t index = 0; // the first value of the new segment
  double p_value = 1.0;
  double statistic = 0.0; // Q at the split
};

// Finite values, at most 50,000; a series shorter than 2 min_segment has no change points.
// Ascending by index.
Result<std::vector<ChangePoint>> e_divisive(std::span<const double> series,
                                            const ChangePointOptions& options = {});

// The split of one segment with the largest Q (the first on ties), each side at least
// min_segment values; none when the segment is shorter than 2 min_segment.
struct Split {
  std::size_t tau = 0; // relative to the segment: left is [0, tau)
  double statistic = 0.0;
  bool found = false;
};
Split best_split(std::span<const double> segment, std::size_t min_segment);

} // namespace culprit::stats
