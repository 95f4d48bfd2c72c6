#pragma once
// What the history commands ask git: the commits of a range with their times, and the commits
// between two measured ones.

#include <string>
#include <string_view>
#include <vector>

#include "core/git/repository.hpp"
#include "core/history/track.hpp"
#include "core/history/triage.hpp"
#include "core/util/error.hpp"

namespace culprit::history {

// "A..B": the first-parent commits after A up to B, oldest first; "REV": that commit alone.
// Unknown revisions, A not an ancestor of B, and an empty range are usage errors.
Result<std::vector<RangeCommit>> range_commits(const git::Repository& repo, std::string_view range);

// Where each regression's culprit lies on the series that draw its cases, where it is not a
// point's first commit (those the charts place by themselves): among the commits between the two
// points of each change point of the series. A culprit in none of them (off the first-parent
// chain, between points with no change point, or between commits git does not know) is left
// unplaced.
std::vector<RegressionPlace> place_regressions(const History& history,
                                               const std::vector<Regression>& regressions,
                                               CommitGraph& graph);

class RepositoryGraph final : public CommitGraph {
public:
  explicit RepositoryGraph(const git::Repository& repo) : m_repo(repo) {}
  Result<std::vector<std::string>> range(const std::string& before,
                                         const std::string& after) override;

private:
  const git::Repository& m_repo;
};

} // namespace culprit::history
