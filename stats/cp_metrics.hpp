#pragma once
// Scores of a change-point search against human annotations, exactly as the Turing change-point
// benchmark defines them (van den Burg & Williams, "An evaluation of change point detection
// algorithms", 2020; TCPDBench, analysis/scripts/metrics.py):
//
//   F1 (margin M). Every annotator's set T_k and the predictions X hold index 0 as well (the
//   start of the series counts as a change point). A location tau of a set T is a true positive
//   when some prediction lies within M of it; each prediction is used at most once, the
//   locations of T taken in ascending order, each taking its nearest unused prediction (the
//   smaller on ties). Precision P = |TP(union of the T_k, X)| / |X|; recall
//   R = mean over annotators of |TP(T_k, X)| / |T_k|; F1 = 2 P R / (P + R).
//
//   Cover. Change points cut 0..n-1 into segments (a point at 0 or repeated cuts nothing). The
//   cover of an annotator's segmentation S by the predicted one S' (Arbelaez et al. 2010,
//   eq. 8) is sum over R in S of |R| max over R' in S' of |R n R'| / |R u R'|, divided by n;
//   the score is its mean over the annotators.
//
// metrics.py walks the locations in the iteration order of a Python set, which for integers is
// not always ascending; here they are taken in ascending order. The two differ only when two
// locations within 2 M of each other compete for the one prediction between them.

#include <cstddef>
#include <vector>

namespace culprit::stats {

struct F1Score {
  double f1 = 0;
  double precision = 0;
  double recall = 0;
};

// The locations of `truth` that some prediction lies within `margin` of, each prediction used at
// most once (metrics.py's true_positives). Ascending.
std::vector<std::size_t> true_positives(const std::vector<std::size_t>& truth,
                                        const std::vector<std::size_t>& predictions,
                                        std::size_t margin);

// `annotations`: one list of locations per annotator (at least one annotator); 0-based indices.
F1Score f1_score(const std::vector<std::vector<std::size_t>>& annotations,
                 const std::vector<std::size_t>& predictions, std::size_t margin = 5);

// Locations at or beyond n are ignored (they cut nothing), as metrics.py's partition does.
double covering(const std::vector<std::vector<std::size_t>>& annotations,
                const std::vector<std::size_t>& predictions, std::size_t n);

} // namespace culprit::stats
