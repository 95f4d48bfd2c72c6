#include "core/history/search_window.hpp"

#include <chrono>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "core/git/hash.hpp"

namespace culprit::history {

std::string search_scope(const HistoryOptions& options) {
  git::Hasher hasher;
  hasher.add("search 1").add(options.host.value_or("")).add(options.all_hosts ? "all" : "one");
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
  if (!last) {
    if (points.size() > k_search_context)
      window.why_whole = "no triage searched this history before";
    return window;
  }
  const auto when = fmt::format("{:%Y-%m-%d %H:%M} UTC",
                                std::chrono::floor<std::chrono::seconds>(last->searched_at));
  if (last->points == 0) {
    if (points.size() > k_search_context)
      window.why_whole = fmt::format("the triage of {} settled no point (it saw {} or fewer)", when,
                                     k_search_context);
    return window;
  }
  if (last->points > points.size() || points_digest(points.first(last->points)) != last->digest) {
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
                             std::size_t context) {
  std::size_t settled = points.size() > context ? points.size() - context : 0;
  while (settled > 0 && points[settled - 1].artifact_id == points[settled].artifact_id)
    --settled;
  return {.scope = std::move(scope),
          .points = settled,
          .digest = points_digest(points.first(settled)),
          .searched_at = store::now()};
}

} // namespace culprit::history
