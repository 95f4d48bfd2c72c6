#include "core/history/search_window.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/git/hash.hpp"
#include "core/util/clock.hpp"

namespace culprit::history {

namespace {

// Whether tracked point i begins a point of the series.
bool begins_point(std::span<const TrackedPoint> points, std::size_t i) {
  return i == 0 || !one_series_point(points[i - 1], points[i]);
}

// The first tracked point of the `count` points of the series that end at tracked point `end`
// (exclusive): `end` itself for none, 0 when there are fewer.
std::size_t points_back(std::span<const TrackedPoint> points, std::size_t end, std::size_t count) {
  if (count == 0)
    return end;
  std::size_t seen = 0;
  for (std::size_t i = end; i-- > 0;)
    if (begins_point(points, i) && ++seen == count)
      return i;
  return 0;
}

} // namespace

std::string search_scope(const HistoryOptions& options, bool improvements) {
  git::Hasher hasher;
  hasher.add("search 1").add(options.host.value_or("")).add(options.all_hosts ? "all" : "one");
  hasher.add(improvements ? "improvements" : "regressions only");
  hasher.add(options.metric);
  for (const auto& glob : options.case_globs)
    hasher.add(glob);
  const auto& change = options.change;
  hasher.add(fmt::format("{} {} {} {} {} {} {}", change.significance, change.permutations,
                         change.min_segment, change.min_change, change.confidence, change.resamples,
                         change.seed));
  hasher.add(fmt::format("{} {} {}", options.confidence, options.seed, options.resamples));
  return hasher.hex();
}

std::string points_digest(std::span<const TrackedPoint> points) {
  git::Hasher hasher;
  for (const auto& point : points) {
    hasher.add(point.commit).add(point.host_id).add(point.recipe_hash).add(point.artifact_id);
    hasher.add(fmt::format("{} {}", store::to_micros(point.tracked_at), point.sessions.size()));
    for (const auto& session : point.sessions)
      hasher.add(session.id).add(session.artifact_id);
  }
  return hasher.hex();
}

SearchWindow plan_search(std::span<const TrackedPoint> points,
                         const std::optional<SearchMark>& last) {
  SearchWindow window{.first = 0, .points = points.size(), .since = std::nullopt, .why_whole = {}};
  const bool longer = points.size() > k_search_context;
  if (!last) {
    if (longer)
      window.why_whole = "no triage searched this history before";
    return window;
  }
  const auto when = utc_iso8601(last->searched_at);
  if (last->points == 0) {
    if (longer)
      window.why_whole = fmt::format("the triage of {} settled no point (it saw {} points of the "
                                     "series or fewer, or left a change point among them open)",
                                     when, k_search_context);
    return window;
  }
  if (last->points > points.size()) {
    window.why_whole = fmt::format("the history has fewer points than the {} that the triage of "
                                   "{} settled (points were removed)",
                                   last->points, when);
    return window;
  }
  if (points_digest(points.first(last->points)) != last->digest) {
    window.why_whole =
        fmt::format("the points that the triage of {} settled are no longer the history's first "
                    "ones (a commit tracked, imported or measured again among them, or tracked "
                    "between them)",
                    when);
    return window;
  }
  window.first = last->points;
  window.since = last;
  return window;
}

SearchMark settled_by_search(std::string scope, std::span<const TrackedPoint> points,
                             std::span<const std::string> open, std::size_t context) {
  std::size_t settled = points_back(points, points.size(), context);
  for (const auto& before : open) {
    const auto at = std::ranges::find(points, before, &TrackedPoint::commit);
    if (at != points.end())
      settled = std::min(
          settled, points_back(points, static_cast<std::size_t>(at - points.begin()) + 1, context));
  }
  return {.scope = std::move(scope),
          .points = settled,
          .digest = points_digest(points.first(settled)),
          .searched_at = store::now()};
}

} // namespace culprit::history
