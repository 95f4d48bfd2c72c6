#pragma once
// A kernel's performance across history: per case and metric, one point per tracked commit (the
// median of its runs with a two-level bootstrap interval, stats/bootstrap.hpp), in commit order,
// and the change points that E-divisive finds in the series (stats/change_points.hpp).
//
// Change points are searched in the logarithm of the medians, so that a step is a ratio whatever
// the level, and noise of a given relative size weighs the same at every level. A change point
// is reported with the commits on either side, the ratio of the new level to the old one (the
// medians of the point medians of the segments on either side, bounded by the neighbouring
// change points) and E-divisive's permutation p-value. Steps smaller than the smallest change
// that matters (min_change) are dropped, and the neighbours' ratios recomputed without them: a
// shift too small to act on is no finding.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/history/ledger.hpp"
#include "core/metric.hpp"
#include "core/store/store.hpp"

namespace culprit::history {

struct SeriesPoint {
  std::string commit;
  std::string host_id;
  std::string source; // track | import
  double median = 0;
  std::array<double, 2> ci{0, 0};
  std::size_t runs = 0;
};

struct Series {
  std::string case_name;
  std::string metric;
  std::string unit;
  Direction direction = Direction::lower_is_better;
  std::vector<SeriesPoint> points; // in commit order
};

struct ChangePoint {
  std::string case_name;
  std::string metric;
  std::string unit;
  Direction direction = Direction::lower_is_better;
  std::size_t index = 0; // into the series' points: the first of the new level
  std::string before;    // the last measured commit of the old level
  std::string commit;    // the first measured commit of the new level
  double ratio = 1;      // new level / old level
  double p_value = 1;
  [[nodiscard]] bool regression() const {
    return direction == Direction::lower_is_better ? ratio > 1 : ratio < 1;
  }
};

struct ChangeOptions {
  // E-divisive's defaults (significance 0.05, 199 permutations) call a change in about one noise
  // series in twenty; a nightly history of a hundred cases would then raise several false alarms
  // every night. 0.01 with 499 permutations keeps that near one in a hundred.
  double significance = 0.01;
  std::size_t permutations = 499;
  std::size_t min_segment = 3;
  double min_change = 0.02; // the threshold: smaller steps are dropped
  std::uint64_t seed = 1;
  unsigned threads = 0;
};

struct HistoryOptions {
  std::vector<std::string> case_globs; // empty: every case
  std::string metric;                  // empty: each case's primary metric
  std::optional<std::string> host;     // only this host's points
  bool all_hosts = false;              // allow points of several hosts in one series
  double confidence = 0.95;
  std::uint64_t seed = 1;
  std::size_t resamples = 1000; // of the bootstrap interval of each point
  ChangeOptions change;
};

struct History {
  std::vector<Series> series;             // by case, then metric
  std::vector<ChangePoint> change_points; // by case, metric, index
  std::vector<std::string> hosts;         // of the points shown, sorted
};

// The points of `tracked` that the options take: those of `host` when given; when they come from
// more than one host and all_hosts is not set, a usage error that names the hosts. When a commit
// was tracked on a host under several recipes, the one tracked last stands.
Result<std::vector<TrackedPoint>> choose_points(const std::vector<TrackedPoint>& tracked,
                                                const HistoryOptions& options);

// The series of every selected case and metric over `points` (already chosen and in order), with
// their change points. Cases are selected as compare selects them (core/measure/case_select).
// Errors: nothing measured at any point, globs that match no case (usage).
Result<History> load_history(store::Store& store, const std::vector<TrackedPoint>& points,
                             const HistoryOptions& options);

// The change points of one series.
Result<std::vector<ChangePoint>> find_change_points(const Series& series,
                                                    const ChangeOptions& options);

} // namespace culprit::history
