#include "stats/change_points.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "stats/error.hpp"
#include "stats/parallel.hpp"
#include "stats/rng.hpp"
#include "stats/validate.hpp"

namespace culprit::stats {
namespace {

// A split costs the square of the segment's length, and the permutation test pays it again for
// every permutation; beyond this the search would take minutes.
constexpr std::size_t k_max_series = 2000;

struct Candidate {
  std::size_t index = 0;
  double statistic = 0.0;
  bool found = false;
};

// The best split over every segment between consecutive bounds.
Candidate best_over_segments(std::span<const double> series, std::span<const std::size_t> bounds,
                             std::size_t min_segment) {
  Candidate best;
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
    const Split split =
        best_split(series.subspan(bounds[s], bounds[s + 1] - bounds[s]), min_segment);
    if (split.found && (!best.found || split.statistic > best.statistic))
      best = Candidate{.index = bounds[s] + split.tau, .statistic = split.statistic, .found = true};
  }
  return best;
}

// The best Q over all segments after shuffling the values of each segment within it.
double permuted_best(std::span<const double> series, std::span<const std::size_t> bounds,
                     std::size_t min_segment, Rng& rng, std::vector<double>& shuffled) {
  shuffled.assign(series.begin(), series.end());
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s)
    for (std::size_t i = bounds[s + 1] - 1; i > bounds[s]; --i)
      std::swap(shuffled[i], shuffled[bounds[s] + rng.index(i - bounds[s] + 1)]);
  return best_over_segments(shuffled, bounds, min_segment).statistic;
}

Status check_options(const ChangePointOptions& options) {
  CULPRIT_STATS_TRY(check_probability(options.significance, "the significance level"));
  if (options.min_segment < 2)
    return fail(ErrorKind::invalid_argument,
                "the minimum segment must hold at least 2 values, not {}", options.min_segment);
  if (static_cast<double>(options.permutations + 1) * options.significance < 1.0)
    return fail(ErrorKind::invalid_argument,
                "{} permutations can never reach a p-value of {}; use at least {}",
                options.permutations, options.significance,
                static_cast<std::size_t>(std::ceil(1.0 / options.significance)) - 1);
  return {};
}

} // namespace

Split best_split(std::span<const double> segment, std::size_t min_segment) {
  const std::size_t length = segment.size();
  Split best;
  if (length < 2 * min_segment)
    return best;
  double within_right = 0.0;
  for (std::size_t i = 0; i < length; ++i)
    for (std::size_t j = i + 1; j < length; ++j)
      within_right += std::abs(segment[i] - segment[j]);
  double within_left = 0.0;
  double between = 0.0;
  const auto total = static_cast<double>(length);
  for (std::size_t moved = 0; moved + min_segment < length; ++moved) {
    // Move value `moved` from the right side to the left.
    double to_left = 0.0;
    for (std::size_t i = 0; i < moved; ++i)
      to_left += std::abs(segment[i] - segment[moved]);
    double to_right = 0.0;
    for (std::size_t j = moved + 1; j < length; ++j)
      to_right += std::abs(segment[moved] - segment[j]);
    within_left += to_left;
    within_right -= to_right;
    between += to_right - to_left;
    const std::size_t tau = moved + 1;
    if (tau < min_segment)
      continue;
    const auto n = static_cast<double>(tau);
    const double m = total - n;
    const double energy = (2.0 * between / (n * m)) - (2.0 * within_left / (n * (n - 1.0))) -
                          (2.0 * within_right / (m * (m - 1.0)));
    const double statistic = n * m / total * energy;
    if (!best.found || statistic > best.statistic)
      best = Split{.tau = tau, .statistic = statistic, .found = true};
  }
  return best;
}

Result<std::vector<ChangePoint>> e_divisive(std::span<const double> series,
                                            const ChangePointOptions& options) {
  CULPRIT_STATS_TRY(check_options(options));
  CULPRIT_STATS_TRY(check_sample(series, "series", 1));
  if (series.size() > k_max_series)
    return fail(ErrorKind::too_large,
                "a series of {} values is too long for E-divisive (at most {}: each permutation "
                "costs the square of the length); split the history into ranges",
                series.size(), k_max_series);
  std::vector<std::size_t> bounds{0, series.size()};
  std::vector<ChangePoint> found;
  for (std::uint64_t iteration = 0;; ++iteration) {
    const Candidate candidate = best_over_segments(series, bounds, options.min_segment);
    if (!candidate.found)
      break;
    std::atomic<std::size_t> at_least_as_large{0};
    parallel_blocks(options.permutations, options.threads, [&](std::size_t begin, std::size_t end) {
      std::vector<double> shuffled;
      std::size_t count = 0;
      for (std::size_t r = begin; r < end; ++r) {
        Rng rng(options.seed, (iteration << 32U) + r);
        if (permuted_best(series, bounds, options.min_segment, rng, shuffled) >=
            candidate.statistic)
          ++count;
      }
      at_least_as_large += count;
    });
    const double p_value = static_cast<double>(at_least_as_large.load() + 1) /
                           static_cast<double>(options.permutations + 1);
    if (p_value > options.significance)
      break;
    found.push_back(ChangePoint{
        .index = candidate.index, .p_value = p_value, .statistic = candidate.statistic});
    bounds.push_back(candidate.index);
    std::ranges::sort(bounds);
  }
  std::ranges::sort(found, {}, &ChangePoint::index);
  return found;
}

} // namespace culprit::stats
