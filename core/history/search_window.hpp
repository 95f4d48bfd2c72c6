#pragma once
// Triage's change-point search, kept from one night to the next (culprit-triage(1)).
//
// A nightly triage appends a point or two to a history of hundreds of points, and a search of
// every series whole costs the reading of every point's runs each night. What it found before the
// new points was dealt with by the triages that found it (the ledger's handled changes and
// regressions), so a search needs to look again only where something can have changed: the new
// points, and enough of the points searched before them to see a step between the old level and
// the new. That is Apache Otava's incremental E-divisive: keep what the last search found, and
// search again only the newest window.
//
// The ledger keeps, for each scope (host, metric, cases and the settings of the search), how many
// of the points the last search took are settled (all but the newest `context`) and a digest of
// them (SearchMark). When the history still begins with exactly those points, the next search
// takes the points after them: the `context` points searched last time and the new ones. Otherwise
// (nothing kept, a commit tracked or imported again or tracked among the settled ones, a session
// that measured one of them again, a recipe changed) it takes them all, and says why.

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "core/history/ledger.hpp"
#include "core/history/series.hpp"

namespace culprit::history {

// How many points of the series searched before a search takes again in front of the new ones:
// E-divisive sees a step at the first new point with 48 points of the old level before it, and a
// step whose new level began at most 45 points before the newest can still be found with three
// points a side.
constexpr std::size_t k_search_context = 48;

// What identifies a search whose findings a later one may keep: the host, the metric, the cases,
// whether improvements are triaged too, and every setting that changes what the search finds.
std::string search_scope(const HistoryOptions& options, bool improvements = true);

// The digest of tracked points in their order: commits, hosts, recipes, artifacts, when each was
// tracked or imported, and the sessions that measured it.
std::string points_digest(std::span<const TrackedPoint> points);

struct SearchWindow {
  std::size_t first = 0;  // the first point to search
  std::size_t points = 0; // of the history
  // The earlier search whose points before `first` stand; none when the whole history is searched.
  std::optional<SearchMark> since;
  // When the whole history is searched though it is longer than the window: why.
  std::string why_whole;
  [[nodiscard]] bool whole() const { return first == 0; }
};

// The points that a search of `points` takes, given the last search of its scope.
SearchWindow plan_search(std::span<const TrackedPoint> points,
                         const std::optional<SearchMark>& last);

// What a search of `points` leaves settled for the next one, with their digest: all but the
// tracked points of the newest `context` points of the series (neighbouring commits with the same
// artifact are one), and none from `context` points of the series before a change point the
// triage left open (inconclusive or failed: the next triage tries it again), given by the last
// commit of its old level.
SearchMark settled_by_search(std::string scope, std::span<const TrackedPoint> points,
                             std::span<const std::string> open = {},
                             std::size_t context = k_search_context);

} // namespace culprit::history
