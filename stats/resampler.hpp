#pragma once
// What the bootstrap resamples: one sample (values are the independent unit) or runs of samples
// (runs are the independent unit; a two-level resample draws runs with replacement, then draws
// samples with replacement within each drawn run). A Resampler yields the statistic on the data,
// one bootstrap replicate at a time, and the leave-one-unit-out (jackknife) values that BCa needs.
//
// The two-level scheme is the hierarchical bootstrap of Davison & Hinkley ("Bootstrap Methods
// and their Application", 1997, section 3.8, strategy 1). It counts both sources of noise;
// when samples inside a run are in fact independent it counts the within-run noise about twice,
// so intervals err on the wide side (by at most a factor of about sqrt(2)), never the narrow one.
//
// For the median, the minimum and other quantiles of one sample, a replicate is drawn in O(1):
// the k-th smallest of n indices drawn uniformly from {0..n-1} is floor(n V) with
// V ~ Beta(k, n + 1 - k), the k-th order statistic of n uniforms (David & Nagaraja, "Order
// Statistics", 2003, section 2.2). That is the same bootstrap distribution as sorting a
// resample, at a fraction of the cost.

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "stats/rng.hpp"
#include "stats/statistic.hpp"
#include "stats/types.hpp"

namespace culprit::stats {

class Resampler {
public:
  Resampler() = default;
  virtual ~Resampler() = default;
  Resampler(const Resampler&) = delete;
  Resampler& operator=(const Resampler&) = delete;
  Resampler(Resampler&&) = delete;
  Resampler& operator=(Resampler&&) = delete;

  // The statistic of the data as given.
  [[nodiscard]] virtual double estimate() const = 0;
  // One bootstrap replicate. scratch is the calling thread's own buffer; safe to call
  // concurrently with distinct generators and buffers.
  [[nodiscard]] virtual double replicate(Rng& rng, std::vector<double>& scratch) const = 0;
  // The statistic with each unit (value or run) left out in turn; for a large sample with a
  // custom statistic, with each of 1000 contiguous groups left out instead.
  [[nodiscard]] virtual std::vector<double> jackknife() const = 0;
};

// The caller has validated the data: non-empty, finite, at least two units.
std::unique_ptr<Resampler> make_resampler(std::span<const double> sample, Statistic statistic);
std::unique_ptr<Resampler> make_resampler(std::span<const double> sample, StatisticFn statistic);
// Runs of one sample each are resampled as one sample, which is the same thing.
std::unique_ptr<Resampler> make_resampler(const Runs& runs, Statistic statistic);

} // namespace culprit::stats
