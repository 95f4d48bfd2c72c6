#include "core/bisect/merges.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/git/repository.hpp"

namespace culprit::bisect {
namespace {

// The log-ratio of the whole change of a case between the ends of `outcome`, when measured.
std::optional<double> whole_change(const BisectOutcome& outcome,
                                   const measure::SelectedCase& selected) {
  for (const auto& verdict : outcome.confirmation.cases)
    if (verdict.selected.key == selected.key && verdict.comparison &&
        verdict.comparison->ratio.estimate > 0)
      return std::log(verdict.comparison->ratio.estimate);
  return std::nullopt;
}

// What a bisection of a branch adds to the outer one: its builds, subjects, steps and reuses.
void take_records(BisectOutcome& into, const BisectOutcome& from) {
  into.steps.insert(into.steps.end(), from.steps.begin(), from.steps.end());
  for (const auto& [commit, build] : from.builds)
    into.builds.emplace(commit, build);
  for (const auto& [commit, subject] : from.subjects)
    into.subjects.emplace(commit, subject);
  for (const auto& [commit, other] : from.reused_from)
    into.reused_from.emplace(commit, other);
  into.rounds += from.rounds;
}

void add_note(BisectOutcome& outcome, const std::string& note) {
  outcome.note += (outcome.note.empty() ? "" : "; ") + note;
}

class Descent {
public:
  Descent(MergeGraph& graph, build::BuildProvider& builds, std::span<measure::Sampler* const> lanes,
          const std::function<void(const BisectProgress&)>& progress)
      : m_graph(graph), m_builds(builds), m_lanes(lanes), m_progress(progress) {}

  Result<BisectOutcome> bisect(const BisectRange& range, const BisectSettings& settings,
                               BisectOutcome* so_far) {
    CULPRIT_TRY_ASSIGN(auto outcome,
                       run_bisect(range, m_builds, m_lanes, settings, m_progress, so_far));
    std::vector<FoundCulprit> culprits;
    for (auto& culprit : outcome.culprits) {
      CULPRIT_TRY_ASSIGN(auto found, into_merge(culprit, outcome, settings));
      culprits.insert(culprits.end(), found.begin(), found.end());
    }
    outcome.culprits = std::move(culprits);
    return outcome;
  }

private:
  // The culprits of the branches that `culprit` merged, when it is a merge and one of them shows
  // the change alone; else `culprit` itself.
  Result<std::vector<FoundCulprit>> into_merge(const FoundCulprit& culprit, BisectOutcome& outer,
                                               const BisectSettings& settings) {
    CULPRIT_TRY_ASSIGN(const auto parents, m_graph.parents(culprit.commit));
    if (parents.size() < 2)
      return std::vector{culprit};
    std::vector<FoundCulprit> found;
    const auto outer_change = whole_change(outer, culprit.selected);
    for (std::size_t p = 1; p < parents.size(); ++p) {
      CULPRIT_TRY_ASSIGN(const auto fork, m_graph.merge_base(parents.front(), parents[p]));
      if (fork == parents[p])
        continue; // nothing new on that side
      BisectRange branch{
          .good = fork, .good_rev = fork, .bad = parents[p], .bad_rev = parents[p], .commits = {}};
      CULPRIT_TRY_ASSIGN(branch.commits, m_graph.first_parent_range(fork, parents[p]));
      if (branch.commits.empty())
        continue;
      BisectSettings only = settings;
      only.compare.case_globs = {culprit.selected.key.case_name};
      CULPRIT_TRY_ASSIGN(auto inner, bisect(branch, only, nullptr));
      take_records(outer, inner);
      if (inner.status != BisectStatus::culprit_found) {
        if (inner.status == BisectStatus::inconclusive)
          add_note(outer, fmt::format("the branch {} merged by {} was inconclusive for {}",
                                      parents[p].substr(0, 12), culprit.commit.substr(0, 12),
                                      culprit.selected.key.case_name));
        continue;
      }
      for (auto& inner_culprit : inner.culprits) {
        // Shares are of the whole change between the outer ends.
        if (inner_culprit.change && outer_change && std::abs(*outer_change) > 0)
          inner_culprit.share = std::log(inner_culprit.change->ratio.estimate) / *outer_change;
        found.push_back(std::move(inner_culprit));
      }
    }
    if (found.empty()) {
      add_note(outer, fmt::format("{} is a merge, and none of the {} branches it merged shows the "
                                  "change of {} alone: the merge itself made it",
                                  culprit.commit.substr(0, 12), parents.size() - 1,
                                  culprit.selected.key.case_name));
      found.push_back(culprit);
    }
    return found;
  }

  MergeGraph& m_graph;
  build::BuildProvider& m_builds;
  std::span<measure::Sampler* const> m_lanes;
  const std::function<void(const BisectProgress&)>& m_progress;
};

} // namespace

Result<std::vector<std::string>> GitMergeGraph::parents(const std::string& commit) {
  CULPRIT_TRY_ASSIGN(auto info, m_repo.commit_info(commit));
  return std::move(info.parents);
}

Result<std::string> GitMergeGraph::merge_base(const std::string& a, const std::string& b) {
  return m_repo.merge_base(a, b);
}

Result<std::vector<std::string>> GitMergeGraph::first_parent_range(const std::string& good,
                                                                   const std::string& bad) {
  return m_repo.range(good, bad, git::History::first_parent);
}

Result<BisectOutcome>
run_bisect_through_merges(const BisectRange& range, MergeGraph& graph, build::BuildProvider& builds,
                          std::span<measure::Sampler* const> lanes, const BisectSettings& settings,
                          const std::function<void(const BisectProgress&)>& progress,
                          BisectOutcome* so_far) {
  Descent descent(graph, builds, lanes, progress);
  return descent.bisect(range, settings, so_far);
}

} // namespace culprit::bisect
