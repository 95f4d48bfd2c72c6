#include "core/history/triage.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include "stats/summary.hpp"

namespace culprit::history {
namespace {

using GroupKey = std::tuple<std::string, std::string, bool>; // before, after, improvement

class Triage {
public:
  Triage(build::BuildProvider& builds, measure::Sampler& sampler, CommitGraph& graph,
         Ledger& ledger, const TriageSettings& settings)
      : m_builds(builds), m_sampler(sampler), m_graph(graph), m_ledger(ledger),
        m_settings(settings) {}

  Result<TriageOutcome> run(const History& history,
                            const std::function<void(const TriageProgress&)>& progress) {
    CULPRIT_TRY_ASSIGN(m_handled, m_ledger.handled(m_settings.host_id));
    std::map<GroupKey, std::size_t> group_of;
    for (const auto& change : history.change_points) {
      if (!change.regression() && !m_settings.improvements)
        continue;
      m_outcome.changes.push_back({change, TriageStatus::pending, {}, {}});
      CULPRIT_TRY_ASSIGN(const bool handled, handled_before(change));
      if (handled) {
        m_outcome.changes.back().status = TriageStatus::handled_before;
        continue;
      }
      const auto [before, after] = widened(history, change);
      const GroupKey key{before, after, !change.regression()};
      auto [it, inserted] = group_of.try_emplace(key, m_outcome.groups.size());
      if (inserted) {
        TriageGroup group;
        group.range = {before, before, after, after, {}};
        CULPRIT_TRY_ASSIGN(group.range.commits, range(before, after));
        group.improvement = !change.regression();
        m_outcome.groups.push_back(std::move(group));
      }
      m_outcome.groups[it->second].changes.push_back(m_outcome.changes.size() - 1);
    }
    for (std::size_t g = 0; g < m_outcome.groups.size(); ++g)
      CULPRIT_TRY(bisect(m_outcome.groups[g], g, progress));
    group_findings();
    return std::move(m_outcome);
  }

private:
  // The measured commits `margin` points beyond either side of the change point.
  [[nodiscard]] std::pair<std::string, std::string> widened(const History& history,
                                                            const ChangePoint& change) const {
    for (const auto& series : history.series) {
      if (series.case_name != change.case_name || series.metric != change.metric ||
          change.index == 0 || change.index >= series.points.size())
        continue;
      const std::size_t low = change.index - 1 - std::min(change.index - 1, m_settings.margin);
      const std::size_t high = std::min(change.index + m_settings.margin, series.points.size() - 1);
      return {series.points[low].commit, series.points[high].commit};
    }
    return {change.before, change.commit};
  }

  Result<std::vector<std::string>> range(const std::string& before, const std::string& after) {
    const auto key = std::make_pair(before, after);
    if (const auto it = m_ranges.find(key); it != m_ranges.end())
      return it->second;
    CULPRIT_TRY_ASSIGN(auto commits, m_graph.range(before, after));
    if (commits.empty())
      return usage_error("there are no commits between {} and {}; is the history rewritten?",
                         before.substr(0, 12), after.substr(0, 12));
    return m_ranges.emplace(key, std::move(commits)).first->second;
  }

  Result<bool> handled_before(const ChangePoint& change) {
    for (const auto& handled : m_handled) {
      if (handled.case_name != change.case_name || handled.metric != change.metric)
        continue;
      if (handled.before == change.before && handled.after == change.commit)
        return true;
      if (handled.culprit.empty())
        continue;
      CULPRIT_TRY_ASSIGN(const auto commits, range(change.before, change.commit));
      if (std::ranges::find(commits, handled.culprit) != commits.end())
        return true;
    }
    return false;
  }

  Status bisect(TriageGroup& group, std::size_t index,
                const std::function<void(const TriageProgress&)>& progress) {
    bisect::BisectSettings settings = m_settings.bisect;
    settings.improvement = group.improvement;
    settings.compare.case_globs.clear();
    for (const auto c : group.changes)
      settings.compare.case_globs.push_back(m_outcome.changes[c].change.case_name);
    auto outcome = run_bisect(group.range, m_builds, m_sampler, settings,
                              [&](const bisect::BisectProgress& step) {
                                if (progress)
                                  progress({index, m_outcome.groups.size(), step});
                              });
    if (!outcome) {
      // One change point whose ends do not build must not hide the others.
      if (outcome.error().code == ExitCode::interrupted)
        return std::unexpected(outcome.error());
      for (const auto c : group.changes) {
        m_outcome.changes[c].status = TriageStatus::failed;
        m_outcome.changes[c].note = outcome.error().message;
      }
      return {};
    }
    group.bisect = std::move(*outcome);
    for (const auto c : group.changes)
      CULPRIT_TRY(settle(m_outcome.changes[c], group));
    return {};
  }

  // The status of one change point after its group's bisection, remembered when final.
  Status settle(TriageChange& triaged, const TriageGroup& group) {
    const auto& change = triaged.change;
    const auto& outcome = group.bisect;
    for (const auto& culprit : outcome.culprits)
      if (culprit.selected.key.case_name == change.case_name)
        triaged.culprits.push_back(culprit.commit);
    const bool confirmed = std::ranges::any_of(outcome.cases, [&](const measure::SelectedCase& c) {
      return c.key.case_name == change.case_name;
    });
    if (!triaged.culprits.empty()) {
      triaged.status = TriageStatus::culprit_found;
    } else if (!confirmed) {
      triaged.status = TriageStatus::not_confirmed;
      for (const auto& verdict : outcome.confirmation.cases)
        if (verdict.selected.key.case_name == change.case_name)
          triaged.note = std::string(stats::to_string(verdict.verdict));
      if (triaged.note == "inconclusive")
        triaged.status = TriageStatus::inconclusive; // the runs ran out: try again next time
    } else {
      triaged.status = TriageStatus::inconclusive;
      triaged.note = outcome.note;
    }
    if (triaged.status == TriageStatus::inconclusive)
      return {};
    return m_ledger.record_handled(
        {.host_id = m_settings.host_id,
         .case_name = change.case_name,
         .metric = change.metric,
         .before = change.before,
         .after = change.commit,
         .outcome = std::string(to_string(triaged.status)),
         .culprit = triaged.culprits.empty() ? std::string() : triaged.culprits.front(),
         .handled_at = store::now()});
  }

  void group_findings() {
    std::map<std::pair<std::string, bool>, std::size_t> finding_of;
    for (std::size_t g = 0; g < m_outcome.groups.size(); ++g) {
      const auto& group = m_outcome.groups[g];
      for (const auto& culprit : group.bisect.culprits) {
        const std::pair key{culprit.commit, !group.improvement};
        auto [it, inserted] = finding_of.try_emplace(key, m_outcome.findings.size());
        if (inserted)
          m_outcome.findings.push_back({culprit.commit, !group.improvement, {}, {}});
        auto& finding = m_outcome.findings[it->second];
        if (std::ranges::find(finding.groups, g) == finding.groups.end())
          finding.groups.push_back(g);
        finding.culprits.push_back(culprit);
      }
    }
    // Regressions first, then the findings that slowed the most cases; ties keep the order in
    // which the culprits were found.
    auto& findings = m_outcome.findings;
    std::vector<std::size_t> order(findings.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::ranges::sort(order, [&findings](std::size_t i, std::size_t j) {
      const auto& a = findings[i];
      const auto& b = findings[j];
      if (a.regression != b.regression)
        return a.regression;
      if (a.culprits.size() != b.culprits.size())
        return a.culprits.size() > b.culprits.size();
      return i < j;
    });
    std::vector<Finding> sorted;
    sorted.reserve(findings.size());
    for (const auto i : order)
      sorted.push_back(std::move(findings[i]));
    findings = std::move(sorted);
  }

  build::BuildProvider& m_builds;
  measure::Sampler& m_sampler;
  CommitGraph& m_graph;
  Ledger& m_ledger;
  const TriageSettings& m_settings;
  std::vector<HandledChange> m_handled;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> m_ranges;
  TriageOutcome m_outcome;
};

} // namespace

std::string_view to_string(TriageStatus status) {
  switch (status) {
  case TriageStatus::pending:
    return "pending";
  case TriageStatus::culprit_found:
    return "culprit_found";
  case TriageStatus::not_confirmed:
    return "not_confirmed";
  case TriageStatus::inconclusive:
    return "inconclusive";
  case TriageStatus::failed:
    return "failed";
  case TriageStatus::handled_before:
    return "handled_before";
  }
  return "pending";
}

std::size_t TriageOutcome::count(TriageStatus status) const {
  return static_cast<std::size_t>(
      std::ranges::count_if(changes, [&](const TriageChange& c) { return c.status == status; }));
}

bool TriageOutcome::new_regressions() const {
  return std::ranges::any_of(findings, [](const Finding& f) { return f.regression; });
}

Result<TriageOutcome> run_triage(const History& history, build::BuildProvider& builds,
                                 measure::Sampler& sampler, CommitGraph& graph, Ledger& ledger,
                                 const TriageSettings& settings,
                                 const std::function<void(const TriageProgress&)>& progress) {
  Triage triage(builds, sampler, graph, ledger, settings);
  return triage.run(history, progress);
}

Result<bool> step_went_away(const Regression& regression, const History& history, double threshold,
                            const std::function<Result<bool>(const std::string&)>& at_or_after) {
  // Points a side: the level there is the median of their medians.
  constexpr std::size_t k_side = 3;
  if (regression.cases.empty())
    return false;
  for (const auto& slowed : regression.cases) {
    const auto series = std::ranges::find_if(
        history.series, [&](const Series& s) { return same_case(slowed, s.case_name, s.metric); });
    if (series == history.series.end())
      return false;
    const auto& points = series->points;
    // The first point at or after the culprit: the points are in commit order, so a search in
    // halves asks git about a few of them only.
    std::size_t low = 0;
    std::size_t high = points.size();
    while (low < high) {
      const std::size_t middle = low + ((high - low) / 2);
      CULPRIT_TRY_ASSIGN(const bool after, at_or_after(points[middle].commit));
      if (after)
        high = middle;
      else
        low = middle + 1;
    }
    if (low == 0 || low == points.size())
      return false;
    const std::size_t first = low > k_side ? low - k_side : 0;
    const std::size_t last = std::min(points.size(), low + k_side);
    for (const auto& change : history.change_points)
      if (change.case_name == series->case_name && change.metric == series->metric &&
          change.index > first && change.index < last)
        return false;
    const auto level = [&](std::size_t from, std::size_t to) {
      std::vector<double> medians;
      for (std::size_t i = from; i < to; ++i)
        medians.push_back(points[i].median);
      std::ranges::sort(medians);
      return stats::quantile_of_sorted(medians, 0.5);
    };
    const double before = level(first, low);
    const double after = level(low, last);
    if (!(before > 0) || !(after > 0))
      return false;
    // Within the threshold, and clearly smaller than the step was found to be: a step near the
    // threshold measured a little smaller by three noisy points has not gone away.
    const double now = std::abs(std::log(after / before));
    const bool straddles = (slowed.ci[0] - 1) * (slowed.ci[1] - 1) <= 0;
    const double found =
        straddles || !(slowed.ci[0] > 0)
            ? std::numeric_limits<double>::infinity()
            : std::min(std::abs(std::log(slowed.ci[0])), std::abs(std::log(slowed.ci[1])));
    if (now > std::log1p(threshold) || now >= found)
      return false;
  }
  return true;
}

} // namespace culprit::history
