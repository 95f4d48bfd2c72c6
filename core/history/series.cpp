#include "core/history/series.hpp"

#include <algorithm>
#include <cmath>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "core/measure/case_select.hpp"
#include "core/measure/stats_bridge.hpp"
#include "stats/bootstrap.hpp"
#include "stats/parallel.hpp"
#include "stats/resampler.hpp"
#include "stats/rng.hpp"
#include "stats/summary.hpp"

namespace culprit::history {
namespace {

constexpr std::string_view k_unlabeled_session; // runs from before sessions were kept
// From this many series on, the runs are read a batch of this many cases at a time.
constexpr std::size_t k_batch_from = 16;
constexpr std::size_t k_batch_cases = 128;
// How many series have their change points searched at once, one to a thread.
constexpr std::size_t k_searched_together = 64;
constexpr std::string_view k_import_session = "import";

// Neighbouring tracked points whose artifacts are identical: one point of the series.
struct Group {
  std::vector<const TrackedPoint*> members;
  std::vector<SessionMark> marks; // the sessions that measured its artifact
};

std::vector<SessionMark> marks_of(const TrackedPoint& point) {
  if (!point.sessions.empty())
    return point.sessions;
  const auto id = point.source == "import" ? k_import_session : k_unlabeled_session;
  return {{.id = std::string(id), .artifact_id = point.artifact_id, .at = point.tracked_at}};
}

std::vector<Group> group_points(const std::vector<TrackedPoint>& points) {
  std::vector<Group> groups;
  for (const auto& point : points) {
    const bool same = !groups.empty() && one_series_point(*groups.back().members.back(), point);
    if (!same)
      groups.emplace_back();
    auto& group = groups.back();
    group.members.push_back(&point);
    for (auto mark : marks_of(point)) {
      const auto it = std::ranges::find_if(group.marks, [&](const SessionMark& m) {
        return m.id == mark.id && m.artifact_id == mark.artifact_id;
      });
      if (it == group.marks.end())
        group.marks.push_back(std::move(mark));
      else
        it->at = std::min(it->at, mark.at);
    }
  }
  return groups;
}

store::Freshness runs_of_session(std::string_view id) {
  store::Freshness freshness;
  if (id == k_unlabeled_session)
    freshness.unlabeled = true;
  else if (id != k_import_session)
    freshness.session = std::string(id);
  return freshness;
}

// The runs of one point's artifact in one session.
struct Observation {
  std::size_t group = 0;
  std::size_t session = 0; // index into the sessions, oldest first
  stats::Runs runs;
  double level = 0; // the median of the pooled samples
};

// How the sessions of a series are tied to the newest one: the order in which they are aligned
// (the newest first) and, for each, the pairs of observations of one point in it and in a
// session aligned before it.
struct Link {
  std::size_t observation = 0;
  std::size_t other = 0; // the observation of the same point in an aligned session
};
struct Alignment {
  std::vector<std::size_t> order;
  std::vector<std::vector<Link>> links;       // links[i] tie order[i]; empty for the reference
  std::vector<bool> aligned;                  // by session
  std::vector<std::set<std::size_t>> anchors; // by session: the groups that tie it
};

Alignment plan_alignment(const std::vector<Observation>& observations, std::size_t sessions) {
  Alignment alignment;
  alignment.aligned.assign(sessions, false);
  alignment.anchors.resize(sessions);
  std::vector<bool> present(sessions, false);
  std::map<std::size_t, std::vector<std::size_t>> by_group;
  for (std::size_t o = 0; o < observations.size(); ++o) {
    present[observations[o].session] = true;
    by_group[observations[o].group].push_back(o);
  }
  std::optional<std::size_t> newest;
  for (std::size_t s = 0; s < sessions; ++s)
    if (present[s])
      newest = s;
  if (!newest)
    return alignment;
  alignment.order.push_back(*newest);
  alignment.links.emplace_back();
  alignment.aligned[*newest] = true;
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t s = sessions; s-- > 0;) {
      if (!present[s] || alignment.aligned[s])
        continue;
      std::vector<Link> links;
      for (std::size_t o = 0; o < observations.size(); ++o) {
        if (observations[o].session != s)
          continue;
        for (const auto other : by_group[observations[o].group]) {
          const auto other_session = observations[other].session;
          if (other_session != s && alignment.aligned[other_session]) {
            links.push_back({o, other});
            alignment.anchors[s].insert(observations[o].group);
          }
        }
      }
      if (links.empty())
        continue;
      alignment.aligned[s] = true;
      alignment.order.push_back(s);
      alignment.links.push_back(std::move(links));
      progress = true;
    }
  }
  return alignment;
}

// Each session's level over the newest session's, from the observations' levels.
std::vector<double> session_factors(const Alignment& alignment,
                                    const std::vector<Observation>& observations,
                                    const std::vector<double>& levels, std::size_t sessions) {
  std::vector<double> factors(sessions, 1.0);
  std::vector<double> logs;
  for (std::size_t i = 1; i < alignment.order.size(); ++i) {
    logs.clear();
    for (const auto& link : alignment.links[i])
      logs.push_back(std::log(levels[link.observation]) - std::log(levels[link.other]) +
                     std::log(factors[observations[link.other].session]));
    std::ranges::sort(logs);
    factors[alignment.order[i]] = std::exp(stats::quantile_of_sorted(logs, 0.5));
  }
  return factors;
}

double pooled_median(const stats::Runs& runs) {
  std::vector<double> pooled;
  for (const auto& run : runs)
    pooled.insert(pooled.end(), run.begin(), run.end());
  std::ranges::sort(pooled);
  return stats::quantile_of_sorted(pooled, 0.5);
}

// `count` bootstrap replicates of an observation's level: runs drawn with replacement, then
// samples within each (one run: its samples drawn).
std::vector<double> level_replicates(const stats::Runs& runs, std::size_t count, std::uint64_t seed,
                                     std::uint64_t stream) {
  std::vector<double> pooled;
  for (const auto& run : runs)
    pooled.insert(pooled.end(), run.begin(), run.end());
  std::unique_ptr<stats::Resampler> resampler;
  if (runs.size() >= 2)
    resampler = stats::make_resampler(runs, stats::Statistic::median);
  else if (pooled.size() >= 2)
    resampler = stats::make_resampler(pooled, stats::Statistic::median);
  std::vector<double> replicates(count, pooled_median(runs));
  if (!resampler)
    return replicates;
  stats::Rng rng(seed, stream);
  std::vector<double> scratch;
  for (auto& replicate : replicates)
    replicate = resampler->replicate(rng, scratch);
  return replicates;
}

Result<SeriesPoint> summarize_point(const Group& group, const Observation& home,
                                    const std::string& session, double factor,
                                    const HistoryOptions& options) {
  const auto& first = *group.members.front();
  SeriesPoint point{.commit = first.commit,
                    .last_commit = group.members.back()->commit,
                    .commits = group.members.size(),
                    .host_id = first.host_id,
                    .source = first.source,
                    .session = session,
                    .median = home.level / factor,
                    .ci = {},
                    .runs = home.runs.size()};
  point.ci = {point.median, point.median};
  if (home.runs.size() >= 2) {
    const auto bootstrap =
        measure::level_interval_options(options.confidence, options.seed, options.resamples, 1);
    if (auto interval = stats::level_interval(home.runs, stats::Statistic::median, bootstrap))
      point.ci = {interval->lower / factor, interval->upper / factor};
  }
  return point;
}

} // namespace

PointReplicates::PointReplicates(std::size_t points, Draw draw)
    : m_draw(std::move(draw)), m_rows(points) {}

void PointReplicates::push_back(Row row) {
  m_rows.emplace_back(std::move(row));
}

const PointReplicates::Row& PointReplicates::operator[](std::size_t point) const {
  auto& row = m_rows.at(point);
  if (!row)
    row = m_draw(point);
  return *row;
}

void PointReplicates::draw_rows(std::size_t begin, std::size_t end, unsigned threads) const {
  end = std::min(end, m_rows.size());
  if (!m_draw || begin >= end)
    return;
  // Each thread fills rows of its own; the vector itself does not change size.
  stats::parallel_blocks(end - begin, threads, [&](std::size_t first, std::size_t last) {
    for (std::size_t p = begin + first; p < begin + last; ++p)
      if (!m_rows[p])
        m_rows[p] = m_draw(p);
  });
}

std::size_t PointReplicates::rows_held() const {
  return static_cast<std::size_t>(
      std::ranges::count_if(m_rows, [](const std::optional<Row>& row) { return row.has_value(); }));
}

bool one_series_point(const TrackedPoint& before, const TrackedPoint& point) {
  return before.artifact_id == point.artifact_id && before.host_id == point.host_id &&
         before.recipe_hash == point.recipe_hash;
}

std::string session_label(std::string_view id) {
  if (id == k_unlabeled_session)
    return "before sessions were kept";
  if (id == k_import_session)
    return "imported";
  // "track:2026-11-25T14:00:05.123456Z/1234" -> "2026-11-25 14:00:05 UTC"
  if (id.starts_with("track:") && id.size() >= 25 && id[16] == 'T')
    return fmt::format("{} {} UTC", id.substr(6, 10), id.substr(17, 8));
  return std::string(id);
}

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

namespace {

// The sessions of the groups, oldest first (by the first time each recorded a commit).
std::vector<std::pair<std::string, store::TimePoint>>
sessions_in_order(const std::vector<Group>& groups) {
  std::map<std::string, store::TimePoint> started;
  for (const auto& group : groups)
    for (const auto& mark : group.marks) {
      const auto [it, inserted] = started.try_emplace(mark.id, mark.at);
      if (!inserted)
        it->second = std::min(it->second, mark.at);
    }
  std::vector<std::pair<std::string, store::TimePoint>> order(started.begin(), started.end());
  std::ranges::sort(order, [](const auto& a, const auto& b) {
    return std::tie(a.second, a.first) < std::tie(b.second, b.first);
  });
  return order;
}

// A batch of cases read together: the names from `first` to `last`.
struct CaseRange {
  std::string first;
  std::string last;

  [[nodiscard]] bool holds(const std::string& name) const { return name >= first && name <= last; }
};

// The counted runs of a batch of cases (a range of names) at every point and in every session
// that measured it, read in one query per point and session: a history of thousands of cases
// would otherwise make a query per case, point and session.
struct Preloaded {
  CaseRange cases;
  std::vector<std::vector<std::vector<store::CaseMetricRuns>>> runs; // [group][mark], by case

  static Result<Preloaded> read(store::Store& store, const std::vector<Group>& groups,
                                CaseRange cases) {
    Preloaded preloaded{
        .cases = std::move(cases),
        .runs = std::vector<std::vector<std::vector<store::CaseMetricRuns>>>(groups.size())};
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const auto& first = *groups[g].members.front();
      for (const auto& mark : groups[g].marks) {
        CULPRIT_TRY_ASSIGN(auto runs, store.counted_runs_between(
                                          {mark.artifact_id, first.recipe_hash, first.host_id},
                                          preloaded.cases.first, preloaded.cases.last,
                                          runs_of_session(mark.id)));
        preloaded.runs[g].push_back(std::move(runs));
      }
    }
    return preloaded;
  }

  // The runs of a case of the batch at a point in a session, taken out (each is read once).
  [[nodiscard]] bool holds(const measure::CaseKey& key) const { return cases.holds(key.case_name); }
  store::CaseRuns take(std::size_t group, std::size_t mark, const measure::CaseKey& key) {
    auto& list = runs[group][mark];
    const auto it = std::ranges::lower_bound(
        list, std::tie(key.case_name, key.metric), {},
        [](const store::CaseMetricRuns& r) { return std::tie(r.case_name, r.metric); });
    if (it == list.end() || it->case_name != key.case_name || it->metric != key.metric)
      return {};
    return std::move(it->runs);
  }
};

std::vector<CaseRange> batch_ranges(const std::vector<measure::SelectedCase>& selected) {
  std::vector<CaseRange> ranges;
  for (std::size_t c = 0; c < selected.size(); ++c) {
    const auto& name = selected[c].key.case_name;
    if (!ranges.empty() && ranges.back().holds(name))
      continue;
    std::set<std::string> names;
    std::string last = name;
    for (std::size_t n = c; n < selected.size() && names.size() < k_batch_cases; ++n)
      if (names.insert(selected[n].key.case_name).second)
        last = std::max(last, selected[n].key.case_name);
    ranges.push_back({name, std::move(last)});
  }
  return ranges;
}

// One series: the observations of every point in every session, aligned; its points, sessions,
// and the replicates of the points' aligned levels.
struct SeriesBuilder {
  const std::vector<Group>& groups;
  const std::vector<std::pair<std::string, store::TimePoint>>& sessions;
  const HistoryOptions& options;
  // The group of each point of the last series built.
  std::vector<std::size_t> point_groups;
  // The runs of the cases read ahead, when there are many.
  Preloaded* preloaded = nullptr;

  Result<std::pair<Series, PointReplicates>> build(store::Store& store,
                                                   const measure::SelectedCase& chosen) {
    Series series{.case_name = chosen.key.case_name,
                  .metric = chosen.key.metric,
                  .unit = chosen.unit,
                  .direction = chosen.direction,
                  .points = {},
                  .sessions = {},
                  .no_change_reason = {}};
    std::map<std::string, std::size_t> session_index;
    for (std::size_t s = 0; s < sessions.size(); ++s)
      session_index.emplace(sessions[s].first, s);
    std::vector<Observation> observations;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const auto& first = *groups[g].members.front();
      for (std::size_t m = 0; m < groups[g].marks.size(); ++m) {
        const auto& mark = groups[g].marks[m];
        store::CaseRuns runs;
        if (preloaded != nullptr && preloaded->holds(chosen.key)) {
          runs = preloaded->take(g, m, chosen.key);
        } else {
          CULPRIT_TRY_ASSIGN(
              runs, store.counted_runs({mark.artifact_id, first.recipe_hash, first.host_id},
                                       chosen.key.case_name, chosen.key.metric,
                                       runs_of_session(mark.id)));
        }
        if (runs.samples.empty())
          continue;
        if (series.unit.empty())
          series.unit = runs.unit;
        if (runs.unit != series.unit)
          return infra_error("case {} metric {} is in {} at {} but in {} elsewhere; the series "
                             "cannot be drawn in one unit",
                             series.case_name, series.metric, runs.unit, first.commit.substr(0, 12),
                             series.unit);
        Observation observation{.group = g,
                                .session = session_index.at(mark.id),
                                .runs = std::move(runs.samples),
                                .level = 0};
        observation.level = pooled_median(observation.runs);
        if (!(observation.level > 0))
          return infra_error("case {} metric {} has a median of {} at {}; a history needs "
                             "positive values",
                             series.case_name, series.metric, observation.level,
                             first.commit.substr(0, 12));
        observations.push_back(std::move(observation));
      }
    }
    const auto alignment = plan_alignment(observations, sessions.size());
    std::vector<double> levels;
    levels.reserve(observations.size());
    for (const auto& o : observations)
      levels.push_back(o.level);
    const auto factors = session_factors(alignment, observations, levels, sessions.size());

    // Each point's runs: those of the newest session that measured it.
    std::vector<std::optional<std::size_t>> home(groups.size());
    for (std::size_t o = 0; o < observations.size(); ++o) {
      auto& h = home[observations[o].group];
      if (!h || observations[o].session >= observations[*h].session)
        h = o;
    }
    std::vector<std::size_t> points_of(sessions.size(), 0);
    std::vector<std::size_t> homes;
    point_groups.clear();
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (!home[g])
        continue;
      const auto& observation = observations[*home[g]];
      ++points_of[observation.session];
      homes.push_back(*home[g]);
      CULPRIT_TRY_ASSIGN(auto point, summarize_point(groups[g], observation,
                                                     sessions[observation.session].first,
                                                     factors[observation.session], options));
      series.points.push_back(std::move(point));
    }
    for (std::size_t s = 0; s < sessions.size(); ++s) {
      const bool present =
          std::ranges::any_of(observations, [s](const Observation& o) { return o.session == s; });
      if (!present)
        continue;
      SessionLevel level{.id = sessions[s].first,
                         .started = sessions[s].second,
                         .factor = factors[s],
                         .aligned = alignment.aligned[s],
                         .anchors = {},
                         .points = points_of[s]};
      for (const auto g : alignment.anchors[s])
        level.anchors.push_back(groups[g].members.front()->commit);
      series.sessions.push_back(std::move(level));
    }
    for (const auto h : homes)
      point_groups.push_back(observations[h].group);
    return std::pair{std::move(series), replicates(std::move(observations), alignment, homes)};
  }

  // The replicates of each point's aligned level: every observation's runs drawn again, the
  // sessions aligned again with those, in each replicate. With one session there is nothing to
  // align, and each point's row is its own runs' draws, drawn when it is first read.
  [[nodiscard]] PointReplicates replicates(std::vector<Observation> observations,
                                           const Alignment& alignment,
                                           const std::vector<std::size_t>& homes) const {
    const std::size_t count = options.change.resamples;
    if (count == 0 || homes.empty())
      return {};
    const std::uint64_t seed = options.seed;
    if (alignment.order.size() == 1 && std::ranges::all_of(observations, [&](const Observation& o) {
          return o.session == observations.front().session;
        })) {
      auto shared = std::make_shared<const std::vector<Observation>>(std::move(observations));
      return {homes.size(), [shared, homes, count, seed](std::size_t p) {
                return level_replicates((*shared)[homes[p]].runs, count, seed, homes[p]);
              }};
    }
    std::vector<std::vector<double>> drawn;
    drawn.reserve(observations.size());
    for (std::size_t o = 0; o < observations.size(); ++o)
      drawn.push_back(level_replicates(observations[o].runs, count, seed, o));
    std::vector<std::vector<double>> rows(homes.size(), std::vector<double>(count));
    std::vector<double> levels(observations.size());
    for (std::size_t b = 0; b < count; ++b) {
      for (std::size_t o = 0; o < observations.size(); ++o)
        levels[o] = drawn[o][b];
      const auto factors = session_factors(alignment, observations, levels, sessions.size());
      for (std::size_t p = 0; p < homes.size(); ++p)
        rows[p][b] = levels[homes[p]] / factors[observations[homes[p]].session];
    }
    PointReplicates points;
    for (auto& row : rows)
      points.push_back(std::move(row));
    return points;
  }
};

// The series as shares of each point's roofline bound: bound / level, in percent. Points with no
// bound leave (with their replicate rows); the reason of the first is kept.
Status to_roofline(Series& series, PointReplicates& replicates, const std::vector<Group>& groups,
                   const std::vector<std::size_t>& point_groups, const RooflineBoundFn& bound,
                   std::string& reason) {
  Series shares = series;
  shares.points.clear();
  shares.unit = "%";
  shares.direction = parsers::Direction::higher_is_better;
  shares.metric = series.metric + " (% of roofline)";
  PointReplicates kept;
  for (std::size_t p = 0; p < series.points.size(); ++p) {
    CULPRIT_TRY_ASSIGN(const auto b, bound(*groups[point_groups[p]].members.front(),
                                           series.case_name, series.metric));
    if (!b.seconds) {
      if (reason.empty())
        reason = b.reason;
      continue;
    }
    auto point = series.points[p];
    const auto share = [&](double level) { return 100 * *b.seconds / level; };
    point.median = share(point.median);
    point.ci = {share(series.points[p].ci[1]), share(series.points[p].ci[0])};
    shares.points.push_back(std::move(point));
    if (!replicates.empty()) {
      auto row = replicates[p];
      for (auto& value : row)
        value = share(value);
      kept.push_back(std::move(row));
    }
  }
  series = std::move(shares);
  replicates = std::move(kept);
  return {};
}

// The change points of each pending series, added to the history with it in their order; then
// none is pending. Touches only history.series and history.change_points, so that the next series
// can be read meanwhile.
Status search(std::vector<std::pair<Series, PointReplicates>>& pending,
              const ChangeOptions& options, History& history) {
  CULPRIT_TRY_ASSIGN(const auto found, find_change_points_of(pending, options));
  for (std::size_t i = 0; i < pending.size(); ++i) {
    history.change_points.insert(history.change_points.end(), found[i].begin(), found[i].end());
    history.series.push_back(std::move(pending[i].first));
  }
  pending.clear();
  return {};
}

} // namespace

Result<History> load_history(store::Store& store, const std::vector<TrackedPoint>& points,
                             const HistoryOptions& options) {
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<store::CaseMetric> available;
  const auto collect = [&](std::span<const std::string> named) -> Status {
    seen.clear();
    available.clear();
    for (const auto& point : points) {
      CULPRIT_TRY_ASSIGN(
          const auto cases,
          store.measured_cases({point.artifact_id, point.recipe_hash, point.host_id}, {}, named));
      for (const auto& c : cases)
        if (seen.insert({c.case_name, c.metric}).second)
          available.push_back(c);
    }
    return {};
  };
  // Cases named outright (no glob) are looked up by name: one case of thousands reads its own
  // samples only. A name found nowhere looks at every case, for the error to list them.
  const bool named = !options.case_globs.empty() &&
                     std::ranges::none_of(options.case_globs, [](const std::string& glob) {
                       return glob.find_first_of("*?[") != std::string::npos;
                     });
  CULPRIT_TRY(collect(named ? std::span(options.case_globs) : std::span<const std::string>()));
  if (named && std::ranges::any_of(options.case_globs, [&](const std::string& name) {
        return std::ranges::none_of(available, [&](const auto& c) { return c.case_name == name; });
      }))
    CULPRIT_TRY(collect({}));
  if (available.empty())
    return usage_error("nothing is measured at the {} tracked commit(s); run 'culprit track "
                       "RANGE' or 'culprit import FILE --commit REV' first",
                       points.size());
  CULPRIT_TRY_ASSIGN(const auto selected,
                     measure::select_cases(available, options.case_globs, options.metric));

  const auto groups = group_points(points);
  const auto sessions = sessions_in_order(groups);
  SeriesBuilder builder{groups, sessions, options, {}, nullptr};
  History history;
  std::vector<std::pair<Series, PointReplicates>> pending;
  // A group of series is searched in the background while the next is read and built: reading is
  // one thread's work, and the other cores would otherwise wait meanwhile.
  std::vector<std::pair<Series, PointReplicates>> searching;
  std::future<Status> searched;
  std::set<std::string> hosts;
  // Many series are read a batch of cases at a time, the next batch while this one's series are
  // built (the store is then read on that thread alone); a few, a query each.
  const auto batches =
      selected.size() >= k_batch_from ? batch_ranges(selected) : std::vector<CaseRange>{};
  std::optional<Preloaded> preloaded;
  std::future<Result<Preloaded>> ahead;
  const auto read_ahead = [&](std::size_t b) {
    if (b < batches.size())
      ahead = std::async(std::launch::async, [&store, &groups, range = batches[b]] {
        return Preloaded::read(store, groups, range);
      });
  };
  std::size_t next_batch = 0;
  read_ahead(next_batch);
  for (const auto& chosen : selected) {
    if (!batches.empty() && (!preloaded || !preloaded->holds(chosen.key))) {
      builder.preloaded = nullptr;
      preloaded.reset();
      if (!ahead.valid())
        return infra_error("case {} is in no batch of cases read", chosen.key.case_name);
      CULPRIT_TRY_ASSIGN(preloaded, ahead.get());
      builder.preloaded = &*preloaded;
      read_ahead(++next_batch);
    }
    CULPRIT_TRY_ASSIGN(auto built, builder.build(store, chosen));
    auto& [series, replicates] = built;
    if (options.roofline) {
      if (series.unit != "s") {
        history.notes.push_back(fmt::format("{} [{}]: no roofline: the metric is in {}, not a time",
                                            series.case_name, series.metric, series.unit));
        continue;
      }
      std::string reason;
      CULPRIT_TRY(
          to_roofline(series, replicates, groups, builder.point_groups, options.roofline, reason));
      if (series.points.empty()) {
        history.notes.push_back(
            fmt::format("{} [{}]: no roofline: {}", series.case_name, series.metric, reason));
        continue;
      }
    }
    for (const auto& point : series.points)
      hosts.insert(point.host_id);
    pending.push_back(std::move(built));
    if (pending.size() == k_searched_together) {
      if (searched.valid())
        CULPRIT_TRY(searched.get());
      searching = std::exchange(pending, {});
      searched = std::async(std::launch::async,
                            [&] { return search(searching, options.change, history); });
    }
  }
  if (searched.valid())
    CULPRIT_TRY(searched.get());
  CULPRIT_TRY(search(pending, options.change, history));
  history.hosts.assign(hosts.begin(), hosts.end());
  return history;
}

} // namespace culprit::history
