#include "stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "stats/error.hpp"
#include "stats/validate.hpp"

namespace culprit::stats {
namespace {

std::vector<double> sorted_copy(std::span<const double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  std::ranges::sort(sorted);
  return sorted;
}

// Neumaier's compensated sum: accurate for long series of nearly equal timings.
class CompensatedSum {
public:
  void add(double value) {
    const double total = m_sum + value;
    m_compensation +=
        std::abs(m_sum) >= std::abs(value) ? (m_sum - total) + value : (value - total) + m_sum;
    m_sum = total;
  }
  [[nodiscard]] double total() const { return m_sum + m_compensation; }

private:
  double m_sum = 0.0;
  double m_compensation = 0.0;
};

double mad_of(std::span<const double> values, double center) {
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (const double value : values)
    deviations.push_back(std::abs(value - center));
  std::ranges::sort(deviations);
  return quantile_of_sorted(deviations, 0.5);
}

} // namespace

Moments moments_of(std::span<const double> values) {
  const auto count = static_cast<double>(values.size());
  CompensatedSum sum;
  for (const double value : values)
    sum.add(value);
  Moments moments;
  moments.mean = sum.total() / count;
  if (values.size() < 2)
    return moments;
  CompensatedSum squares;
  for (const double value : values)
    squares.add((value - moments.mean) * (value - moments.mean));
  moments.variance = squares.total() / (count - 1.0);
  return moments;
}

double quantile_of_sorted(std::span<const double> sorted, double q) {
  const double position = static_cast<double>(sorted.size() - 1) * q;
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return interpolate(sorted[below], sorted[above], fraction);
}

Result<double> quantile(std::span<const double> values, double q) {
  CULPRIT_STATS_TRY(check_sample(values, "values", 1));
  if (!between(q, 0.0, 1.0))
    return fail(ErrorKind::invalid_argument, "a quantile must be in [0, 1], not {}", q);
  return quantile_of_sorted(sorted_copy(values), q);
}

Result<double> median(std::span<const double> values) {
  return quantile(values, 0.5);
}

Result<double> mean(std::span<const double> values) {
  CULPRIT_STATS_TRY(check_sample(values, "values", 1));
  return moments_of(values).mean;
}

Result<double> standard_deviation(std::span<const double> values) {
  CULPRIT_STATS_TRY(check_sample(values, "values", 2));
  return std::sqrt(moments_of(values).variance);
}

Result<Summary> summarize(std::span<const double> values) {
  CULPRIT_STATS_TRY(check_sample(values, "values", 2));
  const std::vector<double> sorted = sorted_copy(values);
  Summary summary;
  summary.count = values.size();
  const Moments moments = moments_of(values);
  summary.mean = moments.mean;
  summary.median = quantile_of_sorted(sorted, 0.5);
  summary.min = sorted.front();
  summary.max = sorted.back();
  summary.q1 = quantile_of_sorted(sorted, 0.25);
  summary.q3 = quantile_of_sorted(sorted, 0.75);
  summary.iqr = summary.q3 - summary.q1;
  summary.mad = mad_of(values, summary.median);
  summary.standard_deviation = std::sqrt(moments.variance);
  if (summary.mean != 0.0)
    summary.coefficient_of_variation = summary.standard_deviation / summary.mean;
  return summary;
}

Result<Outliers> classify_outliers(std::span<const double> values) {
  CULPRIT_STATS_TRY(check_sample(values, "values", 2));
  const std::vector<double> sorted = sorted_copy(values);
  const double q1 = quantile_of_sorted(sorted, 0.25);
  const double q3 = quantile_of_sorted(sorted, 0.75);
  const double iqr = q3 - q1;
  Outliers outliers;
  outliers.lower_inner_fence = q1 - 1.5 * iqr;
  outliers.upper_inner_fence = q3 + 1.5 * iqr;
  outliers.lower_outer_fence = q1 - 3.0 * iqr;
  outliers.upper_outer_fence = q3 + 3.0 * iqr;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double value = values[i];
    if (value < outliers.lower_outer_fence || value > outliers.upper_outer_fence)
      outliers.severe.push_back(i);
    else if (value < outliers.lower_inner_fence || value > outliers.upper_inner_fence)
      outliers.mild.push_back(i);
  }
  return outliers;
}

} // namespace culprit::stats
