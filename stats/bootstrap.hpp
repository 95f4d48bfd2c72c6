#pragma once
// Bootstrap confidence intervals (Efron & Tibshirani, "An Introduction to the Bootstrap", 1993;
// the percentile and BCa constructions are described in intervals.hpp).
//
// - of any statistic of one sample;
// - of the ratio head / base of a statistic of two independent samples;
// - of a statistic of runs, and of the ratio of two sets of runs, by the two-level bootstrap of
//   resampler.hpp: runs with replacement, then samples with replacement within each drawn run.
//
// Determinism: replicate i draws from Rng(seed, i), so for a given seed the interval is
// identical whatever the number of threads. Values must be finite; a ratio needs positive
// values (statistics of positive values are positive, so every replicate ratio is finite).
// Every function needs at least two units (values, or runs) per sample.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "stats/error.hpp"
#include "stats/intervals.hpp"
#include "stats/statistic.hpp"
#include "stats/types.hpp"

namespace culprit::stats {

struct BootstrapOptions {
  double confidence = 0.95;
  std::size_t resamples = 10'000;
  IntervalMethod method = IntervalMethod::bca;
  std::uint64_t seed = 1;
  unsigned threads = 0; // 0: std::thread::hardware_concurrency()
};

Result<Interval> bootstrap_interval(std::span<const double> sample, Statistic statistic,
                                    const BootstrapOptions& options = {});
Result<Interval> bootstrap_interval(std::span<const double> sample, const StatisticFn& statistic,
                                    const BootstrapOptions& options = {});

// statistic(head) / statistic(base); each sample resampled independently.
Result<Interval> ratio_interval(std::span<const double> base, std::span<const double> head,
                                Statistic statistic = Statistic::median,
                                const BootstrapOptions& options = {});

// The statistic of the pooled samples of runs, two-level bootstrap interval.
Result<Interval> level_interval(const Runs& runs, Statistic statistic = Statistic::median,
                                const BootstrapOptions& options = {});

// statistic(pooled head) / statistic(pooled base), two-level bootstrap interval.
Result<Interval> ratio_interval(const Runs& base, const Runs& head,
                                Statistic statistic = Statistic::median,
                                const BootstrapOptions& options = {});

// What compare() and planning need beyond the interval: the replicates' spread on the log scale.
struct RatioBootstrap {
  Interval ratio;
  double log_standard_error = 0.0; // standard deviation of log(replicate ratio)
};
Result<RatioBootstrap> ratio_bootstrap(const Runs& base, const Runs& head, Statistic statistic,
                                       const BootstrapOptions& options);

// Checks confidence, resamples (at least 100) and the method's needs.
Status check_bootstrap_options(const BootstrapOptions& options);

} // namespace culprit::stats
