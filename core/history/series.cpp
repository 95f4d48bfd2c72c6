#include "core/history/series.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "core/measure/case_select.hpp"
#include "core/measure/stats_bridge.hpp"
#include "stats/bootstrap.hpp"
#include "stats/change_points.hpp"
#include "stats/summary.hpp"

namespace culprit::history {
namespace {

store::MeasurementKey key_of(const TrackedPoint& point) {
  return {point.artifact_id, point.recipe_hash, point.host_id};
}

Result<SeriesPoint> summarize_point(const TrackedPoint& tracked, const store::CaseRuns& runs,
                                    const HistoryOptions& options) {
  SeriesPoint point{.commit = tracked.commit,
                    .host_id = tracked.host_id,
                    .source = tracked.source,
                    .runs = runs.samples.size()};
  std::vector<double> pooled;
  for (const auto& run : runs.samples)
    pooled.insert(pooled.end(), run.begin(), run.end());
  CULPRIT_TRY_ASSIGN(point.median, lift(stats::median(pooled), tracked.commit));
  point.ci = {point.median, point.median};
  if (runs.samples.size() >= 2 || pooled.size() >= 2) {
    stats::BootstrapOptions bootstrap;
    bootstrap.confidence = options.confidence;
    bootstrap.seed = options.seed;
    bootstrap.method = stats::IntervalMethod::percentile;
    bootstrap.resamples = options.resamples;
    bootstrap.threads = 1;
    if (auto interval = stats::level_interval(runs.samples, stats::Statistic::median, bootstrap))
      point.ci = {interval->lower, interval->upper};
  }
  return point;
}

double segment_median(const std::vector<double>& values, std::size_t begin, std::size_t end) {
  std::vector<double> segment(values.begin() + static_cast<std::ptrdiff_t>(begin),
                              values.begin() + static_cast<std::ptrdiff_t>(end));
  std::ranges::sort(segment);
  return stats::quantile_of_sorted(segment, 0.5);
}

// The ratio of the level after each change point to the level before it.
std::vector<double> step_ratios(const std::vector<double>& levels,
                                const std::vector<std::size_t>& indices) {
  std::vector<double> ratios;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::size_t begin = k == 0 ? 0 : indices[k - 1];
    const std::size_t end = k + 1 == indices.size() ? levels.size() : indices[k + 1];
    ratios.push_back(segment_median(levels, indices[k], end) /
                     segment_median(levels, begin, indices[k]));
  }
  return ratios;
}

} // namespace

Result<std::vector<TrackedPoint>> choose_points(const std::vector<TrackedPoint>& tracked,
                                                const HistoryOptions& options) {
  // The last tracked recipe of each (commit, host), in the order of the ledger.
  std::map<std::pair<std::string, std::string>, std::size_t> latest;
  std::vector<TrackedPoint> chosen;
  for (const auto& point : tracked) {
    if (options.host && point.host_id != *options.host)
      continue;
    const auto [it, inserted] = latest.try_emplace({point.commit, point.host_id}, chosen.size());
    if (inserted)
      chosen.push_back(point);
    else if (point.tracked_at >= chosen[it->second].tracked_at)
      chosen[it->second] = point;
  }
  std::set<std::string> hosts;
  for (const auto& point : chosen)
    hosts.insert(point.host_id);
  if (hosts.size() > 1 && !options.all_hosts)
    return usage_error("the tracked history mixes results of {} hosts ({}); choose one with "
                       "--host ID, or pass --all-hosts to show them together",
                       hosts.size(), fmt::join(hosts, ", "));
  return chosen;
}

Result<History> load_history(store::Store& store, const std::vector<TrackedPoint>& points,
                             const HistoryOptions& options) {
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<store::CaseMetric> available;
  for (const auto& point : points) {
    CULPRIT_TRY_ASSIGN(const auto cases, store.measured_cases(key_of(point)));
    for (const auto& c : cases)
      if (seen.insert({c.case_name, c.metric}).second)
        available.push_back(c);
  }
  if (available.empty())
    return usage_error("nothing is measured at the {} tracked commit(s); run 'culprit track "
                       "RANGE' or 'culprit import FILE --commit REV' first",
                       points.size());
  CULPRIT_TRY_ASSIGN(const auto selected,
                     select_cases(available, options.case_globs, options.metric));

  History history;
  std::set<std::string> hosts;
  for (const auto& chosen : selected) {
    Series series{chosen.key.case_name, chosen.key.metric, chosen.unit, chosen.direction, {}};
    for (const auto& point : points) {
      CULPRIT_TRY_ASSIGN(const auto runs, store.counted_runs(key_of(point), chosen.key.case_name,
                                                             chosen.key.metric));
      if (runs.samples.empty())
        continue;
      if (runs.unit != series.unit)
        return infra_error("case {} metric {} is in {} at {} but in {} elsewhere; the series "
                           "cannot be drawn in one unit",
                           series.case_name, series.metric, runs.unit, point.commit.substr(0, 12),
                           series.unit);
      CULPRIT_TRY_ASSIGN(auto summary, summarize_point(point, runs, options));
      hosts.insert(point.host_id);
      series.points.push_back(std::move(summary));
    }
    CULPRIT_TRY_ASSIGN(auto changes, find_change_points(series, options.change));
    history.change_points.insert(history.change_points.end(), changes.begin(), changes.end());
    history.series.push_back(std::move(series));
  }
  history.hosts.assign(hosts.begin(), hosts.end());
  return history;
}

Result<std::vector<ChangePoint>> find_change_points(const Series& series,
                                                    const ChangeOptions& options) {
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
  if (logs.size() < 2 * options.min_segment)
    return std::vector<ChangePoint>{};
  stats::ChangePointOptions e_divisive;
  e_divisive.significance = options.significance;
  e_divisive.permutations = options.permutations;
  e_divisive.min_segment = options.min_segment;
  e_divisive.seed = options.seed;
  e_divisive.threads = options.threads;
  CULPRIT_TRY_ASSIGN(auto found, lift(stats::e_divisive(logs, e_divisive),
                                      fmt::format("case {}", series.case_name)));

  std::vector<std::size_t> indices;
  std::vector<double> p_values;
  for (const auto& point : found) {
    indices.push_back(point.index);
    p_values.push_back(point.p_value);
  }
  // Drop the smallest step below min_change, one at a time: removing one merges two segments
  // and changes the ratios of its neighbours.
  for (;;) {
    const auto ratios = step_ratios(levels, indices);
    std::optional<std::size_t> smallest;
    for (std::size_t k = 0; k < ratios.size(); ++k) {
      const double size = std::abs(std::log(ratios[k]));
      if (size < std::log1p(options.min_change) &&
          (!smallest || size < std::abs(std::log(ratios[*smallest]))))
        smallest = k;
    }
    if (!smallest) {
      std::vector<ChangePoint> changes;
      changes.reserve(indices.size());
      for (std::size_t k = 0; k < indices.size(); ++k)
        changes.push_back({.case_name = series.case_name,
                           .metric = series.metric,
                           .unit = series.unit,
                           .direction = series.direction,
                           .index = indices[k],
                           .before = series.points[indices[k] - 1].commit,
                           .commit = series.points[indices[k]].commit,
                           .ratio = ratios[k],
                           .p_value = p_values[k]});
      return changes;
    }
    indices.erase(indices.begin() + static_cast<std::ptrdiff_t>(*smallest));
    p_values.erase(p_values.begin() + static_cast<std::ptrdiff_t>(*smallest));
  }
}

} // namespace culprit::history
