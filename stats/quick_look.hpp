#pragma once
// A quick look at a bisection probe when the step dwarfs the noise.
//
// The ordinary classification (paired_step_position, stats/paired.hpp) bootstraps at least three
// blocks of {good, bad, probe} and, by default, first looks at five: 15 runs a probe. When the
// ends' own blocks show a step many times their block-to-block spread, two blocks already tell
// which end a probe is at, and the quick look classifies it from them; when it cannot, nothing is
// decided and the ordinary looks go on, the quick blocks counted among theirs.
//
// The ends' blocks give b_j = log(bad_j / good_j), j = 1..m (m >= 5). Their step s is the median
// of b_j and their spread sigma the normal-consistent median absolute deviation (1.4826 MAD),
// which estimates the standard deviation of the log ratio of two runs. The step dwarfs the noise
// when |s| >= 4 sigma and no block strays from s by half of it (a heavy tail seen once is
// enough to keep to the ordinary looks).
//
// In each quick block i of {lo, hi, probe}, b_i = log(hi_i / lo_i) must itself lie within half
// the step of s (the references show the whole step, so the bracket holds one culprit and the
// block no slow outlier), and p_i = log(probe_i / lo_i) / b_i is the probe's position. With
// bound = min(1/4, h + sigma / |s|), h = min(1/2, log(1 + delta) / |s|) the classifier's
// tolerance: good-like when every p_i < bound, bad-like when every p_i > 1 - bound; otherwise
// no decision.
//
// Error: a good-level probe called bad-like needs p_i > 3/4 in both blocks. With a_i and b_i
// normal, each a log ratio of two runs of variance sigma^2 / 2, a_i - (3/4) b_i has mean
// -(3/4) s and standard deviation 0.9 sigma, so at |s| = 4 sigma one block errs with probability
// P(Z > 3.3) = 4e-4 and both with 2e-7; a tail ten times heavier than normal still leaves 2e-5,
// which is far below the 1% of the 99% intervals the ordinary looks use. The bound keeps h in
// it so that, under small noise, a level the ordinary looks would find intermediate (more than
// one culprit) is not called an end's: the quick look accepts only levels within about one
// block's noise of the tolerance.

#include <optional>
#include <span>

#include "stats/decision.hpp"
#include "stats/step_position.hpp"

namespace culprit::stats {

struct StepNoise {
  double step = 0;                    // s, the median per-block log ratio of the ends
  double spread = 0;                  // sigma, 1.4826 MAD of the per-block log ratios
  double worst = 0;                   // max |b_j - s|
  std::size_t blocks = 0;             // m
  [[nodiscard]] bool dwarfed() const; // the step dwarfs the noise (see above)
};

inline constexpr std::size_t k_quick_blocks = 2;
inline constexpr std::size_t k_quick_min_end_blocks = 5;

// The ends' per-run values, block by block (one value per run of each). Empty when the sides
// differ in length, have fewer than k_quick_min_end_blocks blocks, or hold a non-positive value.
std::optional<StepNoise> step_noise(std::span<const double> good, std::span<const double> bad);

// The quick classification of a probe from its blocks with the references lo and hi (one value
// per run, block by block, at least k_quick_blocks), given the ends' noise and the threshold
// delta. Empty when it cannot decide: the noise is not dwarfed, a block's references stray from
// the step, or the positions do not all sit near one end. The position and step intervals are
// the ranges over the blocks.
std::optional<StepPosition> quick_position(const StepNoise& ends, std::span<const double> lo,
                                           std::span<const double> hi,
                                           std::span<const double> probe, double threshold);

// A quick stop for the comparison of a bisection's ends when the step dwarfs the noise. The
// ordinary looks (stats/sequential.hpp) cannot decide before 15 blocks: at 10, the exact
// signed-rank test's smallest p-value, 2/1024, is above what the O'Brien-Fleming boundary lets
// that look spend. With m >= k_quick_stop_blocks blocks, the ends are called slower (faster) at
// once when the step dwarfs their noise (StepNoise::dwarfed, on these blocks) and every block's
// ratio lies beyond the threshold on the slow (fast) side, as the verdict reads it: above
// 1 + delta, or below 1 - delta.
//
// Error, by a sign test that needs only each block's log ratio to be independent and as likely
// above its median as below: when the true change is within the threshold, each block lies beyond
// it with probability at most 1/2, so all of the first ten do with probability at most
// 2^-10 ~ 0.001. A stop at a later look needs those ten as well, so the quick stops of every look
// together add at most 0.001 to the sequential plan's error. What is reported is the ordinary
// comparison at the nominal confidence, and the stop is made only when its verdict agrees (every
// Walsh average lies beyond the threshold too, but a confidence above 1 - 2^-9 is more than ten
// blocks' rank interval can reach).
inline constexpr std::size_t k_quick_stop_blocks = 10;

// slower or faster (for `rule.direction`) when the quick stop applies to these per-block values
// (one per run of each side, block by block); none otherwise.
std::optional<Verdict> quick_stop(std::span<const double> base, std::span<const double> head,
                                  const DecisionRule& rule);

} // namespace culprit::stats
