#include "core/compare.hpp"

#include <algorithm>
#include <set>

#include "core/measure/stats_bridge.hpp"
#include "stats/fdr.hpp"
#include "stats/planning.hpp"
#include "stats/sequential.hpp"

namespace culprit {

stats::Direction to_stats(Direction direction) {
  return direction == Direction::lower_is_better ? stats::Direction::lower_is_better
                                                 : stats::Direction::higher_is_better;
}

Status budget_spent_if_nothing_reported(Sampler& sampler,
                                        const std::vector<const Subject*>& subjects) {
  for (const auto* subject : subjects) {
    CULPRIT_TRY_ASSIGN(const auto cases, sampler.cases(*subject));
    if (!cases.empty())
      return {};
  }
  return fail(ExitCode::inconclusive, std::string(k_budget_spent_before_any_run));
}

Result<std::vector<SelectedCase>> select_common_cases(Sampler& sampler,
                                                      const std::vector<const Subject*>& subjects,
                                                      const CompareSettings& settings) {
  std::vector<store::CaseMetric> available;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto* subject : subjects) {
    CULPRIT_TRY_ASSIGN(const auto cases, sampler.cases(*subject));
    for (const auto& c : cases)
      if (seen.insert({c.case_name, c.metric}).second)
        available.push_back(c);
  }
  return select_cases(available, settings.case_globs, settings.metric);
}

namespace {

struct Pending {
  CaseVerdict verdict;
  bool resolved = false;
};

Result<bool> look_at(Sampler& sampler, const Subject& base, const Subject& head,
                     const stats::SequentialPlan& plan, std::size_t look,
                     const CompareSettings& settings, Pending& pending) {
  const auto n = plan.runs[look];
  const auto& key = pending.verdict.selected.key;
  CULPRIT_TRY_ASSIGN(const auto base_runs, sampler.runs(base, key, n));
  CULPRIT_TRY_ASSIGN(const auto head_runs, sampler.runs(head, key, n));
  pending.verdict.base_runs = base_runs.samples.size();
  pending.verdict.head_runs = head_runs.samples.size();
  if (base_runs.samples.empty() || head_runs.samples.empty()) {
    const bool base_side = base_runs.samples.empty();
    CULPRIT_TRY_ASSIGN(const auto made, sampler.counted_runs(base_side ? base : head));
    pending.verdict.note =
        made == 0 ? fmt::format("the time budget ran out before a run of {} "
                                "finished",
                                base_side ? "base" : "head")
                  : fmt::format("{} did not report this case", base_side ? "base" : "head");
    return false;
  }
  if (base_runs.samples.size() < 2 || head_runs.samples.size() < 2)
    return false; // the case appears in too few runs yet
  stats::CompareOptions options;
  options.statistic = settings.statistic;
  options.rule.threshold = settings.threshold;
  options.rule.direction = to_stats(pending.verdict.selected.direction);
  options.bootstrap.seed = settings.seed;
  options.bootstrap.threads = settings.threads;
  options.bootstrap.confidence = settings.confidence;
  CULPRIT_TRY_ASSIGN(const auto decision, lift(stats::decide_at_look(plan, look, base_runs.samples,
                                                                     head_runs.samples, options),
                                               key.case_name));
  pending.verdict.comparison = decision.comparison;
  pending.verdict.verdict = decision.comparison.verdict;
  return decision.next == stats::NextStep::stop;
}

} // namespace

Result<CompareOutcome> compare_subjects(Sampler& sampler, const Subject& base, const Subject& head,
                                        const CompareSettings& settings) {
  const std::size_t batch = settings.batch > 0 ? settings.batch : settings.min_runs;
  CULPRIT_TRY_ASSIGN(const auto plan,
                     lift(stats::make_sequential_plan(settings.min_runs, settings.max_runs, batch,
                                                      settings.confidence)));
  CompareOutcome outcome;
  std::vector<Pending> pending;
  for (std::size_t look = 0; look < plan.runs.size(); ++look) {
    const std::vector<Want> wants = {{&base, plan.runs[look]}, {&head, plan.runs[look]}};
    CULPRIT_TRY_ASSIGN(const bool complete, sampler.ensure(wants));
    outcome.looks = look + 1;
    if (look == 0) {
      const auto selected = select_common_cases(sampler, {&base, &head}, settings);
      if (!selected) {
        if (!complete)
          CULPRIT_TRY(budget_spent_if_nothing_reported(sampler, {&base, &head}));
        return std::unexpected(selected.error());
      }
      for (const auto& s : *selected)
        pending.push_back({CaseVerdict{s, {}, stats::Verdict::inconclusive, {}, 0, 0, ""}});
    }
    bool all_resolved = true;
    for (auto& p : pending) {
      if (p.resolved)
        continue;
      CULPRIT_TRY_ASSIGN(p.resolved, look_at(sampler, base, head, plan, look, settings, p));
      all_resolved = all_resolved && p.resolved;
    }
    if (!complete) {
      outcome.budget_exhausted = true;
      break;
    }
    if (all_resolved)
      break;
  }

  // Benjamini-Hochberg over the cases that have a p-value.
  std::vector<double> p_values;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (pending[i].verdict.comparison) {
      p_values.push_back(pending[i].verdict.comparison->p_value);
      index.push_back(i);
    }
  }
  if (p_values.size() > 1) {
    CULPRIT_TRY_ASSIGN(const auto fdr,
                       lift(stats::benjamini_hochberg(p_values, 1 - settings.confidence)));
    for (std::size_t j = 0; j < index.size(); ++j) {
      auto& v = pending[index[j]].verdict;
      const bool called =
          v.verdict == stats::Verdict::slower || v.verdict == stats::Verdict::faster;
      if (called && fdr.adjusted[j] > 1 - settings.confidence) {
        v.verdict = stats::Verdict::inconclusive;
        v.note = fmt::format("not significant once {} cases are compared at once (adjusted p = "
                             "{:.3g})",
                             p_values.size(), fdr.adjusted[j]);
      }
    }
  }

  for (auto& p : pending) {
    auto& v = p.verdict;
    if (v.comparison) {
      stats::PlanningOptions planning;
      planning.threshold = settings.threshold;
      planning.confidence = settings.confidence;
      if (auto budget = stats::plan_runs(*v.comparison, planning))
        v.min_detectable = budget->minimum_detectable_effect;
    }
    if (v.verdict == stats::Verdict::inconclusive && v.note.empty()) {
      if (outcome.budget_exhausted)
        v.note = "the time budget ran out";
      else if (v.min_detectable)
        v.note = fmt::format("could not resolve changes under {:.1f}% with {} runs a side",
                             *v.min_detectable * 100, std::min(v.base_runs, v.head_runs));
    }
    outcome.cases.push_back(std::move(v));
  }
  return outcome;
}

} // namespace culprit
