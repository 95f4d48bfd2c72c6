#pragma once
// Descriptive statistics of one sample, and outliers by Tukey's fences.
//
// Quantiles follow numpy's default definition ("linear", type 7 of Hyndman & Fan, "Sample
// quantiles in statistical packages", The American Statistician 1996): with the values sorted
// as x[0..n-1], the q-quantile is x[h] interpolated linearly at h = (n - 1) q.
// Outliers are classified by Tukey's fences (Tukey, "Exploratory Data Analysis", 1977): mild
// beyond 1.5 IQR from the quartiles, severe beyond 3 IQR. They are reported, never dropped:
// every other function of this library uses all the values it is given.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "stats/error.hpp"

namespace culprit::stats {

// low + (high - low) * fraction, computed as numpy does: exact at both ends.
inline double interpolate(double low, double high, double fraction) {
  if (low == high)
    return low;
  return fraction < 0.5 ? low + ((high - low) * fraction)
                        : high - ((high - low) * (1.0 - fraction));
}

// The q-quantile of values already sorted ascending. Preconditions: sorted is not empty, q in
// [0, 1]. For callers that have checked their input; the others use quantile().
double quantile_of_sorted(std::span<const double> sorted, double q);

// Mean and sample variance (divisor n - 1; 0 for a single value) of values, which must not be
// empty, with compensated sums: for callers that have checked their input.
struct Moments {
  double mean = 0.0;
  double variance = 0.0;
};
Moments moments_of(std::span<const double> values);

// Each of these needs at least one finite value (standard_deviation two).
Result<double> quantile(std::span<const double> values, double q);
Result<double> median(std::span<const double> values);
Result<double> mean(std::span<const double> values);
// Sample standard deviation (divisor n - 1).
Result<double> standard_deviation(std::span<const double> values);
// The median absolute deviation of a normal sample times this estimates its sigma (1 / the normal
// quantile at 3/4).
inline constexpr double k_mad_to_sigma = 1.482602218505602;

struct Summary {
  std::size_t count = 0;
  double mean = 0.0;
  double median = 0.0;
  double min = 0.0;
  double max = 0.0;
  double q1 = 0.0; // 25% quantile
  double q3 = 0.0; // 75% quantile
  double iqr = 0.0;
  double mad = 0.0; // median absolute deviation from the median, unscaled (x k_mad_to_sigma: a
                    // normal's sigma)
  double standard_deviation = 0.0;
  // standard_deviation / mean; absent when the mean is zero.
  std::optional<double> coefficient_of_variation;
};

// Needs at least two finite values.
Result<Summary> summarize(std::span<const double> values);

struct Outliers {
  double lower_inner_fence = 0.0; // q1 - 1.5 IQR
  double upper_inner_fence = 0.0; // q3 + 1.5 IQR
  double lower_outer_fence = 0.0; // q1 - 3 IQR
  double upper_outer_fence = 0.0; // q3 + 3 IQR
  // Indices into the input, ascending. A value strictly beyond an inner fence but not beyond the
  // outer one is mild; strictly beyond an outer fence, severe.
  std::vector<std::size_t> mild;
  std::vector<std::size_t> severe;
};

// Needs at least two finite values.
Result<Outliers> classify_outliers(std::span<const double> values);

} // namespace culprit::stats
