#pragma once
// Bisection through merges (culprit bisect --all-commits).
//
// A binary search needs an order in which every commit after the culprit is bad and every one
// before it good. A first-parent chain is such an order; the whole graph of a range with merges
// is not, whatever order its commits are listed in: a commit of one merged branch is neither
// before nor after a commit of another. So, as `git bisect` narrows by ancestry, culprit narrows
// by the structure of the history: it bisects the first-parent chain of good..bad, and when the
// culprit it names is a merge, it bisects each branch the merge brought in (each parent after
// the first, from where it forked from the first parent: their merge base) for the culprit's
// case, and so on down, into merges of any number of parents. A branch that shows the change on
// its own names its culprits in place of the merge (their shares still of the whole change); when
// no branch does, the change came from the merge itself (a conflict resolved, or branches that
// are slow only together), and the merge stays the culprit, with a note that says so.

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/bisect/bisect.hpp"
#include "core/util/error.hpp"

namespace culprit::git {
class Repository;
} // namespace culprit::git

namespace culprit::bisect {

// What the descent needs to know of the history.
class MergeGraph {
public:
  virtual ~MergeGraph() = default;
  MergeGraph() = default;
  MergeGraph(const MergeGraph&) = delete;
  MergeGraph& operator=(const MergeGraph&) = delete;
  MergeGraph(MergeGraph&&) = delete;
  MergeGraph& operator=(MergeGraph&&) = delete;

  virtual Result<std::vector<std::string>> parents(const std::string& commit) = 0;
  virtual Result<std::string> merge_base(const std::string& a, const std::string& b) = 0;
  // good..bad along the first-parent chain of bad, oldest first, bad last.
  virtual Result<std::vector<std::string>> first_parent_range(const std::string& good,
                                                              const std::string& bad) = 0;
};

// The history of a real repository.
class GitMergeGraph final : public MergeGraph {
public:
  explicit GitMergeGraph(const git::Repository& repo) : m_repo(repo) {}
  Result<std::vector<std::string>> parents(const std::string& commit) override;
  Result<std::string> merge_base(const std::string& a, const std::string& b) override;
  Result<std::vector<std::string>> first_parent_range(const std::string& good,
                                                      const std::string& bad) override;

private:
  const git::Repository& m_repo;
};

// run_bisect over `range` (its commits the first-parent chain), then into the branches of every
// merge it names, as above. Its steps, builds and subjects hold those of every bisection made.
Result<BisectOutcome>
run_bisect_through_merges(const BisectRange& range, MergeGraph& graph, build::BuildProvider& builds,
                          std::span<measure::Sampler* const> lanes, const BisectSettings& settings,
                          const std::function<void(const BisectProgress&)>& progress = {},
                          BisectOutcome* so_far = nullptr);

} // namespace culprit::bisect
