#include "core/history/git_support.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "core/util/escape.hpp"

namespace culprit::history {

Result<std::vector<RangeCommit>> range_commits(const git::Repository& repo,
                                               std::string_view range) {
  std::vector<std::string> ids;
  const auto dots = range.find("..");
  if (dots == std::string_view::npos) {
    CULPRIT_TRY_ASSIGN(auto commit, repo.resolve(range));
    ids.push_back(std::move(commit));
  } else {
    const auto from_rev = range.substr(0, dots);
    const auto to_rev = range.substr(dots + 2);
    if (from_rev.empty() || to_rev.empty() || to_rev.starts_with('.'))
      return usage_error("{}: give a range as OLD..NEW (e.g. v1.4..main) or one revision",
                         excerpt(range));
    CULPRIT_TRY_ASSIGN(const auto from, repo.resolve(from_rev));
    CULPRIT_TRY_ASSIGN(const auto to, repo.resolve(to_rev));
    CULPRIT_TRY_ASSIGN(const bool ordered, repo.is_ancestor(from, to));
    if (!ordered && repo.is_shallow())
      return usage_error("{}: {} is not in the history of {} that this shallow clone holds; run "
                         "'git fetch --unshallow' first",
                         excerpt(range), excerpt(from_rev), excerpt(to_rev));
    if (!ordered)
      return usage_error("{}: {} is not an ancestor of {}; give the older revision first",
                         excerpt(range), excerpt(from_rev), excerpt(to_rev));
    CULPRIT_TRY_ASSIGN(ids, repo.range(from, to, git::History::first_parent));
  }
  if (ids.empty())
    return usage_error("the range {} holds no commits; give OLD..NEW with NEW after OLD",
                       excerpt(range));
  std::vector<RangeCommit> commits;
  for (auto& id : ids) {
    CULPRIT_TRY_ASSIGN(const auto info, repo.commit_info(id));
    commits.push_back({std::move(id), info.committer.time});
  }
  return commits;
}

std::vector<RegressionPlace> place_regressions(const History& history,
                                               const std::vector<Regression>& regressions,
                                               CommitGraph& graph) {
  std::vector<RegressionPlace> places;
  // The commits between the points of a change point, asked of git once each.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> between;
  for (std::size_t n = 0; n < history.series.size(); ++n) {
    const auto& series = history.series[n];
    for (const auto& regression : regressions) {
      const bool drawn = std::ranges::any_of(regression.cases, [&](const RegressionCase& c) {
        return same_case(c, series.case_name, series.metric);
      });
      if (!drawn || std::ranges::any_of(series.points, [&](const SeriesPoint& p) {
            return p.commit == regression.culprit;
          }))
        continue;
      for (const auto& change : history.change_points) {
        if (change.case_name != series.case_name || change.metric != series.metric ||
            change.index == 0 || change.index >= series.points.size())
          continue;
        const auto& before = series.points[change.index - 1];
        const auto key = std::pair(before.last_commit.empty() ? before.commit : before.last_commit,
                                   series.points[change.index].commit);
        auto known = between.find(key);
        if (known == between.end()) {
          auto commits = graph.range(key.first, key.second);
          known = between.emplace(key, commits ? std::move(*commits) : std::vector<std::string>{})
                      .first;
        }
        if (std::ranges::find(known->second, regression.culprit) != known->second.end()) {
          places.push_back({.regression = regression.id, .series = n, .index = change.index});
          break;
        }
      }
    }
  }
  return places;
}

Result<std::vector<std::string>> RepositoryGraph::range(const std::string& before,
                                                        const std::string& after) {
  return m_repo.range(before, after, git::History::first_parent);
}

} // namespace culprit::history
