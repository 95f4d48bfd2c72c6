#include "stats/interference.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <boost/math/distributions/complement.hpp>
#include <boost/math/distributions/normal.hpp>

#include "stats/run_statistic.hpp"
#include "stats/summary.hpp"
#include "stats/validate.hpp"

namespace culprit::stats {
namespace {

constexpr double k_min_separation = 4.0;
constexpr double k_min_state_gap = 0.10;
constexpr double k_min_state_share = 0.03;
constexpr double k_min_skewness = 0.5;
constexpr double k_min_spread = 0.05;
constexpr double k_drift_p = 0.01;
constexpr double k_min_drift = 0.01;
constexpr std::size_t k_min_drift_runs = 8;

struct Split {
  std::size_t at = 0; // the fast part is sorted[0, at)
  double separation = 0.0;
};

// The two-class split of sorted values with the least variance within the classes.
std::optional<Split> best_split(std::span<const double> sorted) {
  const std::size_t n = sorted.size();
  const std::size_t smallest = std::max<std::size_t>(
      2, static_cast<std::size_t>(std::ceil(k_min_state_share * static_cast<double>(n))));
  if (n < 2 * smallest)
    return std::nullopt;
  std::vector<double> sum(n + 1, 0.0);
  std::vector<double> squares(n + 1, 0.0);
  const double shift = sorted[n / 2]; // keeps the sums of squares well conditioned
  for (std::size_t i = 0; i < n; ++i) {
    const double value = sorted[i] - shift;
    sum[i + 1] = sum[i] + value;
    squares[i + 1] = squares[i] + (value * value);
  }
  const auto scatter = [&](std::size_t begin, std::size_t end) {
    const auto count = static_cast<double>(end - begin);
    const double total = sum[end] - sum[begin];
    return std::max(0.0, (squares[end] - squares[begin]) - (total * total / count));
  };
  Split best;
  double least = std::numeric_limits<double>::infinity();
  for (std::size_t at = smallest; at + smallest <= n; ++at) {
    const double within = scatter(0, at) + scatter(at, n);
    if (within < least) {
      least = within;
      best.at = at;
    }
  }
  const auto fast_count = static_cast<double>(best.at);
  const auto slow_count = static_cast<double>(n - best.at);
  const double fast_mean = (sum[best.at] / fast_count);
  const double slow_mean = ((sum[n] - sum[best.at]) / slow_count);
  const double fast_variance = scatter(0, best.at) / fast_count;
  const double slow_variance = scatter(best.at, n) / slow_count;
  const double pooled = fast_variance + slow_variance;
  best.separation = pooled > 0.0
                        ? std::numbers::sqrt2 * std::abs(slow_mean - fast_mean) / std::sqrt(pooled)
                        : std::numeric_limits<double>::infinity();
  return best;
}

double median_of_sorted(std::span<const double> sorted) {
  return quantile_of_sorted(sorted, 0.5);
}

// Mean length of the stretches of consecutive slow samples within runs.
double slow_stretch(const Runs& runs, double threshold, double sign) {
  std::size_t stretches = 0;
  std::size_t slow = 0;
  for (const auto& run : runs) {
    bool in_slow = false;
    for (const double value : run) {
      const bool is_slow = sign * std::log(value) > threshold;
      if (is_slow) {
        ++slow;
        if (!in_slow)
          ++stretches;
      }
      in_slow = is_slow;
    }
  }
  return stretches == 0 ? 0.0 : static_cast<double>(slow) / static_cast<double>(stretches);
}

} // namespace

Result<TrendTest> trend_test(std::span<const double> x, std::span<const double> y) {
  CULPRIT_STATS_TRY(check_sample(x, "x", 3));
  CULPRIT_STATS_TRY(check_sample(y, "y", 3));
  if (x.size() != y.size())
    return fail(ErrorKind::invalid_argument, "x has {} values and y {}", x.size(), y.size());
  const std::size_t n = x.size();
  double concordant = 0.0;
  double discordant = 0.0;
  std::vector<double> slopes;
  slopes.reserve(n * (n - 1) / 2);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      const double dx = x[j] - x[i];
      const double dy = y[j] - y[i];
      const double sign = dx * dy;
      if (sign > 0)
        concordant += 1.0;
      else if (sign < 0)
        discordant += 1.0;
      if (dx != 0.0)
        slopes.push_back(dy / dx);
    }
  }
  // Tie groups in x and in y: sum t(t-1)/2 (tied pairs), sum t(t-1)(t-2), sum t(t-1)(2t+5).
  const auto tie_terms = [](std::span<const double> values) {
    std::vector<double> sorted(values.begin(), values.end());
    std::ranges::sort(sorted);
    std::array<double, 3> terms{0.0, 0.0, 0.0};
    for (std::size_t begin = 0; begin < sorted.size();) {
      std::size_t end = begin + 1;
      while (end < sorted.size() && sorted[end] == sorted[begin])
        ++end;
      const auto t = static_cast<double>(end - begin);
      terms[0] += t * (t - 1.0) / 2.0;
      terms[1] += t * (t - 1.0) * (t - 2.0);
      terms[2] += t * (t - 1.0) * (2.0 * t + 5.0);
      begin = end;
    }
    return terms;
  };
  const auto tx = tie_terms(x);
  const auto ty = tie_terms(y);
  const auto count = static_cast<double>(n);
  const double pairs = count * (count - 1.0) / 2.0;
  TrendTest result;
  const double s = concordant - discordant;
  const double denominator = std::sqrt((pairs - tx[0]) * (pairs - ty[0]));
  result.tau = denominator > 0.0 ? s / denominator : 0.0;
  // The variance of S under independence with ties (Kendall 1970, eq. 4.3), as scipy's
  // kendalltau computes it.
  const double m = count * (count - 1.0);
  const double variance = (((m * (2.0 * count + 5.0)) - tx[2] - ty[2]) / 18.0) +
                          (2.0 * tx[0] * ty[0] / m) + (tx[1] * ty[1] / (9.0 * m * (count - 2.0)));
  if (variance > 0.0) {
    const boost::math::normal normal;
    result.p_value = std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(
                                             normal, std::abs(s) / std::sqrt(variance))));
  }
  if (!slopes.empty()) {
    std::ranges::sort(slopes);
    result.slope = median_of_sorted(slopes);
  }
  return result;
}

bool isolated(const SpeedStates& states) {
  return states.slow_stretch < 1.5 && states.slow_share < 0.2;
}

bool fast_side_decides(const Interference& interference) {
  return (interference.states && !isolated(*interference.states)) || interference.slow_tail;
}

std::optional<SlowRuns> find_slow_runs(std::span<const double> levels, Direction direction) {
  const double sign = direction == Direction::lower_is_better ? 1.0 : -1.0;
  std::vector<double> oriented;
  oriented.reserve(levels.size());
  for (const double level : levels) {
    if (!(level > 0.0) || !std::isfinite(level))
      return std::nullopt;
    oriented.push_back(sign * std::log(level));
  }
  std::vector<double> sorted = oriented;
  std::ranges::sort(sorted);
  const auto split = best_split(sorted);
  if (!split || split->separation < k_min_separation)
    return std::nullopt;
  const double fast_level = median_of_sorted(std::span(sorted).first(split->at));
  const double slow_level = median_of_sorted(std::span(sorted).subspan(split->at));
  if (std::expm1(slow_level - fast_level) < k_min_state_gap)
    return std::nullopt;
  SlowRuns result;
  result.factor = std::exp(slow_level - fast_level);
  result.threshold = std::sqrt(result.factor);
  const double middle = (fast_level + slow_level) / 2.0;
  std::size_t slow = 0;
  for (const double value : oriented) {
    result.slow.push_back(value > middle);
    slow += value > middle ? 1 : 0;
  }
  result.share = static_cast<double>(slow) / static_cast<double>(oriented.size());
  return result;
}

Result<Interference> diagnose_interference(const Runs& runs, Direction direction) {
  CULPRIT_STATS_TRY(check_runs(runs, "runs", 1, Positivity::positive));
  // Oriented so that interference makes values larger.
  const double sign = direction == Direction::lower_is_better ? 1.0 : -1.0;
  std::vector<double> oriented;
  for (const auto& run : runs)
    for (const double value : run)
      oriented.push_back(sign * std::log(value));
  if (oriented.size() < 4)
    return fail(ErrorKind::too_few, "a diagnosis needs at least 4 samples, not {}",
                oriented.size());
  std::ranges::sort(oriented);
  Interference result;
  result.samples = oriented.size();
  result.runs = runs.size();
  const double q10 = quantile_of_sorted(oriented, 0.1);
  const double q50 = quantile_of_sorted(oriented, 0.5);
  const double q90 = quantile_of_sorted(oriented, 0.9);
  result.spread = std::expm1(q90 - q10);
  result.skewness = q90 > q10 ? (q90 + q10 - (2.0 * q50)) / (q90 - q10) : 0.0;

  if (const auto split = best_split(oriented); split && split->separation >= k_min_separation) {
    const std::span<const double> fast(oriented.data(), split->at);
    const std::span<const double> slow(oriented.data() + split->at, oriented.size() - split->at);
    const double fast_level = median_of_sorted(fast);
    const double slow_level = median_of_sorted(slow);
    if (std::expm1(slow_level - fast_level) >= k_min_state_gap) {
      SpeedStates states;
      states.fast = std::exp(sign * fast_level);
      states.slow = std::exp(sign * slow_level);
      states.slow_share = static_cast<double>(slow.size()) / static_cast<double>(oriented.size());
      states.separation = split->separation;
      const double middle = (fast_level + slow_level) / 2.0;
      states.threshold = std::exp(sign * middle);
      states.slow_stretch = slow_stretch(runs, middle, sign);
      result.states = states;
    }
  }
  result.slow_tail = result.skewness >= k_min_skewness && result.spread >= k_min_spread;
  result.one_sided = result.states.has_value() || result.slow_tail;

  if (runs.size() >= k_min_drift_runs) {
    const RunStatistic statistic = result.one_sided ? fast_side(direction) : RunStatistic::median();
    std::vector<double> order;
    std::vector<double> levels;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      order.push_back(static_cast<double>(i));
      levels.push_back(std::log(evaluate(statistic, runs[i])));
    }
    CULPRIT_STATS_TRY_ASSIGN(const TrendTest trend, trend_test(order, levels));
    const double change = std::expm1(trend.slope * static_cast<double>(runs.size() - 1));
    if (trend.p_value <= k_drift_p && std::abs(change) >= k_min_drift)
      result.drift = Drift{change, trend.tau, trend.p_value};
  }
  return result;
}

} // namespace culprit::stats
