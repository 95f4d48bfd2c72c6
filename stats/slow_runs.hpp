#pragma once
// Which blocks to compare when whole runs sit in the slow state.
//
// A block holds one run of each side, made one after the other (or at once, in a duet), so the
// machine state they share cancels in their ratio. When the machine's slow stretches outlast a
// run, that is no longer so: one run of a block can be slow from start to end while the other is
// fast, and the ratio of the block then carries the whole 1.5-2x of the slow state, not the
// change. The fast side of each run (estimator.hpp) cannot help: it is slow too.
//
// The method is a post-stratification by machine state (Cox, "Some problems connected with
// statistical inference", Ann. Math. Stat. 1958: inference conditional on an ancillary statistic).
// Each side's runs are put in a fast and a slow state by their own levels (find_slow_runs in
// interference.hpp; a side whose runs do not split takes the others' threshold, from its own lower
// quartile). A side whose fast runs reach further below their median than half the threshold
// holds two states among them (a machine in three states, split between its upper two on one
// side and its lower two on the other, would call a run in the middle state slow on one side and
// fast on the other): then no selection, every block is compared. Then:
// - blocks whose runs are all fast are compared;
// - blocks whose runs are in different states are left out: their ratio says more about the
//   machine than about the change;
// - blocks whose runs are all slow shared the slow state, and cancel it when they shared the same
//   stretch. They are compared too unless they scatter more than the fast blocks do: when the
//   median spread of their runs' logarithms (max - min within a block; |log ratio| for two sides)
//   exceeds twice that of the fast blocks, they would widen the interval for nothing.
// The states are a property of the machine, not of the revision, and each side's runs are split
// against that side's own levels, so the selection leaves the kept blocks' ratios centred where
// they were. The choice of the slow blocks looks only at how far apart a block's runs are, not at
// which one is slower: under no change, the signs of the kept ratios stay equally likely, and the
// signed-rank test and interval (paired.hpp) stay exact given the selection (Lehmann & Romano,
// "Testing Statistical Hypotheses", 3rd ed. 2005, section 15.2: the randomization hypothesis of
// sign changes). bench_verdicts checks the error rates and coverage by simulation under every
// model.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "stats/types.hpp"

namespace culprit::stats {

struct BlockSelection {
  std::vector<std::size_t> kept; // the blocks compared, in block order
  std::size_t runs = 0;          // runs looked at, every side
  std::size_t slow_runs = 0;     // of which slow from start to end
  std::size_t fast_blocks = 0;   // every run fast: compared
  std::size_t slow_blocks = 0;   // every run slow: compared when slow_blocks_used
  std::size_t mixed_blocks = 0;  // runs in different states: left out
  bool slow_blocks_used = false;

  [[nodiscard]] double slow_share() const;
};

// sides[s][i]: the statistic of side s's run in block i, positive and finite; every side the same
// length. None when no side's runs fall in two states, when a side's fast runs hold two, or when
// fewer than two blocks would be left: then every block is compared.
std::optional<BlockSelection> select_blocks(std::span<const std::vector<double>> sides,
                                            Direction direction);

// The values of the kept blocks, in order.
std::vector<double> kept_values(std::span<const double> values, const BlockSelection& selection);

// select_blocks, and every side cut down to the kept blocks; none, with the sides as they were,
// when every block is to be compared or fewer than `at_least` blocks would be kept.
std::optional<BlockSelection> keep_selected_blocks(std::span<std::vector<double>> sides,
                                                   Direction direction, std::size_t at_least = 2);

} // namespace culprit::stats
