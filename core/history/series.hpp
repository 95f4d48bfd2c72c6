#pragma once
// A kernel's performance across history: per case and metric, one point per tracked artifact
// (the median of its runs with a two-level bootstrap interval, stats/bootstrap.hpp), in commit
// order, and the change points that E-divisive finds in the series (stats/change_points.hpp).
//
// Points. Neighbouring commits whose artifacts are byte-identical are one point: they share
// their runs, and counting them twice would make one measurement look like several. A point
// names its first and last commit.
//
// Sessions. Each `culprit track` is a session, and the runs of two sessions are not samples of
// one level: the machine may have been busier one night. Every session also measured an anchor,
// a commit tracked before (history/track.hpp), so the levels of two sessions are tied by the
// commits they both measured: a session's factor is the median, over those commits, of its
// level over the other session's, chained to the newest session, whose factor is 1. A point
// shows the runs of the newest session that measured it, divided by that session's factor, so
// that every point reads as if measured in the newest session. A session that shares no commit
// with the others cannot be aligned; it is shown with factor 1 and said so.
//
// Change points are searched in the logarithm of the aligned medians, so that a step is a ratio
// whatever the level, and noise of a given relative size weighs the same at every level; and
// between neighbouring points whose replicates resolve a step on their own, so that a series of
// a few points (commits that share artifacts are one point) or a step at its newest point is not
// out of reach (change_points.cpp says how). A
// change point is reported with the commits on either side, the ratio of the new level to the
// old one (the medians of the point medians of the segments on either side, bounded by the
// neighbouring change points), its interval, the sessions whose runs it rests on, and
// E-divisive's permutation p-value. The interval is a bootstrap that draws, in each replicate,
// the runs of every measurement (so the anchors' factors vary with their runs) and then the
// points of each segment. Steps smaller than the smallest change that matters (min_change) and
// steps whose interval holds no change are dropped, one at a time, and the neighbours' ratios
// recomputed without them: a shift too small or too uncertain to act on is no finding.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/history/ledger.hpp"
#include "core/parsers/metric.hpp"
#include "core/recipe/recipe.hpp"
#include "core/store/store.hpp"
#include "core/util/error.hpp"

namespace culprit::history {

struct SeriesPoint {
  std::string commit;      // the first commit of the point
  std::string last_commit; // the last commit whose artifacts are identical to its
  std::size_t commits = 1; // how many commits the point stands for
  std::string host_id;
  std::string source;  // track | import
  std::string session; // whose runs give the point (SessionLevel::id)
  double median = 0;   // aligned: as if measured in the newest session
  std::array<double, 2> ci{0, 0};
  std::size_t runs = 0;
};

// One session of a series: its label ("" for runs from before sessions were kept, "import" for
// imported results), when it started, and how its level compares with the newest session's.
struct SessionLevel {
  std::string id;
  store::TimePoint started;
  double factor = 1;                // this session's level / the newest session's, from the anchors
  bool aligned = true;              // false: no commit ties it to the others; factor 1 is a guess
  std::vector<std::string> anchors; // commits it shares with the session it is aligned by
  std::size_t points = 0;           // points whose runs it gives
};

struct Series {
  std::string case_name;
  std::string metric;
  std::string unit;
  parsers::Direction direction = parsers::Direction::lower_is_better;
  std::vector<SeriesPoint> points;    // in commit order
  std::vector<SessionLevel> sessions; // that measured its points, oldest first
  // When it has no change point: why none could be found (too few points, or the smallest step
  // its points could resolve), for the reader who sees a step by eye.
  std::string no_change_reason;
};

struct ChangePoint {
  std::string case_name;
  std::string metric;
  std::string unit;
  parsers::Direction direction = parsers::Direction::lower_is_better;
  std::size_t index = 0; // into the series' points: the first of the new level
  std::string before;    // the last measured commit of the old level
  std::string commit;    // the first measured commit of the new level
  double ratio = 1;      // new level / old level
  std::array<double, 2> ci{1, 1};
  // E-divisive's permutation p-value; for a step between two neighbouring points found by their
  // replicates, that test's p-value times the number of neighbouring pairs.
  double p_value = 1;
  // The sessions whose runs give the points of the two segments, oldest first.
  std::vector<std::string> sessions;
  [[nodiscard]] bool regression() const {
    return direction == parsers::Direction::lower_is_better ? ratio > 1 : ratio < 1;
  }
};

struct ChangeOptions {
  // E-divisive's defaults (significance 0.05, 199 permutations) call a change in about one noise
  // series in twenty; a nightly history of a hundred cases would then raise several false alarms
  // every night. 0.01 with 499 permutations keeps that near one in a hundred.
  double significance = 0.01;
  std::size_t permutations = 499;
  std::size_t min_segment = 3;
  // The threshold (smaller steps are dropped), the level of the step's interval and the seed:
  // the recipe's [decide] settings.
  double min_change = recipe::DecideOptions{}.threshold;
  double confidence = recipe::DecideOptions{}.confidence;
  std::size_t resamples = 1000;
  std::uint64_t seed = recipe::DecideOptions{}.seed;
  unsigned threads = 0;
};

// The least time one call of a case can take at a point (its roofline bound,
// core/roofline/roofline.hpp), or why there is none.
struct RooflineBound {
  std::optional<double> seconds;
  std::string reason;
};
using RooflineBoundFn = std::function<Result<RooflineBound>(
    const TrackedPoint& point, const std::string& case_name, const std::string& metric)>;

struct HistoryOptions {
  std::vector<std::string> case_globs; // empty: every case
  std::string metric;                  // empty: each case's primary metric
  std::optional<std::string> host;     // only this host's points
  bool all_hosts = false;              // allow points of several hosts in one series
  double confidence = recipe::DecideOptions{}.confidence;
  std::uint64_t seed = recipe::DecideOptions{}.seed;
  std::size_t resamples = 1000; // of the bootstrap interval of each point
  ChangeOptions change;
  // The recipe's threshold, confidence and seed, for the points and the change points alike.
  void decide_by(const recipe::DecideOptions& decide) {
    confidence = change.confidence = decide.confidence;
    seed = change.seed = decide.seed;
    change.min_change = decide.threshold;
  }
  // When set, each point shows its share of its roofline bound (bound / level, in percent,
  // higher is better) instead of its level; points without a bound are left out, and a series
  // left with none is said so in History::notes.
  RooflineBoundFn roofline;
};

struct History {
  std::vector<Series> series;             // by case, then metric
  std::vector<ChangePoint> change_points; // by case, metric, index
  std::vector<std::string> hosts;         // of the points shown, sorted
  std::vector<std::string> notes;         // what could not be shown, and why
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

// What the bootstrap of a step needs: for each point, `resamples` replicates of its aligned
// level (the runs of every measurement drawn again and the sessions aligned again in each). Empty
// when a series has no runs to draw (the intervals are then the point estimates).
//
// A row is drawn when it is first read where the series can draw its rows one at a time (a
// series of one session: each point's replicates then depend on its own runs alone), so the
// search over thousands of long series draws only the points it looks at closely: neighbours a
// step apart, and the segments around a change point. The rows are the same either way.
class PointReplicates {
public:
  using Row = std::vector<double>;
  using Draw = std::function<Row(std::size_t point)>;

  PointReplicates() = default;
  PointReplicates(std::size_t points, Draw draw);
  void push_back(Row row);
  [[nodiscard]] bool empty() const { return m_rows.empty(); }
  [[nodiscard]] std::size_t size() const { return m_rows.size(); }
  const Row& operator[](std::size_t point) const;
  [[nodiscard]] const Row& front() const { return (*this)[0]; }
  // Draws the rows of points [begin, end) not drawn yet, on up to `threads` threads (0: every
  // core), so that readers on several threads find them there. The rows are the same either way.
  void draw_rows(std::size_t begin, std::size_t end, unsigned threads) const;
  // How many rows have been drawn or given (for the tests of the lazy draw).
  [[nodiscard]] std::size_t rows_held() const;

private:
  Draw m_draw;
  mutable std::vector<std::optional<Row>> m_rows;
};

// The change points of one series; `replicates` (one row per point) give their intervals.
Result<std::vector<ChangePoint>> find_change_points(const Series& series,
                                                    const ChangeOptions& options,
                                                    const PointReplicates& replicates = {});

// The change points of each series, on several threads (a series to a thread, each searched on
// one; a series alone has them all); a series without any gets its no_change_reason. The same
// answers as one series at a time.
Result<std::vector<std::vector<ChangePoint>>>
find_change_points_of(std::span<std::pair<Series, PointReplicates>> series,
                      const ChangeOptions& options);

// Why a series without change points has none: "one point", or the smallest step between two
// neighbouring points that their replicates could resolve at the series' level (and the
// threshold), and that E-divisive had too few points to look at all.
std::string no_change_reason(const Series& series, const ChangeOptions& options,
                             const PointReplicates& replicates);

// Whether neighbouring tracked points are one point of a series: the same artifact measured on the
// same host under the same recipe (commits that changed nothing the benchmark is built from).
bool one_series_point(const TrackedPoint& before, const TrackedPoint& point);

// The label of a session as people read it: "2026-11-25 02:00:05 UTC" for a track session,
// "before sessions were kept", "imported".
std::string session_label(std::string_view id);

} // namespace culprit::history
