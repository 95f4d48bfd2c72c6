#pragma once
// How one run's samples are summarised before runs are compared with each other: a quantile of
// the run's samples (the minimum, a low percentile, the median, the maximum) or their mean.
//
// The run is the independent unit, so estimators that compare runs first reduce each run to one
// value and then treat those values as the sample. On a shared machine, where other tenants make
// a kernel slower and never faster, the fast end of each run (its minimum, or a low percentile)
// is the figure that interference disturbs least: Chen & Revels, "Robust benchmarking in noisy
// environments", HPEC 2016, argue for the minimum of repeated timings for this reason. A quantile
// of a run's samples interpolates linearly between order statistics (numpy's default, type 7 of
// Hyndman & Fan 1996), so the 10th percentile of ten samples lies between the two smallest.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stats/error.hpp"
#include "stats/types.hpp"

namespace culprit::stats {

struct RunStatistic {
  enum class Kind : std::uint8_t { quantile, mean };
  Kind kind = Kind::quantile;
  double q = 0.5; // for a quantile: 0 the minimum, 1/2 the median, 1 the maximum

  static constexpr RunStatistic median() { return {Kind::quantile, 0.5}; }
  static constexpr RunStatistic minimum() { return {Kind::quantile, 0.0}; }
  static constexpr RunStatistic maximum() { return {Kind::quantile, 1.0}; }
  static constexpr RunStatistic mean() { return {Kind::mean, 0.0}; }
  // percent in 1..99
  static constexpr RunStatistic percentile(int percent) {
    return {Kind::quantile, static_cast<double>(percent) / 100.0};
  }

  friend bool operator==(const RunStatistic&, const RunStatistic&) = default;
};

// "median", "mean", "min", "max", or "pNN" for the other percentiles ("p10").
std::string to_string(RunStatistic statistic);

// Reads the names to_string writes; "p50" is the median. p0 and p100 are refused (they are min
// and max), and so is any percentile outside 1..99 or not a whole number.
Result<RunStatistic> parse_run_statistic(std::string_view text);

// The statistic of one run's samples, which must not be empty.
double evaluate(RunStatistic statistic, std::span<const double> samples);

// One value per run. Runs must not be empty.
std::vector<double> run_values(const Runs& runs, RunStatistic statistic);

// The statistic on the fast side of a metric: the minimum of a time (lower is better), the
// maximum of a throughput (higher is better).
RunStatistic fast_side(Direction direction);

} // namespace culprit::stats
