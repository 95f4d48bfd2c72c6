#include <algorithm>

#include "core/bisect/bisection.hpp"
#include "core/measure/stats_bridge.hpp"

namespace culprit::bisect_detail {

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

} // namespace culprit::bisect_detail
