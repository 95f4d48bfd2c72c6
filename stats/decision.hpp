#pragma once
// The three-way verdict (culprit-statistics(7), "The verdict"), and the one call a driver makes to
// compare two sets of runs of one case.
//
// Decision rule, for a threshold delta, a confidence c and the metric's direction: with the
// ratio head / base and its confidence interval [lo, hi] at level c,
//   lo > 1 + delta, and the Mann-Whitney test on run summaries has p <= 1 - c:  head is higher;
//   hi < 1 - delta, and likewise p <= 1 - c:                                    head is lower;
//   1 - delta <= lo and hi <= 1 + delta:                                        same;
//   anything else:                                                              inconclusive.
// Higher is "slower" for a lower-is-better metric (a time) and "faster" for a higher-is-better
// one (a throughput), and the other way round for lower. Requiring the rank test as well as the
// interval means a change is called only when two methods agree: the rank test's error rate
// is exact for small samples, where a bootstrap interval of few runs can be too narrow.
//
// A "same" verdict is an equivalence claim (the interval inside the band), in the spirit of
// two one-sided tests (Schuirmann, J. Pharmacokinet. Biopharm. 1987).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "stats/bootstrap.hpp"
#include "stats/error.hpp"
#include "stats/types.hpp"

namespace culprit::stats {

enum class Verdict : std::uint8_t { slower, faster, same, inconclusive };

std::string_view to_string(Verdict verdict);

struct DecisionRule {
  double threshold = 0.02; // delta: the smallest relative change that matters
  Direction direction = Direction::lower_is_better;
};

// The rule above for a ratio interval at confidence `confidence` and a rank-test p-value.
Verdict decide(const Interval& ratio, double p_value, double confidence, const DecisionRule& rule);

struct CompareOptions {
  Statistic statistic = Statistic::median;
  DecisionRule rule;
  BootstrapOptions bootstrap; // its confidence is the verdict's confidence
};

// How a comparison was made.
enum class ComparisonMethod : std::uint8_t {
  two_level_bootstrap, // compare(): unpaired runs, BCa interval, Mann-Whitney on run summaries
  paired_signed_rank,  // compare_paired() (paired.hpp): blocks of interleaved runs
  exact,               // exact_comparison(): every run of each side gave the same value
};

std::string_view to_string(ComparisonMethod method);

struct Comparison {
  Interval ratio;           // statistic(head) / statistic(base), two-level bootstrap CI
  double confidence = 0.95; // the level asked of that interval
  // The level the interval has: the one asked, or less when the data are too few to reach it
  // (a rank interval of n pairs reaches at most 1 - 2^(1 - n)); a verdict needs the level asked.
  double interval_confidence = 0.95;
  ComparisonMethod method = ComparisonMethod::two_level_bootstrap;
  double log_standard_error = 0.0; // bootstrap standard error of log(ratio)
  double p_value = 1.0;            // Mann-Whitney on the statistic of each run
  Verdict verdict = Verdict::inconclusive;
  std::size_t base_runs = 0;
  std::size_t head_runs = 0;
};

// Counts that do not vary (instructions on a simulated CPU): when each side has at least two
// values, all positive, finite and equal, the ratio is known exactly. Its interval has zero width
// and level 1, its p-value is 0 unless the ratio is 1, and the verdict is the rule's. Empty when
// the values vary: then the ordinary statistics decide.
std::optional<Comparison> exact_comparison(std::span<const double> base,
                                           std::span<const double> head, double confidence,
                                           const DecisionRule& rule);

// At least two runs per side, positive finite samples; the threshold in [0, 1).
Result<Comparison> compare(const Runs& base, const Runs& head, const CompareOptions& options = {});

Status check_rule(const DecisionRule& rule);

} // namespace culprit::stats
