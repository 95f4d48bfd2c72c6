#include "stats/intervals.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <string_view>
#include <vector>

#include <boost/math/distributions/normal.hpp>

#include "stats/error.hpp"
#include "stats/summary.hpp"
#include "stats/types.hpp"

namespace culprit::stats {
namespace {

double standard_error_of(std::span<const double> replicates) {
  return std::sqrt(moments_of(replicates).variance);
}

double acceleration(std::span<const std::vector<double>> jackknives) {
  double cubes = 0.0;
  double squares = 0.0;
  for (const auto& values : jackknives) {
    const auto n = static_cast<double>(values.size());
    double mean = 0.0;
    for (const double value : values)
      mean += value;
    mean /= n;
    double sample_cubes = 0.0;
    double sample_squares = 0.0;
    for (const double value : values) {
      const double influence = (n - 1.0) * (mean - value);
      sample_cubes += influence * influence * influence;
      sample_squares += influence * influence;
    }
    cubes += sample_cubes / (n * n * n);
    squares += sample_squares / (n * n);
  }
  if (!(squares > 0.0))
    return 0.0;
  return cubes / (6.0 * std::pow(squares, 1.5));
}

// The BCa-adjusted level for the normal quantile z of the nominal level.
double adjusted_level(double z0, double a, double z, bool lower) {
  const double shifted = z0 + z;
  const double denominator = 1.0 - (a * shifted);
  if (!(denominator > 0.0))
    return lower ? 0.0 : 1.0;
  const boost::math::normal normal;
  return boost::math::cdf(normal, z0 + (shifted / denominator));
}

} // namespace

// A custom statistic can return NaN, and a mean of huge values can overflow: sorting such
// replicates would be undefined, and an interval of them meaningless.
Status check_finite(double estimate, std::span<const double> replicates,
                    std::span<const std::vector<double>> jackknives) {
  const auto finite = [](double value) { return std::isfinite(value); };
  const bool all_finite = std::isfinite(estimate) && std::ranges::all_of(replicates, finite) &&
                          std::ranges::all_of(jackknives, [&](const auto& values) {
                            return std::ranges::all_of(values, finite);
                          });
  if (!all_finite)
    return fail(ErrorKind::non_finite,
                "the statistic is NaN or infinite on the data or on a resample (an overflow, or "
                "a statistic undefined for some resamples); rescale the values or change the "
                "statistic");
  return {};
}

std::string_view to_string(IntervalMethod method) {
  return method == IntervalMethod::bca ? "bca" : "percentile";
}

Interval percentile_interval(std::vector<double>& replicates, double estimate, double confidence) {
  std::ranges::sort(replicates);
  const double tail = (1.0 - confidence) / 2.0;
  return Interval{.estimate = estimate,
                  .lower = quantile_of_sorted(replicates, tail),
                  .upper = quantile_of_sorted(replicates, 1.0 - tail),
                  .standard_error = standard_error_of(replicates)};
}

Interval bca_interval(std::vector<double>& replicates, double estimate,
                      std::span<const std::vector<double>> jackknives, double confidence) {
  std::ranges::sort(replicates);
  const auto count = static_cast<double>(replicates.size());
  // Replicates below the estimate, ties counted half (scipy's percentile of score).
  const auto below = static_cast<double>(
      std::ranges::count_if(replicates, [&](double value) { return value < estimate; }));
  const auto tied = static_cast<double>(std::ranges::count(replicates, estimate));
  double share = (below + (tied / 2.0)) / count;
  share = std::clamp(share, 0.5 / count, 1.0 - (0.5 / count));

  const boost::math::normal normal;
  const double z0 = boost::math::quantile(normal, share);
  const double a = acceleration(jackknives);
  const double z_tail = boost::math::quantile(normal, (1.0 - confidence) / 2.0);
  const double low_level = adjusted_level(z0, a, z_tail, true);
  const double high_level = adjusted_level(z0, a, -z_tail, false);
  const double low = quantile_of_sorted(replicates, low_level);
  const double high = quantile_of_sorted(replicates, high_level);
  return Interval{.estimate = estimate,
                  .lower = std::min(low, high),
                  .upper = std::max(low, high),
                  .standard_error = standard_error_of(replicates)};
}

Interval make_interval(IntervalMethod method, std::vector<double>& replicates, double estimate,
                       std::span<const std::vector<double>> jackknives, double confidence) {
  if (method == IntervalMethod::bca)
    return bca_interval(replicates, estimate, jackknives, confidence);
  return percentile_interval(replicates, estimate, confidence);
}

} // namespace culprit::stats
