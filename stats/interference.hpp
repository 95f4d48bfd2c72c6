#pragma once
// What the samples of one case say about interference from the machine.
//
// On cloud VMs, CI runners and shared GPU nodes, other tenants make a kernel slower and never
// faster, and in bursts: a whole guest flips between a fast state and one 1.5-2x slower every few
// milliseconds. The diagnosis looks for that shape in the samples a driver already has:
//
// - Speed states. The logarithms of the samples, oriented so that interference makes them larger
//   (a time as is, a throughput negated), are split in two where the split leaves the least
//   variance within the parts (Fisher's natural breaks for two classes; Otsu, IEEE SMC 1979). The
//   parts are two states when they are far apart against their spreads: Ashman's D =
//   sqrt(2) |m1 - m2| / sqrt(s1^2 + s2^2) of at least 4 (Ashman, Bird & Zepf, Astron. J. 1994:
//   D > 2 is needed for a clean separation; a unimodal normal split at its median gives 2.7),
//   their medians at least 10% apart, and each part at least 3% of the samples.
// - A slow tail without distinct states: Kelly's skewness (q90 + q10 - 2 q50) / (q90 - q10) of
//   the oriented logarithms of at least 1/2 while q90 / q10 exceeds 1.05.
//   Either makes the interference one-sided: the fast end of each run is then the better figure.
// - Drift: Kendall's tau between run order and each run's statistic (two-sided, normal
//   approximation with the tie correction; Kendall, "Rank Correlation Methods", 1970), with the
//   Theil-Sen slope (Sen, JASA 1968) across the runs as its size. Reported when p <= 0.01 and
//   the level moved by at least 1% from the first run to the last.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "stats/error.hpp"
#include "stats/types.hpp"

namespace culprit::stats {

struct SpeedStates {
  double fast = 0.0;       // median of the samples in the fast state, in the samples' unit
  double slow = 0.0;       // median of the samples in the slow state
  double slow_share = 0.0; // share of the samples in the slow state
  double separation = 0.0; // Ashman's D
  double threshold = 0.0;  // the value between the states (geometric midpoint of the medians)
  // Mean length, in consecutive samples of one run, of a stretch in the slow state.
  double slow_stretch = 0.0;
};

struct Drift {
  double change = 0.0; // relative change of the level from the first run to the last
  double tau = 0.0;    // Kendall's tau of run order against the runs' statistic
  double p_value = 1.0;
};

struct Interference {
  std::size_t samples = 0;
  std::size_t runs = 0;
  std::optional<SpeedStates> states;
  double skewness = 0.0;      // Kelly's, of the oriented log samples
  double spread = 0.0;        // q90 / q10 - 1 of the oriented samples
  bool slow_tail = false;     // skewness and spread both past their bounds: a long slow tail
  bool one_sided = false;     // speed states or a slow tail
  std::optional<Drift> drift; // only when significant and at least 1%
};

// Rare slow samples that come one at a time (under 20% of the samples, in stretches under 1.5
// samples) are preemptions, not a second state.
bool isolated(const SpeedStates& states);

// Whether each run's fast side should decide rather than its median: two speed states, or a long
// slow tail. Isolated slow samples alone do not count: a run's median already ignores them, and
// its minimum would only be noisier.
bool fast_side_decides(const Interference& interference);

// Runs in the order they were made, samples in the order each run reported them; at least one
// run and four positive samples in all. Drift needs at least eight runs.
Result<Interference> diagnose_interference(const Runs& runs, Direction direction);

// Whole runs in the slow state. When a machine's slow stretches outlast a run, a run can be slow
// from its first sample to its last, and then its fast side is slow too. The runs' own levels
// (each run's fast side), oriented and in logarithms, are split as the samples are above (the same
// two-class split, Ashman's D of at least 4, medians at least 10% apart, at least two runs in each
// part); the upper part is the runs the machine slowed from start to end.
struct SlowRuns {
  std::vector<bool> slow; // per run, in the order given
  double share = 0.0;     // of the runs
  double factor = 1.0;    // the slow part's median level over the fast part's (>= 1.1)
  double threshold = 1.0; // the geometric midpoint of the two, as a factor of the fast level
};

// levels: one positive, finite value per run; none when they do not fall in two states.
std::optional<SlowRuns> find_slow_runs(std::span<const double> levels, Direction direction);

// Kendall's tau-b of x against y with its two-sided p-value (normal approximation, ties
// corrected) and the Theil-Sen slope of y on x. At least three points.
struct TrendTest {
  double tau = 0.0;
  double p_value = 1.0;
  double slope = 0.0;
};
Result<TrendTest> trend_test(std::span<const double> x, std::span<const double> y);

} // namespace culprit::stats
