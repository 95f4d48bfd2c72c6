#pragma once
// What the history commands ask git: the commits of a range with their times, the commits
// between two measured ones, and subjects and authors to label points with.

#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/git/repository.hpp"
#include "core/history/render.hpp"
#include "core/history/track.hpp"
#include "core/history/triage.hpp"

namespace culprit::history {

// "A..B": the first-parent commits after A up to B, oldest first; "REV": that commit alone.
// Unknown revisions, A not an ancestor of B, and an empty range are usage errors.
Result<std::vector<RangeCommit>> range_commits(const git::Repository& repo, std::string_view range);

class RepositoryGraph final : public CommitGraph {
public:
  explicit RepositoryGraph(const git::Repository& repo) : m_repo(repo) {}
  Result<std::vector<std::string>> range(const std::string& before,
                                         const std::string& after) override;

private:
  const git::Repository& m_repo;
};

// Subject, author and date of every commit the history shows; commits git does not know (an
// import for a commit since rewritten away) are left out.
CommitLabels commit_labels(const git::Repository& repo, const History& history);

} // namespace culprit::history
