#include "core/measure/compare.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "core/measure/instrument.hpp"
#include "core/measure/stats_bridge.hpp"
#include "stats/fdr.hpp"
#include "stats/paired.hpp"
#include "stats/planning.hpp"
#include "stats/quick_look.hpp"
#include "stats/run_statistic.hpp"
#include "stats/sequential.hpp"
#include "stats/signed_rank.hpp"

namespace culprit::measure {

StatisticSetting CompareSettings::statistic() const {
  return StatisticSetting::parse(decide.statistic).value_or(StatisticSetting{});
}

CompareSettings compare_settings_of(const recipe::Recipe& recipe) {
  CompareSettings settings;
  settings.decide = recipe.decide;
  settings.case_globs = recipe.run.cases;
  settings.metric = recipe.run.metric;
  settings.duet = recipe.run.duet;
  return settings;
}

CompareSettings timed_settings(CompareSettings counted) {
  if (is_count_metric(counted.metric))
    counted.metric.clear();
  counted.decide.min_runs = std::max(counted.decide.min_runs, recipe::DecideOptions{}.min_runs);
  counted.decide.max_runs = std::max(counted.decide.max_runs, counted.decide.min_runs);
  return counted;
}

bool is_gpu_metric(std::string_view metric) {
  return metric.find("gpu") != std::string_view::npos;
}

std::optional<stats::Interference> diagnose(const stats::Runs& runs, parsers::Direction direction) {
  auto diagnosis = stats::diagnose_interference(runs, to_stats(direction));
  if (!diagnosis)
    return std::nullopt;
  return *diagnosis;
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

// Looks at one case with the blocks made so far; true when its verdict is final.
Result<bool> look_at(Sampler& sampler, const std::array<const Subject*, 2>& group,
                     const stats::SequentialPlan& plan, std::size_t look,
                     const CompareSettings& settings, Pending& pending) {
  auto& verdict = pending.verdict;
  const auto& key = verdict.selected.key;
  CULPRIT_TRY_ASSIGN(const auto blocks, sampler.block_runs(group, key, plan.runs[look]));
  verdict.blocks = blocks.blocks.size();
  verdict.duets = static_cast<std::size_t>(std::ranges::count(blocks.duets, true));
  verdict.base_runs = verdict.head_runs = blocks.blocks.size();
  verdict.reused_blocks = static_cast<std::size_t>(std::ranges::count_if(
      blocks.blocks, [&](const std::string& block) { return !sampler.made_block(block); }));
  for (std::size_t side = 0; side < 2; ++side) {
    CULPRIT_TRY_ASSIGN(const auto stored, sampler.runs(*group[side], key));
    verdict.unpaired[side] = stored.samples.size() > blocks.blocks.size()
                                 ? stored.samples.size() - blocks.blocks.size()
                                 : 0;
  }
  if (blocks.blocks.empty()) {
    CULPRIT_TRY_ASSIGN(const auto base_runs, sampler.runs(*group[0], key));
    verdict.note =
        fmt::format("{} did not report this case", base_runs.samples.empty() ? "base" : "head");
    return false;
  }
  if (blocks.blocks.size() < 2)
    return false; // the case appears in too few blocks yet
  const auto direction = verdict.selected.direction;
  for (std::size_t side = 0; side < 2; ++side)
    verdict.interference[side] = diagnose(blocks.runs[side], direction);
  // Chosen once, at the first look: switching statistics between looks would test several
  // hypotheses under one error rate. The first look of a sequential plan cannot decide anything
  // (its level is 1 - 5e-10), so the choice costs no verdict its honesty.
  if (!verdict.estimator)
    verdict.estimator = choose_estimator(settings.statistic(), direction, verdict.interference);
  auto base = stats::run_values(blocks.runs[0], verdict.estimator->statistic);
  auto head = stats::run_values(blocks.runs[1], verdict.estimator->statistic);
  // Whole runs in the slow state: the blocks whose runs shared a state are compared.
  verdict.selection.reset();
  if (settings.statistic().automatic) {
    std::array<std::vector<double>, 2> sides = {std::move(base), std::move(head)};
    // Only when the blocks kept can reach the confidence: five blocks out of thirty (the others
    // mixed, on a machine that flipped states within blocks) once left a 1.68x step inconclusive.
    verdict.selection = stats::keep_selected_blocks(
        sides, to_stats(direction), stats::pairs_reaching(settings.decide.confidence));
    base = std::move(sides[0]);
    head = std::move(sides[1]);
    verdict.one_sample_runs = std::ranges::all_of(blocks.runs, [](const stats::Runs& runs) {
      return std::ranges::all_of(runs, [](const auto& run) { return run.size() == 1; });
    });
  }
  verdict.levels = {stats::evaluate(stats::RunStatistic::median(), base),
                    stats::evaluate(stats::RunStatistic::median(), head)};
  // Counts that do not vary decide at once, exactly (instructions under Valgrind).
  const stats::DecisionRule rule{.threshold = settings.decide.threshold,
                                 .direction = to_stats(direction)};
  if (const auto exact = stats::exact_comparison(base, head, settings.decide.confidence, rule)) {
    verdict.comparison = *exact;
    verdict.verdict = exact->verdict;
    verdict.note = fmt::format("exact ({} runs a side, identical counts)", base.size());
    return true;
  }
  if (settings.quick_stop) {
    if (const auto quick = stats::quick_stop(base, head, rule)) {
      CULPRIT_TRY_ASSIGN(
          auto nominal,
          from_stats(stats::compare_paired(base, head, paired_options(settings.decide, direction)),
                     key.case_name));
      if (nominal.verdict == *quick) {
        verdict.comparison = nominal;
        verdict.verdict = *quick;
        verdict.note = fmt::format("a quick stop: every one of {} blocks beyond the threshold, "
                                   "the step many times their noise",
                                   base.size());
        return true;
      }
    }
  }
  CULPRIT_TRY_ASSIGN(const auto decision,
                     from_stats(stats::decide_at_look(plan, look,
                                                      [&](double confidence) {
                                                        return stats::compare_paired(
                                                            base, head,
                                                            paired_options(settings.decide,
                                                                           direction, confidence));
                                                      }),
                                key.case_name));
  verdict.comparison = decision.comparison;
  verdict.verdict = decision.comparison.verdict;
  return decision.next == stats::NextStep::stop;
}

// The slow side compared at the nominal level, for a case judged by the fast side: reported
// when it says something the fast side does not.
Status look_at_tail(Sampler& sampler, const std::array<const Subject*, 2>& group,
                    const CompareSettings& settings, CaseVerdict& verdict) {
  if (!verdict.estimator || !verdict.estimator->fast_side() || !verdict.comparison)
    return {};
  CULPRIT_TRY_ASSIGN(const auto blocks,
                     sampler.block_runs(group, verdict.selected.key, verdict.blocks));
  const auto statistic = slow_side(verdict.selected.direction);
  auto base = stats::run_values(blocks.runs[0], statistic);
  auto head = stats::run_values(blocks.runs[1], statistic);
  if (verdict.selection) {
    base = stats::kept_values(base, *verdict.selection);
    head = stats::kept_values(head, *verdict.selection);
  }
  auto tail = stats::compare_paired(base, head,
                                    paired_options(settings.decide, verdict.selected.direction));
  if (tail &&
      (tail->verdict == stats::Verdict::slower || tail->verdict == stats::Verdict::faster) &&
      tail->verdict != verdict.verdict)
    verdict.tail = TailChange{statistic, *tail};
  return {};
}

// Whether the blocks after this look run as duets when duets are automatic.
bool want_duet(const std::vector<Pending>& pending, Sampler& sampler, CompareOutcome& outcome) {
  if (!sampler.can_duet()) {
    outcome.duet_reason = "auto: no two CPUs to run a duet on";
    return false;
  }
  bool interference = false;
  for (const auto& p : pending) {
    if (is_gpu_metric(p.verdict.selected.key.metric)) {
      outcome.duet_reason = "auto: the benchmark reports GPU times, which a duet would share";
      return false;
    }
    for (const auto& side : p.verdict.interference)
      interference = interference || (side && stats::fast_side_decides(*side));
  }
  outcome.duet_reason = interference ? "auto: one-sided interference after the first look"
                                     : "auto: no one-sided interference after the first look";
  return interference;
}

Status control_false_discoveries(std::vector<Pending>& pending, double confidence) {
  std::vector<double> p_values;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (pending[i].verdict.comparison) {
      p_values.push_back(pending[i].verdict.comparison->p_value);
      index.push_back(i);
    }
  }
  if (p_values.size() <= 1)
    return {};
  CULPRIT_TRY_ASSIGN(const auto fdr,
                     from_stats(stats::benjamini_hochberg(p_values, 1 - confidence)));
  for (std::size_t j = 0; j < index.size(); ++j) {
    auto& v = pending[index[j]].verdict;
    const bool called = v.verdict == stats::Verdict::slower || v.verdict == stats::Verdict::faster;
    if (called && fdr.adjusted[j] > 1 - confidence) {
      v.verdict = stats::Verdict::inconclusive;
      v.note = fmt::format("not significant once {} cases are compared at once (adjusted p = "
                           "{:.3g})",
                           p_values.size(), fdr.adjusted[j]);
    }
  }
  return {};
}

// Byte-identical builds: the same program, so the same performance, with nothing to run.
Result<CompareOutcome> identical_outcome(Sampler& sampler, const Subject& base,
                                         const CompareSettings& settings) {
  CompareOutcome outcome;
  outcome.identical = true;
  CULPRIT_TRY_ASSIGN(const auto stored, sampler.cases(base));
  std::vector<SelectedCase> selected;
  if (!stored.empty()) {
    if (auto chosen = select_cases(stored, settings.case_globs, settings.metric))
      selected = std::move(*chosen);
  }
  if (selected.empty())
    selected.push_back(
        {{std::string(k_every_case), settings.metric}, "", parsers::Direction::lower_is_better});
  for (auto& s : selected) {
    CaseVerdict verdict;
    verdict.selected = std::move(s);
    verdict.verdict = stats::Verdict::same;
    stats::Comparison same;
    same.ratio = {1.0, 1.0, 1.0, 0.0};
    same.p_value = 1.0;
    same.confidence = same.interval_confidence = settings.decide.confidence;
    same.verdict = stats::Verdict::same;
    verdict.comparison = same;
    verdict.note = fmt::format("identical binaries: both builds have artifacts {}, so nothing "
                               "was run",
                               base.artifact_id.substr(0, 12));
    outcome.cases.push_back(std::move(verdict));
  }
  return outcome;
}

} // namespace

Result<CompareOutcome> compare_subjects(Sampler& sampler, const Subject& base, const Subject& head,
                                        const CompareSettings& settings) {
  if (base.artifact_id == head.artifact_id)
    return identical_outcome(sampler, base, settings);
  const std::size_t batch = settings.batch > 0 ? settings.batch : settings.min_runs();
  CULPRIT_TRY_ASSIGN(const auto plan, from_stats(stats::make_sequential_plan(
                                          settings.min_runs(), settings.max_runs(), batch,
                                          settings.decide.confidence)));
  const std::array<const Subject*, 2> group = {&base, &head};
  CompareOutcome outcome;
  bool duet = settings.duet == recipe::DuetMode::on;
  if (duet)
    outcome.duet_reason = "asked for";
  std::vector<Pending> pending;
  for (std::size_t look = 0; look < plan.runs.size(); ++look) {
    CULPRIT_TRY_ASSIGN(const bool complete,
                       sampler.ensure_blocks({{&base, &head}, plan.runs[look], duet}));
    outcome.duet = outcome.duet || duet;
    outcome.looks = look + 1;
    if (look == 0) {
      const auto selected = select_common_cases(sampler, {&base, &head}, settings);
      if (!selected) {
        if (!complete)
          CULPRIT_TRY(budget_spent_if_nothing_reported(sampler, {&base, &head}));
        return std::unexpected(selected.error());
      }
      for (const auto& s : *selected) {
        if (settings.duet == recipe::DuetMode::on && is_gpu_metric(s.key.metric))
          return usage_error("a duet runs two revisions at once, and case {} reports {}, a GPU "
                             "time that both would share: turn off --duet ([run] duet)",
                             s.key.case_name, s.key.metric);
        Pending p;
        p.verdict.selected = s;
        pending.push_back(std::move(p));
      }
    }
    bool all_resolved = true;
    for (auto& p : pending) {
      if (p.resolved)
        continue;
      CULPRIT_TRY_ASSIGN(p.resolved, look_at(sampler, group, plan, look, settings, p));
      all_resolved = all_resolved && p.resolved;
    }
    if (!complete) {
      outcome.budget_exhausted = true;
      break;
    }
    if (all_resolved)
      break;
    if (look == 0 && settings.duet == recipe::DuetMode::automatic)
      duet = want_duet(pending, sampler, outcome);
  }
  CULPRIT_TRY(control_false_discoveries(pending, settings.decide.confidence));

  for (auto& p : pending) {
    auto& v = p.verdict;
    CULPRIT_TRY(look_at_tail(sampler, group, settings, v));
    if (v.comparison) {
      if (auto budget = stats::plan_runs(*v.comparison, planning_options(settings.decide)))
        v.min_detectable = budget->minimum_detectable_effect;
    }
    if (v.verdict == stats::Verdict::inconclusive && v.note.empty()) {
      if (outcome.budget_exhausted)
        v.note = "the time budget ran out";
      else if (v.min_detectable)
        v.note = fmt::format("could not resolve changes under {:.1f}% with {} blocks",
                             *v.min_detectable * 100, v.blocks);
    }
    outcome.cases.push_back(std::move(v));
  }
  return outcome;
}

} // namespace culprit::measure
