#include "core/bisect/bisect.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/bisect/bisection.hpp"
#include "core/measure/stats_bridge.hpp"
#include "stats/paired.hpp"
#include "stats/run_statistic.hpp"
#include "stats/slow_runs.hpp"

namespace culprit::bisect::detail {

Result<const measure::Subject*> Bisection::subject_at(int index) {
  const auto& commit = commit_at(index);
  if (const auto it = m_outcome.subjects.find(commit); it != m_outcome.subjects.end())
    return &it->second;
  if (m_outcome.builds.contains(commit))
    return nullptr; // built before and failed
  const std::string rev = index == k_good                                         ? m_range.good_rev
                          : index + 1 == static_cast<int>(m_range.commits.size()) ? m_range.bad_rev
                                                                                  : commit;
  CULPRIT_TRY_ASSIGN(auto built, m_builds.build(commit, rev));
  const bool ok = built.ok();
  measure::Subject subject{commit, rev, built.key, built.artifact_id, built.artifact_dir};
  m_outcome.builds[commit] = std::move(built);
  if (!ok)
    return nullptr;
  if (const auto [it, first] = m_measured_by_artifact.emplace(subject.artifact_id, commit); !first)
    m_outcome.reused_from[commit] = it->second;
  return &(m_outcome.subjects[commit] = std::move(subject));
}

const measure::CaseVerdict*
Bisection::confirmation_of(const measure::SelectedCase& selected) const {
  const auto& cases = m_outcome.confirmation.cases;
  const auto it =
      std::ranges::find_if(cases, [&](const auto& c) { return c.selected.key == selected.key; });
  return it == cases.end() ? nullptr : &*it;
}

Status Bisection::add_culprit(const measure::SelectedCase& selected, const Reference& parent,
                              int index) {
  FoundCulprit culprit;
  culprit.commit = commit_at(index);
  culprit.parent = commit_at(parent.index);
  culprit.selected = selected;
  CULPRIT_TRY_ASSIGN(const auto* subject, subject_at(index));
  if (subject != nullptr && subject->artifact_id != parent.subject->artifact_id) {
    const auto& compare = m_settings.compare;
    // The change is measured on one device, in blocks of the culprit and its parent: the lane
    // that classified the culprit (blocks made there with both, while bisecting, count).
    const auto lane_it = m_lane_of.find(culprit.commit);
    auto& lane = lane_it != m_lane_of.end() ? *lane_it->second : m_sampler;
    // Counts that do not vary: the change is exact from two runs of each, identical (probes were
    // placed by one).
    if (exact_case(selected)) {
      CULPRIT_TRY_ASSIGN(const auto before, exact_level(selected, lane, *parent.subject, 2));
      CULPRIT_TRY_ASSIGN(const auto after, exact_level(selected, lane, *subject, 2));
      if (before && after) {
        const std::array<double, 2> base = {*before, *before};
        const std::array<double, 2> head = {*after, *after};
        culprit.change =
            stats::exact_comparison(base, head, compare.decide.confidence,
                                    {.threshold = compare.decide.threshold,
                                     .direction = measure::to_stats(selected.direction)});
      }
    }
    const std::size_t blocks = std::max<std::size_t>(2 * compare.min_runs(), 10);
    const std::array<const measure::Subject*, 2> group = {parent.subject, subject};
    if (!culprit.change) {
      CULPRIT_TRY(lane.ensure_blocks({{parent.subject, subject}, blocks}));
      CULPRIT_TRY_ASSIGN(const auto runs, lane.block_runs(group, selected.key, blocks));
      if (runs.blocks.size() >= 2) {
        const auto statistic = estimator_of(selected).statistic;
        const auto options = measure::paired_options(compare.decide, selected.direction);
        std::array<std::vector<double>, 2> values = {stats::run_values(runs.runs[0], statistic),
                                                     stats::run_values(runs.runs[1], statistic)};
        if (compare.statistic().automatic)
          stats::keep_selected_blocks(values, measure::to_stats(selected.direction));
        CULPRIT_TRY_ASSIGN(culprit.change,
                           measure::from_stats(stats::compare_paired(values[0], values[1], options),
                                               selected.key.case_name));
      }
    }
    const auto* total = confirmation_of(selected);
    if (culprit.change && total != nullptr && total->comparison &&
        std::abs(std::log(total->comparison->ratio.estimate)) > 0)
      culprit.share =
          std::log(culprit.change->ratio.estimate) / std::log(total->comparison->ratio.estimate);
    if (m_settings.timer != nullptr) {
      CULPRIT_TRY_ASSIGN(culprit.in_time, in_time(selected, *parent.subject, *subject));
    }
  }
  m_outcome.culprits.push_back(std::move(culprit));
  return {};
}

// K probes that split (lo, hi) into K + 1 parts as evenly as the commits allow, each the commit
// nearest its place that has not failed to build and is not taken. With K = 1: the middle.
std::vector<int> Bisection::choose_probes(const Reference& lo, const Reference& hi) const {
  const int k = static_cast<int>(m_lanes.size());
  const int span = hi.index - lo.index;
  std::vector<int> chosen;
  for (int i = 1; i <= k; ++i) {
    const int place = lo.index + i * span / (k + 1);
    for (int distance = 0; distance < span; ++distance) {
      const auto free = [&](int candidate) {
        return candidate > lo.index && candidate < hi.index && !m_skipped.contains(candidate) &&
               std::ranges::find(chosen, candidate) == chosen.end();
      };
      if (free(place - distance)) {
        chosen.push_back(place - distance);
        break;
      }
      if (free(place + distance)) {
        chosen.push_back(place + distance);
        break;
      }
    }
  }
  std::ranges::sort(chosen);
  return chosen;
}

std::size_t Bisection::rounds_for(int span) const {
  if (span <= 1)
    return 0;
  return static_cast<std::size_t>(std::ceil(std::log(static_cast<double>(span)) /
                                                std::log(static_cast<double>(m_lanes.size() + 1)) -
                                            1e-9));
}

// Builds the probes of a round (all at once when the provider can) and classifies those that
// built, each on a lane of its own.
Result<std::vector<Bisection::Job>> Bisection::round_of(const measure::SelectedCase& selected,
                                                        const Reference& lo, const Reference& hi,
                                                        const std::vector<int>& indices) {
  ++m_rounds;
  ++m_case_rounds;
  // Honest about what is left: the rounds this bracket still needs and those of the parts
  // waiting after a split, on top of the rounds this case has had.
  const std::size_t expected =
      m_case_rounds + rounds_for(hi.index - lo.index) - 1 + m_pending_rounds;
  std::vector<std::pair<std::string, std::string>> wanted;
  for (const int index : indices) {
    if (!m_outcome.builds.contains(commit_at(index)))
      wanted.emplace_back(commit_at(index), commit_at(index));
  }
  if (wanted.size() > 1)
    CULPRIT_TRY(m_builds.prepare(wanted));
  std::vector<Job> jobs;
  for (const int index : indices) {
    ++m_probes;
    if (m_progress)
      m_progress({.round = m_case_rounds,
                  .expected_rounds = std::max(expected, m_case_rounds),
                  .commit = commit_at(index),
                  .case_name = selected.key.case_name,
                  .case_index = m_case,
                  .cases = m_outcome.cases.size(),
                  .runs_made = m_sampler.runs_made()});
    CULPRIT_TRY_ASSIGN(const auto* probe, subject_at(index));
    Job job;
    job.index = index;
    job.probe = probe;
    job.lane = m_lanes[jobs.size() % m_lanes.size()];
    jobs.push_back(job);
  }
  std::vector<Job> built;
  for (const auto& job : jobs) {
    if (job.probe != nullptr)
      built.push_back(job);
  }
  CULPRIT_TRY(classify(selected, built, lo, hi));
  for (auto& job : jobs) {
    for (const auto& done : built) {
      if (done.index == job.index)
        job = done;
    }
  }
  return jobs;
}

// Once each: the searches of two cases may end among the same commits.
void Bisection::add_candidate(const std::string& commit) {
  m_left_candidates = true;
  if (std::ranges::find(m_outcome.candidates, commit) == m_outcome.candidates.end())
    m_outcome.candidates.push_back(commit);
}

Status Bisection::search(const measure::SelectedCase& selected, Reference lo, Reference hi) {
  while (hi.index - lo.index > 1) {
    const auto indices = choose_probes(lo, hi);
    if (indices.empty()) {
      // Every commit between the two is skipped: the culprit is one of them or hi.
      for (int i = lo.index + 1; i <= hi.index; ++i)
        add_candidate(commit_at(i));
      m_outcome.note = "commits that fail to build leave more than one candidate";
      return {};
    }
    CULPRIT_TRY_ASSIGN(auto jobs, round_of(selected, lo, hi, indices));
    // The steps, in commit order; then the new bracket: the first bad-like probe and the last
    // good-like one before it. An intermediate probe below that bracket splits the range.
    Reference new_lo = lo;
    Reference new_hi = hi;
    const Job* split = nullptr;
    const Job* unresolved = nullptr;
    for (const auto& job : jobs) {
      const auto& c = job.result;
      BisectStep step{commit_at(job.index),
                      selected.key.case_name,
                      ProbeClass::skip,
                      c.position,
                      c.runs,
                      c.note,
                      "",
                      c.statistic};
      if (job.probe == nullptr) {
        m_skipped.insert(job.index);
        step.note = m_outcome.builds[step.commit].message;
        m_outcome.steps.push_back(std::move(step));
        continue;
      }
      m_lane_of[step.commit] = job.lane;
      if (m_lanes.size() > 1)
        step.host_id = job.lane->options().host_id;
      if (const auto it = m_outcome.reused_from.find(step.commit);
          it != m_outcome.reused_from.end() && step.note.empty())
        step.note = fmt::format("artifacts identical to {}'s: its runs were reused",
                                it->second.substr(0, 12));
      const bool above = new_hi.index != hi.index || split != nullptr;
      const Reference here{job.index, job.probe};
      switch (c.step) {
      case stats::StepClass::good_like:
        step.classified = ProbeClass::good;
        if (!above) {
          new_lo = here;
          unresolved = nullptr; // a good-like probe above it: the bracket no longer holds it
        }
        break;
      case stats::StepClass::bad_like:
        step.classified = ProbeClass::bad;
        if (!above)
          new_hi = here;
        break;
      case stats::StepClass::intermediate:
        step.classified = ProbeClass::intermediate;
        if (!above)
          split = &job;
        break;
      case stats::StepClass::unresolved:
        step.classified = ProbeClass::unresolved;
        if (!above && unresolved == nullptr)
          unresolved = &job;
        break;
      }
      m_outcome.steps.push_back(std::move(step));
    }
    if (unresolved != nullptr) {
      for (int i = new_lo.index + 1; i <= new_hi.index; ++i)
        add_candidate(commit_at(i));
      if (m_outcome.note.empty())
        m_outcome.note = unresolved->result.note.empty()
                             ? "a probe could not be classified with the runs allowed"
                             : unresolved->result.note;
      return {};
    }
    if (split != nullptr) {
      // More than one culprit: the probe is the upper reference of the first half and the lower
      // reference of the second.
      const Reference here{split->index, split->probe};
      const auto later = rounds_for(hi.index - here.index);
      m_pending_rounds += later;
      CULPRIT_TRY(search(selected, new_lo, here));
      m_pending_rounds -= later;
      return search(selected, here, hi);
    }
    lo = new_lo;
    hi = new_hi;
  }
  return add_culprit(selected, lo, hi.index);
}

BisectOutcome Bisection::so_far() const {
  auto outcome = m_outcome;
  outcome.status = BisectStatus::interrupted;
  outcome.rounds = m_rounds;
  outcome.lanes = m_lanes.size();
  return outcome;
}

Result<BisectOutcome> Bisection::run() {
  const int last = static_cast<int>(m_range.commits.size()) - 1;
  CULPRIT_TRY_ASSIGN(const auto* good, subject_at(k_good));
  CULPRIT_TRY_ASSIGN(const auto* bad, subject_at(last));
  if (good == nullptr || bad == nullptr) {
    const auto& which = good == nullptr ? m_range.good : m_range.bad;
    return infra_error("the {} end {} does not build: {}; fix the recipe or pick another end",
                       good == nullptr ? "good" : "bad", which.substr(0, 12),
                       m_outcome.builds[which].message);
  }

  m_good = good;
  m_bad = bad;
  auto ends = m_settings.compare;
  ends.quick_stop = m_settings.quick_look; // a step that dwarfs the noise is told in 10 blocks
  CULPRIT_TRY_ASSIGN(m_outcome.confirmation,
                     measure::compare_subjects(m_sampler, *good, *bad, ends));
  const auto wanted = m_settings.improvement ? stats::Verdict::faster : stats::Verdict::slower;
  for (const auto& verdict : m_outcome.confirmation.cases) {
    if (verdict.estimator) {
      // The ends' statistic was chosen at their first look; what all their runs show decides
      // the probes'. A machine that turned noisy after that look would otherwise leave every
      // probe judged by a median of two speed states, and a probe unresolved.
      auto& estimator = m_estimators[verdict.selected.key] = *verdict.estimator;
      if (auto later =
              measure::judge_later_by(m_settings.compare.statistic(), verdict.selected.direction,
                                      estimator, verdict.interference, "the ends' runs"))
        estimator = std::move(*later);
    }
    if (verdict.verdict == wanted)
      m_outcome.cases.push_back(verdict.selected);
  }
  if (m_outcome.cases.empty() && m_outcome.confirmation.budget_exhausted) {
    // Not "not reproduced": the budget ran out before the ends could be told apart.
    m_outcome.status = BisectStatus::inconclusive;
    m_outcome.note = "the time budget ran out before the ends were told apart";
    return std::move(m_outcome);
  }
  if (m_outcome.cases.empty()) {
    m_outcome.status = BisectStatus::not_reproduced;
    return std::move(m_outcome);
  }
  for (const auto& selected : m_outcome.cases) {
    m_left_candidates = false;
    ++m_case;
    m_case_rounds = 0;
    m_pending_rounds = 0;
    CULPRIT_TRY(search(selected, {k_good, good}, {last, bad}));
    if (m_left_candidates)
      m_outcome.status = BisectStatus::inconclusive;
  }
  if (m_outcome.status == BisectStatus::not_run)
    m_outcome.status = BisectStatus::culprit_found;
  m_outcome.rounds = m_rounds;
  m_outcome.lanes = m_lanes.size();
  // Say so when the culprits found do not account for the whole change of a case: a smaller
  // culprit may hide behind a probe that looked like one end.
  for (const auto& selected : m_outcome.cases) {
    double explained = 0;
    bool known = false;
    for (const auto& culprit : m_outcome.culprits) {
      if (culprit.selected.key == selected.key && culprit.share) {
        explained += *culprit.share;
        known = true;
      }
    }
    if (known && explained < m_settings.compare.decide.explained_share)
      m_outcome.note +=
          fmt::format("{}the culprits found explain {:.0f}% of the change of {}; a "
                      "smaller culprit may remain in the range",
                      m_outcome.note.empty() ? "" : "; ", explained * 100, selected.key.case_name);
  }
  // A case the ends could not tell apart was not bisected: say so beside the culprits of the
  // others, which would otherwise read as the whole story.
  std::vector<std::string> untold;
  for (const auto& verdict : m_outcome.confirmation.cases)
    if (verdict.verdict == stats::Verdict::inconclusive)
      untold.push_back(verdict.note.empty()
                           ? verdict.selected.key.case_name
                           : fmt::format("{} ({})", verdict.selected.key.case_name, verdict.note));
  // A library of many kernels names the first few and counts the rest.
  constexpr std::size_t k_named = 5;
  const std::size_t more = untold.size() > k_named ? untold.size() - k_named : 0;
  if (more > 0)
    untold.resize(k_named);
  if (!untold.empty())
    m_outcome.note += fmt::format(
        "{}the ends could not tell whether {}{} changed, so {} not bisected; more --max-runs, or "
        "--case alone, may tell",
        m_outcome.note.empty() ? "" : "; ", fmt::join(untold, ", "),
        more > 0 ? fmt::format(" and {} more case{}", more, more == 1 ? "" : "s") : "",
        untold.size() == 1 ? "it was" : "they were");
  return std::move(m_outcome);
}

} // namespace culprit::bisect::detail

namespace culprit::bisect {

std::string_view to_string(ProbeClass probe) {
  switch (probe) {
  case ProbeClass::good:
    return "good";
  case ProbeClass::bad:
    return "bad";
  case ProbeClass::skip:
    return "skip";
  case ProbeClass::intermediate:
    return "intermediate";
  case ProbeClass::unresolved:
    return "unresolved";
  }
  return "unresolved";
}

std::string_view to_string(BisectStatus status) {
  switch (status) {
  case BisectStatus::not_run:
    return "not_run";
  case BisectStatus::culprit_found:
    return "culprit_found";
  case BisectStatus::not_reproduced:
    return "not_reproduced";
  case BisectStatus::inconclusive:
    return "inconclusive";
  case BisectStatus::interrupted:
    return "interrupted";
  }
  return "inconclusive";
}

Result<BisectOutcome> run_bisect(const BisectRange& range, build::BuildProvider& builds,
                                 measure::Sampler& sampler, const BisectSettings& settings,
                                 const std::function<void(const BisectProgress&)>& progress) {
  const std::array<measure::Sampler*, 1> lanes = {&sampler};
  return run_bisect(range, builds, lanes, settings, progress);
}

Result<BisectOutcome> run_bisect(const BisectRange& range, build::BuildProvider& builds,
                                 std::span<measure::Sampler* const> lanes,
                                 const BisectSettings& settings,
                                 const std::function<void(const BisectProgress&)>& progress,
                                 BisectOutcome* so_far) {
  if (range.commits.empty())
    return usage_error("the range {}..{} holds no commits to bisect", range.good_rev,
                       range.bad_rev);
  if (lanes.empty())
    return usage_error("internal error: a bisection needs at least one lane to measure on");
  detail::Bisection bisection(range, builds, lanes, settings, progress);
  auto outcome = bisection.run();
  if (!outcome && so_far != nullptr)
    *so_far = bisection.so_far();
  if (!outcome || settings.timer == nullptr)
    return outcome;
  return detail::bisect_quiet_cases_by_time(range, builds, settings, progress, so_far,
                                            std::move(*outcome));
}

} // namespace culprit::bisect
