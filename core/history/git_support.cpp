#include "core/history/git_support.hpp"

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
                         report::excerpt(range));
    CULPRIT_TRY_ASSIGN(const auto from, repo.resolve(from_rev));
    CULPRIT_TRY_ASSIGN(const auto to, repo.resolve(to_rev));
    CULPRIT_TRY_ASSIGN(const bool ordered, repo.is_ancestor(from, to));
    if (!ordered && repo.is_shallow())
      return usage_error("{}: {} is not in the history of {} that this shallow clone holds; run "
                         "'git fetch --unshallow' first",
                         report::excerpt(range), report::excerpt(from_rev),
                         report::excerpt(to_rev));
    if (!ordered)
      return usage_error("{}: {} is not an ancestor of {}; give the older revision first",
                         report::excerpt(range), report::excerpt(from_rev),
                         report::excerpt(to_rev));
    CULPRIT_TRY_ASSIGN(ids, repo.range(from, to, git::History::first_parent));
  }
  if (ids.empty())
    return usage_error("the range {} holds no commits; give OLD..NEW with NEW after OLD",
                       report::excerpt(range));
  std::vector<RangeCommit> commits;
  for (auto& id : ids) {
    CULPRIT_TRY_ASSIGN(const auto info, repo.commit_info(id));
    commits.push_back({std::move(id), info.committer.time});
  }
  return commits;
}

Result<std::vector<std::string>> RepositoryGraph::range(const std::string& before,
                                                        const std::string& after) {
  return m_repo.range(before, after, git::History::first_parent);
}

} // namespace culprit::history
