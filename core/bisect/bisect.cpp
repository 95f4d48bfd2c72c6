#include "core/bisect/bisect.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <span>

#include "core/measure/stats_bridge.hpp"

namespace culprit {
namespace {

constexpr int k_good = -1;

class Bisection {
public:
  Bisection(const BisectRange& range, BuildProvider& builds, std::span<Sampler* const> lanes,
            const BisectSettings& settings,
            const std::function<void(const BisectProgress&)>& progress)
      : m_range(range), m_builds(builds), m_lanes(lanes.begin(), lanes.end()),
        m_sampler(*lanes.front()), m_settings(settings), m_progress(progress) {
    // K probes a round split a range of n commits into K + 1 parts.
    const auto n = static_cast<double>(std::max<std::size_t>(range.commits.size(), 1));
    m_expected_rounds = static_cast<std::size_t>(
        std::ceil(std::log(n) / std::log(static_cast<double>(m_lanes.size() + 1)) - 1e-9));
  }

  Result<BisectOutcome> run();

private:
  struct Reference {
    int index = k_good;
    const Subject* subject = nullptr;
  };
  struct Classification {
    stats::StepClass step = stats::StepClass::unresolved;
    std::optional<stats::StepPosition> position;
    std::size_t runs = 0;
    std::string note;
  };

  [[nodiscard]] const std::string& commit_at(int index) const {
    return index == k_good ? m_range.good : m_range.commits[static_cast<std::size_t>(index)];
  }
  Result<const Subject*> subject_at(int index);
  // One probe being classified in a round, on its lane.
  struct Job {
    int index = 0;
    const Subject* probe = nullptr;
    Sampler* lane = nullptr;
    std::size_t n = 0; // probe runs asked for
    bool done = false;
    Classification result;
  };
  Result<std::vector<Job>> round_of(const SelectedCase& selected, const Reference& lo,
                                    const Reference& hi, const std::vector<int>& indices);
  Status classify(const SelectedCase& selected, std::vector<Job>& jobs, const Reference& lo,
                  const Reference& hi);
  Result<Classification> confirm_intermediate(const SelectedCase& selected, Sampler& lane,
                                              const Subject& probe, const Reference& lo,
                                              const Reference& hi, std::size_t probe_runs,
                                              const stats::StepOptions& options);
  [[nodiscard]] std::vector<int> choose_probes(const Reference& lo, const Reference& hi) const;
  [[nodiscard]] stats::StepOptions step_options() const;
  Status search(const SelectedCase& selected, Reference lo, Reference hi);
  Status add_culprit(const SelectedCase& selected, const Reference& parent, int index);
  static Result<stats::Runs> runs_of(Sampler& lane, const Subject& subject, const CaseKey& key,
                                     std::size_t first_n);
  std::size_t& target_of(const Subject& subject) { return m_targets[subject.artifact_id]; }

  const BisectRange& m_range;
  BuildProvider& m_builds;
  std::vector<Sampler*> m_lanes;
  Sampler& m_sampler; // the first lane: the confirmation, and culprits' changes
  std::map<std::string, Sampler*> m_lane_of; // commit -> the lane that classified it
  const BisectSettings& m_settings;
  const std::function<void(const BisectProgress&)>& m_progress;
  std::size_t m_expected_rounds = 0;
  std::size_t m_probes = 0;
  std::size_t m_rounds = 0;
  BisectOutcome m_outcome;
  std::set<int> m_skipped;
  std::map<std::string, std::size_t> m_targets; // artifact id -> runs a reference must have
  std::map<std::string, std::string> m_measured_by_artifact; // artifact id -> first commit
};

Result<const Subject*> Bisection::subject_at(int index) {
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
  Subject subject{commit, rev, built.key, built.artifact_id, built.artifact_dir};
  m_outcome.builds[commit] = std::move(built);
  if (!ok)
    return nullptr;
  if (const auto [it, first] = m_measured_by_artifact.emplace(subject.artifact_id, commit); !first)
    m_outcome.reused_from[commit] = it->second;
  return &(m_outcome.subjects[commit] = std::move(subject));
}

Result<stats::Runs> Bisection::runs_of(Sampler& lane, const Subject& subject, const CaseKey& key,
                                       std::size_t first_n) {
  CULPRIT_TRY_ASSIGN(auto runs, lane.runs(subject, key, first_n));
  return std::move(runs.samples);
}

stats::StepOptions Bisection::step_options() const {
  const auto& compare = m_settings.compare;
  stats::StepOptions options;
  options.statistic = compare.statistic;
  options.threshold = compare.threshold;
  options.bootstrap.confidence = m_settings.classify_confidence;
  options.bootstrap.seed = compare.seed;
  options.bootstrap.threads = compare.threads;
  return options;
}

// The probes of a round are classified in lockstep: each pass asks every lane for its probe's next
// runs, interleaved with fresh runs of both references on the same lane (so on the same device),
// and the lanes measure at once when their executor allows it.
Status Bisection::classify(const SelectedCase& selected, std::vector<Job>& jobs,
                           const Reference& lo, const Reference& hi) {
  const auto& compare = m_settings.compare;
  const std::size_t batch = compare.batch > 0 ? compare.batch : compare.min_runs;
  const auto options = step_options();
  for (auto& job : jobs) {
    // Byte-identical artifacts: the same measurement, no run needed.
    const bool like_lo = job.probe->artifact_id == lo.subject->artifact_id;
    if (like_lo || job.probe->artifact_id == hi.subject->artifact_id) {
      job.result.step = like_lo ? stats::StepClass::good_like : stats::StepClass::bad_like;
      job.result.note = fmt::format("artifacts identical to {}'s: classified without running",
                                    commit_at(like_lo ? lo.index : hi.index).substr(0, 12));
      job.done = true;
    }
    job.n = compare.min_runs;
  }
  while (std::ranges::any_of(jobs, [](const Job& job) { return !job.done; })) {
    auto& lo_target = target_of(*lo.subject);
    auto& hi_target = target_of(*hi.subject);
    lo_target += m_settings.reference_runs_per_batch;
    hi_target += m_settings.reference_runs_per_batch;
    std::vector<LaneWants> wants;
    for (const auto& job : jobs) {
      if (!job.done)
        wants.push_back(
            {job.lane, {{job.probe, job.n}, {lo.subject, lo_target}, {hi.subject, hi_target}}});
    }
    CULPRIT_TRY_ASSIGN(const bool complete, ensure_lanes(wants));
    for (auto& job : jobs) {
      if (job.done)
        continue;
      auto& result = job.result;
      CULPRIT_TRY_ASSIGN(const auto lo_runs,
                         runs_of(*job.lane, *lo.subject, selected.key, lo_target));
      CULPRIT_TRY_ASSIGN(const auto hi_runs,
                         runs_of(*job.lane, *hi.subject, selected.key, hi_target));
      CULPRIT_TRY_ASSIGN(const auto probe_runs,
                         runs_of(*job.lane, *job.probe, selected.key, job.n));
      result.runs = probe_runs.size();
      job.done = true;
      if (probe_runs.size() < 2) {
        result.note = "the case did not appear in the probe's runs";
        continue;
      }
      CULPRIT_TRY_ASSIGN(result.position,
                         lift(stats::step_position(lo_runs, hi_runs, probe_runs, options),
                              selected.key.case_name));
      result.step = result.position->classification;
      if (result.step == stats::StepClass::intermediate) {
        CULPRIT_TRY_ASSIGN(
            result, confirm_intermediate(selected, *job.lane, *job.probe, lo, hi, job.n, options));
      } else if (result.step == stats::StepClass::unresolved) {
        if (!complete)
          result.note = "the time budget ran out";
        else if (job.n >= compare.max_runs)
          result.note = fmt::format("still unresolved after {} runs", job.n);
        else
          job.done = false; // more runs
      }
      job.n = std::min(job.n + batch, compare.max_runs);
    }
  }
  return {};
}

// An intermediate level splits the range, so it must not come from drift: the references' runs
// span the whole bisection while the probe's come from one stretch of time. The probe and both
// references are measured again side by side, interleaved, and only those runs decide.
Result<Bisection::Classification>
Bisection::confirm_intermediate(const SelectedCase& selected, Sampler& lane, const Subject& probe,
                                const Reference& lo, const Reference& hi, std::size_t probe_runs,
                                const stats::StepOptions& options) {
  const std::size_t fresh = std::max<std::size_t>(2 * m_settings.compare.min_runs, 10);
  auto& lo_target = target_of(*lo.subject);
  auto& hi_target = target_of(*hi.subject);
  const std::size_t lo_from = lo_target;
  const std::size_t hi_from = hi_target;
  lo_target += fresh;
  hi_target += fresh;
  const std::size_t probe_to = probe_runs + fresh;
  const std::vector<Want> wants = {
      {&probe, probe_to}, {lo.subject, lo_target}, {hi.subject, hi_target}};
  CULPRIT_TRY(lane.ensure(wants));
  auto window = [&](const Subject& subject, std::size_t from,
                    std::size_t to) -> Result<stats::Runs> {
    CULPRIT_TRY_ASSIGN(auto runs, runs_of(lane, subject, selected.key, to));
    runs.erase(runs.begin(),
               runs.begin() + static_cast<std::ptrdiff_t>(std::min(from, runs.size())));
    return runs;
  };
  CULPRIT_TRY_ASSIGN(const auto lo_runs, window(*lo.subject, lo_from, lo_target));
  CULPRIT_TRY_ASSIGN(const auto hi_runs, window(*hi.subject, hi_from, hi_target));
  CULPRIT_TRY_ASSIGN(const auto probe_window, window(probe, probe_runs, probe_to));
  Classification result;
  result.runs = probe_to;
  if (lo_runs.size() < 2 || hi_runs.size() < 2 || probe_window.size() < 2) {
    result.note = "the case did not appear in enough runs to confirm an intermediate level";
    return result;
  }
  CULPRIT_TRY_ASSIGN(
      result.position,
      lift(stats::step_position(lo_runs, hi_runs, probe_window, options), selected.key.case_name));
  result.step = result.position->classification;
  result.note = result.step == stats::StepClass::intermediate
                    ? "an intermediate level, confirmed by runs side by side with both ends"
                    : "looked intermediate; runs side by side with both ends did not confirm it";
  return result;
}

Status Bisection::add_culprit(const SelectedCase& selected, const Reference& parent, int index) {
  FoundCulprit culprit;
  culprit.commit = commit_at(index);
  culprit.parent = commit_at(parent.index);
  culprit.selected = selected;
  CULPRIT_TRY_ASSIGN(const auto* subject, subject_at(index));
  if (subject != nullptr && subject->artifact_id != parent.subject->artifact_id) {
    const auto& compare = m_settings.compare;
    // The change is measured on one device: the lane that classified the culprit, where the
    // parent gets its runs too if another lane classified it.
    const auto lane_it = m_lane_of.find(culprit.commit);
    auto& lane = lane_it != m_lane_of.end() ? *lane_it->second : m_sampler;
    const std::size_t parent_runs = std::max(target_of(*parent.subject), compare.min_runs);
    const std::vector<Want> wants = {{parent.subject, parent_runs}, {subject, compare.min_runs}};
    CULPRIT_TRY(lane.ensure(wants));
    CULPRIT_TRY_ASSIGN(const auto before,
                       runs_of(lane, *parent.subject, selected.key, parent_runs));
    CULPRIT_TRY_ASSIGN(const auto after, runs_of(lane, *subject, selected.key, 0));
    stats::CompareOptions options;
    options.statistic = compare.statistic;
    options.rule.threshold = compare.threshold;
    options.rule.direction = to_stats(selected.direction);
    options.bootstrap.confidence = compare.confidence;
    options.bootstrap.seed = compare.seed;
    options.bootstrap.threads = compare.threads;
    if (before.size() >= 2 && after.size() >= 2) {
      CULPRIT_TRY_ASSIGN(culprit.change,
                         lift(stats::compare(before, after, options), selected.key.case_name));
      for (const auto& total : m_outcome.confirmation.cases) {
        if (total.selected.key == selected.key && total.comparison &&
            std::abs(std::log(total.comparison->ratio.estimate)) > 0)
          culprit.share =
              std::log(culprit.change->ratio.estimate) / std::log(total.comparison->ratio.estimate);
      }
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

// Builds the probes of a round (all at once when the provider can) and classifies those that
// built, each on a lane of its own.
Result<std::vector<Bisection::Job>> Bisection::round_of(const SelectedCase& selected,
                                                        const Reference& lo, const Reference& hi,
                                                        const std::vector<int>& indices) {
  ++m_rounds;
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
      m_progress({m_rounds, m_expected_rounds, commit_at(index), selected.key.case_name,
                  m_sampler.runs_made()});
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

Status Bisection::search(const SelectedCase& selected, Reference lo, Reference hi) {
  while (hi.index - lo.index > 1) {
    const auto indices = choose_probes(lo, hi);
    if (indices.empty()) {
      // Every commit between the two is skipped: the culprit is one of them or hi.
      for (int i = lo.index + 1; i <= hi.index; ++i)
        m_outcome.candidates.push_back(commit_at(i));
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
      BisectStep step{
          commit_at(job.index), selected.key.case_name, "skip", c.position, c.runs, c.note, ""};
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
        step.classified = "good";
        if (!above) {
          new_lo = here;
          unresolved = nullptr; // a good-like probe above it: the bracket no longer holds it
        }
        break;
      case stats::StepClass::bad_like:
        step.classified = "bad";
        if (!above)
          new_hi = here;
        break;
      case stats::StepClass::intermediate:
        step.classified = "intermediate";
        if (!above)
          split = &job;
        break;
      case stats::StepClass::unresolved:
        step.classified = "unresolved";
        if (!above && unresolved == nullptr)
          unresolved = &job;
        break;
      }
      m_outcome.steps.push_back(std::move(step));
    }
    if (unresolved != nullptr) {
      for (int i = new_lo.index + 1; i <= new_hi.index; ++i)
        m_outcome.candidates.push_back(commit_at(i));
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
      target_of(*split->probe) = std::max(target_of(*split->probe), split->result.runs);
      CULPRIT_TRY(search(selected, new_lo, here));
      return search(selected, here, hi);
    }
    lo = new_lo;
    hi = new_hi;
  }
  return add_culprit(selected, lo, hi.index);
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

  CULPRIT_TRY_ASSIGN(m_outcome.confirmation,
                     compare_subjects(m_sampler, *good, *bad, m_settings.compare));
  const auto wanted = m_settings.improvement ? stats::Verdict::faster : stats::Verdict::slower;
  for (const auto& verdict : m_outcome.confirmation.cases) {
    if (verdict.verdict == wanted)
      m_outcome.cases.push_back(verdict.selected);
  }
  if (m_outcome.cases.empty()) {
    m_outcome.status = "not_reproduced";
    return std::move(m_outcome);
  }
  const std::size_t confirmed_runs = std::max(m_outcome.confirmation.cases.front().base_runs,
                                              m_outcome.confirmation.cases.front().head_runs);
  target_of(*good) = confirmed_runs;
  target_of(*bad) = confirmed_runs;

  for (const auto& selected : m_outcome.cases) {
    // Each case starts from the ends, with the reference runs of the confirmation.
    target_of(*good) = std::max(target_of(*good), confirmed_runs);
    target_of(*bad) = std::max(target_of(*bad), confirmed_runs);
    const auto candidates_before = m_outcome.candidates.size();
    CULPRIT_TRY(search(selected, {k_good, good}, {last, bad}));
    if (m_outcome.candidates.size() != candidates_before)
      m_outcome.status = "inconclusive";
  }
  if (m_outcome.status.empty())
    m_outcome.status = "culprit_found";
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
    if (known && explained < 0.75)
      m_outcome.note +=
          fmt::format("{}the culprits found explain {:.0f}% of the change of {}; a "
                      "smaller culprit may remain in the range",
                      m_outcome.note.empty() ? "" : "; ", explained * 100, selected.key.case_name);
  }
  return std::move(m_outcome);
}

} // namespace

Result<BisectOutcome> run_bisect(const BisectRange& range, BuildProvider& builds, Sampler& sampler,
                                 const BisectSettings& settings,
                                 const std::function<void(const BisectProgress&)>& progress) {
  if (range.commits.empty())
    return usage_error("the range {}..{} holds no commits to bisect", range.good_rev,
                       range.bad_rev);
  const std::array<Sampler*, 1> lanes = {&sampler};
  return run_bisect(range, builds, lanes, settings, progress);
}

Result<BisectOutcome> run_bisect(const BisectRange& range, BuildProvider& builds,
                                 std::span<Sampler* const> lanes, const BisectSettings& settings,
                                 const std::function<void(const BisectProgress&)>& progress) {
  if (range.commits.empty())
    return usage_error("the range {}..{} holds no commits to bisect", range.good_rev,
                       range.bad_rev);
  if (lanes.empty())
    return usage_error("internal error: a bisection needs at least one lane to measure on");
  Bisection bisection(range, builds, lanes, settings, progress);
  return bisection.run();
}

} // namespace culprit
