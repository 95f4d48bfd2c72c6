// Change points of a series (culprit-history(1)): E-divisive on the log levels, and steps between
// neighbouring points that their replicates resolve; then each step sized, given an interval from
// the points' replicates, and dropped while it is below min_change or its interval holds no change.
// The series themselves are built in series.cpp.
//
// Why neighbours too: E-divisive's permutation test ranks the points alone, so a series of a few
// points can never reach its significance (six points split three and three have 20 orderings, so
// p >= 1/20), and a step within min_segment points of either end is out of its reach. But commits
// that share artifacts are one point each, so a history of 30 commits that changed twice has three
// points, and a regression at the newest commit is one point. Each point carries the bootstrap
// replicates of its level (its runs drawn again), so two neighbours can be compared on their own:
// the log ratio of their replicates gives a standard error, and the step is taken when the normal
// test on it is significant at the series' level over all neighbouring pairs (Bonferroni), the
// bootstrap standard-error test of Efron & Tibshirani, An Introduction to the Bootstrap (1993),
// ch. 16. Points whose replicates do not vary (exact counts) differ when their levels do.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <boost/math/distributions/normal.hpp>
#include <fmt/format.h>

#include "core/history/series.hpp"
#include "core/measure/stats_bridge.hpp"
#include "stats/change_points.hpp"
#include "stats/parallel.hpp"
#include "stats/rng.hpp"
#include "stats/summary.hpp"

namespace culprit::history {
namespace {

// How many neighbouring pairs tell the typical noise of a series without a change point.
constexpr std::size_t k_typical_pairs = 8;

const std::string& last_commit_of(const SeriesPoint& point) {
  return point.last_commit.empty() ? point.commit : point.last_commit;
}

double segment_median(const std::vector<double>& values, std::size_t begin, std::size_t end) {
  std::vector<double> segment(values.begin() + static_cast<std::ptrdiff_t>(begin),
                              values.begin() + static_cast<std::ptrdiff_t>(end));
  std::ranges::sort(segment);
  return stats::quantile_of_sorted(segment, 0.5);
}

// The segments around change point k: [begin, indices[k]) and [indices[k], end).
std::pair<std::size_t, std::size_t> segment_bounds(const std::vector<std::size_t>& indices,
                                                   std::size_t k, std::size_t size) {
  return {k == 0 ? 0 : indices[k - 1], k + 1 == indices.size() ? size : indices[k + 1]};
}

// The ratio of the level after each change point to the level before it.
std::vector<double> step_ratios(const std::vector<double>& levels,
                                const std::vector<std::size_t>& indices) {
  std::vector<double> ratios;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const auto [begin, end] = segment_bounds(indices, k, levels.size());
    ratios.push_back(segment_median(levels, indices[k], end) /
                     segment_median(levels, begin, indices[k]));
  }
  return ratios;
}

// The median of `values` (quantile_of_sorted's at 0.5), reordering them: the two middle values
// by selection rather than a sort of them all.
double median_in_place(std::vector<double>& values) {
  const std::size_t n = values.size();
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>((n - 1) / 2);
  std::ranges::nth_element(values, middle);
  if (n % 2 == 1)
    return *middle;
  const double upper = *std::ranges::min_element(middle + 1, values.end());
  const std::array<double, 2> pair{*middle, upper};
  return stats::quantile_of_sorted(pair, 0.5);
}

// The percentile interval of a step's ratio: in each replicate, the points of each segment drawn
// with replacement, each at its replicate level. Replicate b draws from stream b of the step, so
// the interval is the same on any number of threads.
std::array<double, 2> step_interval(const PointReplicates& replicates, std::size_t begin,
                                    std::size_t at, std::size_t end, const ChangeOptions& options) {
  replicates.draw_rows(begin, end, options.threads);
  const std::size_t count = replicates[begin].size();
  std::vector<double> ratios(count);
  stats::parallel_blocks(count, options.threads, [&](std::size_t first, std::size_t last) {
    std::vector<double> before(at - begin);
    std::vector<double> after(end - at);
    for (std::size_t b = first; b < last; ++b) {
      stats::Rng rng(options.seed ^ 0x5eed5e55ULL, (at * count) + b);
      for (auto& value : before)
        value = replicates[begin + rng.index(at - begin)][b];
      for (auto& value : after)
        value = replicates[at + rng.index(end - at)][b];
      ratios[b] = median_in_place(after) / median_in_place(before);
    }
  });
  std::ranges::sort(ratios);
  const double tail = (1 - options.confidence) / 2;
  return {stats::quantile_of_sorted(ratios, tail), stats::quantile_of_sorted(ratios, 1 - tail)};
}

// The sessions whose points lie in [begin, end), in the series' order of sessions.
std::vector<std::string> sessions_between(const Series& series, std::size_t begin,
                                          std::size_t end) {
  std::vector<std::string> sessions;
  for (const auto& session : series.sessions)
    for (std::size_t i = begin; i < end; ++i)
      if (series.points[i].session == session.id) {
        sessions.push_back(session.id);
        break;
      }
  return sessions;
}

// The change points that survived, each with its step, interval and the sessions it rests on.
std::vector<ChangePoint> change_points_at(const Series& series,
                                          const std::vector<std::size_t>& indices,
                                          const std::vector<double>& ratios,
                                          const std::vector<std::array<double, 2>>& intervals,
                                          const std::vector<double>& p_values) {
  std::vector<ChangePoint> changes;
  changes.reserve(indices.size());
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const auto [begin, end] = segment_bounds(indices, k, series.points.size());
    changes.push_back({.case_name = series.case_name,
                       .metric = series.metric,
                       .unit = series.unit,
                       .direction = series.direction,
                       .index = indices[k],
                       .before = last_commit_of(series.points[indices[k] - 1]),
                       .commit = series.points[indices[k]].commit,
                       .ratio = ratios[k],
                       .ci = intervals[k],
                       .p_value = p_values[k],
                       .sessions = sessions_between(series, begin, end)});
  }
  return changes;
}

// Puts the change points (and their p-values alongside) in the order of the series.
void sort_by_index(std::vector<std::size_t>& indices, std::vector<double>& p_values) {
  std::vector<std::size_t> order(indices.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  std::ranges::sort(order, {}, [&](std::size_t k) { return indices[k]; });
  std::vector<std::size_t> sorted_indices;
  std::vector<double> sorted_p_values;
  for (const auto k : order) {
    sorted_indices.push_back(indices[k]);
    sorted_p_values.push_back(p_values[k]);
  }
  indices = std::move(sorted_indices);
  p_values = std::move(sorted_p_values);
}

// The standard error of the log ratio of two neighbouring points, from their replicates: the
// normal-consistent median absolute deviation (1.4826 MAD) of the replicates' log ratios, or their
// standard deviation when the MAD is zero. Robust, because a run that was slow from its first
// sample to its last (a loaded machine) gives the bootstrap of a point's level a long tail: the
// few replicates that draw it many times blow the standard deviation up to eight times the
// spread of the rest (a 50% step then stood out of nothing), while the level itself, a median of
// runs, does not move. None when a replicate is not positive or there are fewer than two.
//
// A point of one run has no such tail, and its bootstrap is lumpy instead: its replicates are
// one of its few samples (a median of five draws the middle three nine times in ten), so when
// those happen to lie close together the MAD of a pair comes out near zero, and a step of 2.5%
// between two points of 2% noise stood out with p = 1e-157 (54 false change points in 500
// imported series of 200 points). A pair with a point of one run takes the replicates' standard
// deviation, and at least the series' own scatter from point to point (`scatter`).
std::optional<double> pair_error(const std::vector<double>& before,
                                 const std::vector<double>& after, bool one_run = false,
                                 double scatter = 0) {
  const std::size_t count = std::min(before.size(), after.size());
  if (count < 2)
    return std::nullopt;
  std::vector<double> log_ratios;
  log_ratios.reserve(count);
  for (std::size_t b = 0; b < count; ++b) {
    const bool positive = before[b] > 0 && after[b] > 0; // and not NaN
    if (!positive)
      return std::nullopt;
    log_ratios.push_back(std::log(after[b] / before[b]));
  }
  if (one_run) {
    const auto deviation = stats::standard_deviation(log_ratios);
    if (!deviation)
      return std::nullopt;
    return std::max(*deviation, scatter);
  }
  const auto summary = stats::summarize(log_ratios);
  if (!summary)
    return std::nullopt;
  return summary->mad > 0 ? stats::k_mad_to_sigma * summary->mad : summary->standard_deviation;
}

// The point-to-point scatter of a series: the normal-consistent MAD of its neighbouring log
// differences, which is the error of a pair where nothing changed (steps are few among the
// differences, so the median sees the noise). Zero with fewer than three points.
double point_scatter(const std::vector<double>& logs) {
  if (logs.size() < 3)
    return 0;
  std::vector<double> differences;
  differences.reserve(logs.size() - 1);
  for (std::size_t i = 1; i < logs.size(); ++i)
    differences.push_back(logs[i] - logs[i - 1]);
  const auto summary = stats::summarize(differences);
  return summary ? stats::k_mad_to_sigma * summary->mad : 0;
}

// Whether the step from point i - 1 to point i is judged as a pair with a point of one run.
bool one_run_pair(const Series& series, std::size_t i) {
  return series.points[i - 1].runs < 2 || series.points[i].runs < 2;
}

// The error of the step from point i - 1 to point i (pair_error, with their runs).
std::optional<double> step_error(const Series& series, const PointReplicates& replicates,
                                 std::size_t i, double scatter) {
  return pair_error(replicates[i - 1], replicates[i], one_run_pair(series, i), scatter);
}

// The two-sided p-value of a step of `step` (log) with standard error `error`.
double step_p_value(double step, double error) {
  return error > 0 ? std::erfc(std::abs(step) / (std::numbers::sqrt2 * error))
                   : (step != 0 ? 0 : 1);
}

// Steps between neighbouring points that their replicates resolve, with their p-values (already
// multiplied by the number of pairs). Needs replicates: without them a point's uncertainty is
// unknown.
void neighbour_steps(const Series& series, const std::vector<double>& logs,
                     const PointReplicates& replicates, const ChangeOptions& options,
                     std::vector<std::size_t>& indices, std::vector<double>& p_values) {
  if (replicates.empty() || logs.size() < 2)
    return;
  const auto pairs = static_cast<double>(logs.size() - 1);
  const double scatter = point_scatter(logs);
  for (std::size_t i = 1; i < logs.size(); ++i) {
    const double step = logs[i] - logs[i - 1];
    // A step below the threshold is never taken, nor one of a pair of one run that the series'
    // scatter (the least error such a pair gets) already leaves insignificant; their replicates
    // are not drawn.
    if (std::abs(step) < std::log1p(options.min_change) ||
        std::ranges::find(indices, i) != indices.end() ||
        (one_run_pair(series, i) && step_p_value(step, scatter) * pairs > options.significance))
      continue;
    const auto error = step_error(series, replicates, i, scatter);
    if (!error)
      continue;
    const double p_value = step_p_value(step, *error);
    if (p_value * pairs <= options.significance) {
      indices.push_back(i);
      p_values.push_back(std::min(1.0, p_value * pairs));
    }
  }
}

} // namespace

Result<std::vector<ChangePoint>> find_change_points(const Series& series,
                                                    const ChangeOptions& options,
                                                    const PointReplicates& replicates) {
  std::vector<double> levels;
  std::vector<double> logs;
  for (const auto& point : series.points) {
    if (!(point.median > 0))
      return infra_error("case {} metric {} has a median of {} at {}; change points need "
                         "positive values",
                         series.case_name, series.metric, point.median, point.commit.substr(0, 12));
    levels.push_back(point.median);
    logs.push_back(std::log(point.median));
  }
  if (!replicates.empty() && replicates.size() != levels.size())
    return infra_error("case {}: {} replicate rows for {} points", series.case_name,
                       replicates.size(), levels.size());
  std::vector<std::size_t> indices;
  std::vector<double> p_values;
  if (logs.size() >= 2 * options.min_segment) {
    stats::ChangePointOptions e_divisive;
    e_divisive.significance = options.significance;
    e_divisive.permutations = options.permutations;
    e_divisive.min_segment = options.min_segment;
    e_divisive.seed = options.seed;
    e_divisive.threads = options.threads;
    CULPRIT_TRY_ASSIGN(auto found, measure::from_stats(stats::e_divisive(logs, e_divisive),
                                                       fmt::format("case {}", series.case_name)));
    for (const auto& point : found) {
      indices.push_back(point.index);
      p_values.push_back(point.p_value);
    }
  }
  neighbour_steps(series, logs, replicates, options, indices, p_values);
  sort_by_index(indices, p_values);
  // Drop the smallest step that is below min_change, or whose interval holds no change, one at a
  // time: removing one merges two segments and changes the ratios of its neighbours.
  for (;;) {
    const auto ratios = step_ratios(levels, indices);
    std::vector<std::array<double, 2>> intervals;
    for (std::size_t k = 0; k < indices.size(); ++k) {
      const auto [begin, end] = segment_bounds(indices, k, levels.size());
      intervals.push_back(replicates.empty()
                              ? std::array{ratios[k], ratios[k]}
                              : step_interval(replicates, begin, indices[k], end, options));
    }
    std::optional<std::size_t> smallest;
    for (std::size_t k = 0; k < ratios.size(); ++k) {
      const double size = std::abs(std::log(ratios[k]));
      const bool holds_none = intervals[k][0] <= 1 && intervals[k][1] >= 1;
      if ((size < std::log1p(options.min_change) || holds_none) &&
          (!smallest || size < std::abs(std::log(ratios[*smallest]))))
        smallest = k;
    }
    if (!smallest)
      return change_points_at(series, indices, ratios, intervals, p_values);
    indices.erase(indices.begin() + static_cast<std::ptrdiff_t>(*smallest));
    p_values.erase(p_values.begin() + static_cast<std::ptrdiff_t>(*smallest));
  }
}

Result<std::vector<std::vector<ChangePoint>>>
find_change_points_of(std::span<std::pair<Series, PointReplicates>> series,
                      const ChangeOptions& options) {
  std::vector<Result<std::vector<ChangePoint>>> found(series.size(), std::vector<ChangePoint>{});
  ChangeOptions one_thread = options;
  if (series.size() > 1)
    one_thread.threads = 1;
  const std::size_t workers =
      std::min<std::size_t>(stats::resolve_threads(options.threads), series.size());
  std::atomic<std::size_t> next{0};
  // A series takes milliseconds: every worker is worth its thread, and takes the next series as
  // it finishes one.
  stats::parallel_blocks(
      workers, options.threads,
      [&](std::size_t, std::size_t) {
        for (std::size_t i = next++; i < series.size(); i = next++) {
          auto& [one, replicates] = series[i];
          found[i] = find_change_points(one, one_thread, replicates);
          if (found[i] && found[i]->empty())
            one.no_change_reason = no_change_reason(one, one_thread, replicates);
        }
      },
      1);
  std::vector<std::vector<ChangePoint>> all;
  all.reserve(found.size());
  for (auto& changes : found) {
    if (!changes)
      return std::unexpected(std::move(changes.error()));
    all.push_back(std::move(*changes));
  }
  return all;
}

std::string no_change_reason(const Series& series, const ChangeOptions& options,
                             const PointReplicates& replicates) {
  const auto n = series.points.size();
  if (n < 2)
    return n == 0 ? "no point" : "one point: a change needs two";
  const std::string e_divisive =
      n < 2 * options.min_segment
          ? fmt::format("; {} points are too few for E-divisive (it needs {}), so only neighbours "
                        "were compared",
                        n, 2 * options.min_segment)
          : std::string();
  // The standard error of each neighbouring pair's log ratio, from the replicates.
  std::vector<double> errors;
  std::vector<double> logs;
  logs.reserve(series.points.size());
  for (const auto& point : series.points)
    logs.push_back(std::log(point.median > 0 ? point.median : 1.0));
  const double scatter = point_scatter(logs);
  // The typical pair is the median of at most k_typical_pairs of them, evenly spread: a long
  // series then draws the replicates of a few of its points, not all.
  const std::size_t pairs = replicates.empty() ? 0 : std::min(n, replicates.size()) - 1;
  const std::size_t looked_at = std::min(pairs, k_typical_pairs);
  for (std::size_t k = 0; k < looked_at; ++k)
    if (const auto error = step_error(series, replicates, 1 + (k * pairs / looked_at), scatter))
      errors.push_back(*error);
  if (errors.empty())
    return fmt::format("no step was found, and the points have no runs to tell their noise{}",
                       e_divisive);
  std::ranges::sort(errors);
  const double typical = errors[errors.size() / 2];
  const double tail = options.significance / (2 * static_cast<double>(n - 1));
  const double z = boost::math::quantile(boost::math::complement(boost::math::normal(), tail));
  const double resolvable = std::max(std::expm1(z * typical), options.min_change);
  return fmt::format("a step between neighbouring points needs about {:.1f}% to stand out of "
                     "their noise and the {:.1f}% threshold{}",
                     resolvable * 100, options.min_change * 100, e_divisive);
}

} // namespace culprit::history
