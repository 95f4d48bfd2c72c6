#pragma once
// Comparisons that use the pairing of interleaved runs.
//
// Runs of the revisions being compared are made in blocks: one run of each revision, in a random
// order, then the next block (ABBA...), or, in a duet, both at once on two CPUs. A block's runs
// share whatever state the machine was in: another tenant's burst, a slow drift, a thermal state.
// The ratio of the two runs of a block cancels what they shared, so comparisons of blocks stay
// sharp where comparisons of two unpaired groups of runs blur: drift and interference that last
// longer than a block drop out.
//
// compare_paired: per block i, d_i = log(head_i / base_i) of the two runs' statistics (stats/
// run_statistic.hpp). The ratio is exp of the Hodges-Lehmann estimate of the d_i, its interval
// the signed-rank interval (signed_rank.hpp), and the p-value the signed-rank test's. The verdict
// rule is decide() of decision.hpp. The interval is distribution-free: its coverage is exact when
// blocks are independent and the two runs of a block are exchangeable but for the change, so the
// noise may be skewed, bimodal or heavy-tailed. An interval that cannot reach the level asked
// (too few blocks) never yields a verdict.
//
// paired_step_position: where a probed commit lies between good (0) and bad (1) when every block
// holds one run of each of the three: with a_i = log(probe_i / good_i) and b_i = log(bad_i /
// good_i), the position is HL(a) / HL(b) and the step HL(b), HL the Hodges-Lehmann estimate;
// their percentile intervals come from a bootstrap that resamples whole blocks (Efron &
// Tibshirani 1993, chapter 13), and the classification is step_position.hpp's.

#include <span>

#include "stats/decision.hpp"
#include "stats/error.hpp"
#include "stats/step_position.hpp"

namespace culprit::stats {

struct PairedOptions {
  DecisionRule rule;
  double confidence = 0.95;
};

// base[i] and head[i]: the statistics of the two runs of block i; positive and finite, at least
// two blocks.
Result<Comparison> compare_paired(std::span<const double> base, std::span<const double> head,
                                  const PairedOptions& options = {});

// good[i], bad[i], probe[i]: the statistics of the three runs of block i; positive and finite,
// at least three blocks. options.statistic is not used (the values are already run statistics).
Result<StepPosition> paired_step_position(std::span<const double> good, std::span<const double> bad,
                                          std::span<const double> probe,
                                          const StepOptions& options = {});

} // namespace culprit::stats
