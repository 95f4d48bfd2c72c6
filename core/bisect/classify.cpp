#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/bisect/bisection.hpp"
#include "core/measure/compare.hpp"
#include "core/measure/stats_bridge.hpp"
#include "stats/paired.hpp"
#include "stats/quick_look.hpp"
#include "stats/run_statistic.hpp"
#include "stats/slow_runs.hpp"

namespace culprit::bisect::detail {
namespace {

// Resamples of the position's bootstrap: a percentile interval at 99% has 20 replicates beyond
// each end, and a classification is made at every look.
constexpr std::size_t k_position_resamples = 4000;
// A position needs blocks of all three runs; fewer cannot place a probe.
constexpr std::size_t k_min_blocks = 3;

} // namespace

stats::StepOptions Bisection::step_options() const {
  const auto& compare = m_settings.compare;
  return culprit::measure::step_options(compare.decide, compare.threads, k_position_resamples);
}

const measure::Estimator& Bisection::estimator_of(const measure::SelectedCase& selected) const {
  static const measure::Estimator k_median;
  const auto it = m_estimators.find(selected.key);
  return it != m_estimators.end() ? it->second : k_median;
}

Result<std::optional<stats::StepPosition>>
Bisection::position_in(const measure::SelectedCase& selected, measure::Sampler& lane,
                       const measure::Subject& probe, const Reference& lo, const Reference& hi,
                       std::size_t from, std::size_t to) {
  const std::array<const measure::Subject*, 3> group = {lo.subject, hi.subject, &probe};
  CULPRIT_TRY_ASSIGN(auto blocks, lane.block_runs(group, selected.key, to));
  for (auto& runs : blocks.runs)
    runs.erase(runs.begin(),
               runs.begin() + static_cast<std::ptrdiff_t>(std::min(from, runs.size())));
  if (blocks.runs[2].size() < k_min_blocks)
    return std::nullopt;
  const auto statistic = estimator_of(selected).statistic;
  std::array<std::vector<double>, 3> values;
  for (std::size_t side = 0; side < values.size(); ++side)
    values[side] = stats::run_values(blocks.runs[side], statistic);
  // Whole runs in the slow state: the blocks whose three runs shared a state place the probe,
  // when there are enough of them.
  if (m_settings.compare.statistic().automatic)
    stats::keep_selected_blocks(values, measure::to_stats(selected.direction), k_min_blocks);
  CULPRIT_TRY_ASSIGN(auto position,
                     measure::from_stats(stats::paired_step_position(values[0], values[1],
                                                                     values[2], step_options()),
                                         selected.key.case_name));
  return position;
}

// The ends' step and noise by the probes' statistic, from the blocks that confirmed them: what
// decides whether a probe may be classified at a quick look (stats/quick_look.hpp).
Result<std::optional<stats::StepNoise>>
Bisection::ends_noise(const measure::SelectedCase& selected) {
  const auto* verdict = confirmation_of(selected);
  if (m_good == nullptr || m_bad == nullptr || verdict == nullptr)
    return std::nullopt;
  const std::array<const measure::Subject*, 2> ends = {m_good, m_bad};
  CULPRIT_TRY_ASSIGN(const auto blocks, m_sampler.block_runs(ends, selected.key, verdict->blocks));
  if (blocks.runs[0].empty())
    return std::nullopt;
  const auto statistic = estimator_of(selected).statistic;
  return stats::step_noise(stats::run_values(blocks.runs[0], statistic),
                           stats::run_values(blocks.runs[1], statistic));
}

// The quick look at a probe's first blocks: a classification only when the step dwarfs the noise
// and every block puts the probe at one end (stats/quick_look.hpp); nothing otherwise.
Result<std::optional<Bisection::Classification>>
Bisection::quick_look(const measure::SelectedCase& selected, const stats::StepNoise& ends,
                      measure::Sampler& lane, const measure::Subject& probe, const Reference& lo,
                      const Reference& hi) {
  const std::array<const measure::Subject*, 3> group = {lo.subject, hi.subject, &probe};
  CULPRIT_TRY_ASSIGN(const auto blocks,
                     lane.block_runs(group, selected.key, stats::k_quick_blocks));
  if (blocks.runs[2].size() < stats::k_quick_blocks)
    return std::nullopt;
  const auto statistic = estimator_of(selected).statistic;
  const auto values = [&](std::size_t side) {
    return stats::run_values(blocks.runs[side], statistic);
  };
  auto position = stats::quick_position(ends, values(0), values(1), values(2),
                                        m_settings.compare.decide.threshold);
  if (!position)
    return std::nullopt;
  Classification result;
  result.step = position->classification;
  result.position = position;
  result.runs = stats::k_quick_blocks;
  result.statistic = stats::to_string(statistic);
  const auto dwarfed = ends.spread > 0 ? fmt::format("the step is {:.0f}x the noise of the ends' "
                                                     "blocks",
                                                     std::abs(ends.step) / ends.spread)
                                       : std::string("the ends' blocks show no noise");
  result.note = fmt::format("a quick look: {}, and both blocks put the probe at {}'s level",
                            dwarfed, result.step == stats::StepClass::good_like ? "good" : "bad");
  return result;
}

// Whether the ends' comparison of the case was exact: counts that did not vary (under
// --instrument valgrind), so that every level is known from two runs and needs no references.
bool Bisection::exact_case(const measure::SelectedCase& selected) const {
  const auto* verdict = confirmation_of(selected);
  return verdict != nullptr && verdict->comparison &&
         verdict->comparison->method == stats::ComparisonMethod::exact;
}

// The level of a subject from `count` runs whose counts agree exactly; none when they differ.
Result<std::optional<double>> Bisection::exact_level(const measure::SelectedCase& selected,
                                                     measure::Sampler& lane,
                                                     const measure::Subject& subject,
                                                     std::size_t count) {
  const std::array<measure::RunsWanted, 1> want = {measure::RunsWanted{&subject, count}};
  CULPRIT_TRY_ASSIGN(const bool complete, lane.ensure(want));
  if (!complete)
    return std::nullopt;
  CULPRIT_TRY_ASSIGN(const auto runs, lane.runs(subject, selected.key, count));
  if (runs.samples.size() < count)
    return std::nullopt;
  const auto values = stats::run_values(runs.samples, estimator_of(selected).statistic);
  if (!(values[0] > 0) || !std::isfinite(values[0]) ||
      !std::ranges::all_of(values, [&](double v) { return v == values[0]; }))
    return std::nullopt;
  return values[0];
}

// With exact counts a probe is placed by one run of its own against the references' exact
// levels (`low`, `high`, which differ): no block, no interval (a zero-width one), and a level
// between the ends is an exact split. The ends showed that the counts do not vary (two runs a
// side, identical), and the culprit and its parent are run a second time before the culprit's
// change is named (add_culprit), so a count that did vary after all is caught there.
Result<std::optional<Bisection::Classification>>
Bisection::exact_look(const measure::SelectedCase& selected, measure::Sampler& lane,
                      const measure::Subject& probe, const Reference& lo, const Reference& hi,
                      double low, double high) {
  CULPRIT_TRY_ASSIGN(const auto level, exact_level(selected, lane, probe, 1));
  if (!level)
    return std::nullopt;
  const double step = std::log(high / low);
  const double position = std::log(*level / low) / step;
  stats::StepPosition placed;
  placed.step = {.estimate = step, .lower = step, .upper = step};
  placed.position = {.estimate = position, .lower = position, .upper = position};
  placed.tolerance =
      std::min(0.5, std::log1p(m_settings.compare.decide.threshold) / std::abs(step));
  placed.classification = position <= placed.tolerance         ? stats::StepClass::good_like
                          : position >= 1.0 - placed.tolerance ? stats::StepClass::bad_like
                                                               : stats::StepClass::intermediate;
  Classification result;
  result.step = placed.classification;
  result.position = placed;
  result.runs = 1;
  result.exact = true;
  result.statistic = stats::to_string(estimator_of(selected).statistic);
  result.note = fmt::format("exact: counts that do not vary, {:.1f}% of the way from {} to {}",
                            position * 100, commit_at(lo.index).substr(0, 12),
                            commit_at(hi.index).substr(0, 12));
  return result;
}

// The probes of a round are classified in lockstep: each pass asks every lane for more blocks of
// its probe with both references (so on the same device), and the lanes measure at once when
// their executor allows it.
Status Bisection::classify(const measure::SelectedCase& selected, std::vector<Job>& jobs,
                           const Reference& lo, const Reference& hi) {
  const auto& compare = m_settings.compare;
  const std::size_t first = std::max(compare.min_runs(), k_min_blocks);
  const std::size_t batch = compare.batch > 0 ? compare.batch : compare.min_runs();
  const std::size_t most = std::max(compare.max_runs(), first);
  CULPRIT_TRY_ASSIGN(const auto noise, ends_noise(selected));
  const bool quick =
      m_settings.quick_look && noise && noise->dwarfed() && first > stats::k_quick_blocks;
  // Counts that do not vary: the references' levels, once for every probe of the round.
  std::optional<double> low;
  std::optional<double> high;
  if (exact_case(selected)) {
    CULPRIT_TRY_ASSIGN(low, exact_level(selected, m_sampler, *lo.subject, 1));
    CULPRIT_TRY_ASSIGN(high, exact_level(selected, m_sampler, *hi.subject, 1));
  }
  const bool exact = low && high && *low != *high;
  for (auto& job : jobs) {
    // Byte-identical artifacts: the same measurement, no run needed.
    const bool like_lo = job.probe->artifact_id == lo.subject->artifact_id;
    if (like_lo || job.probe->artifact_id == hi.subject->artifact_id) {
      job.result.step = like_lo ? stats::StepClass::good_like : stats::StepClass::bad_like;
      job.result.note = fmt::format("artifacts identical to {}'s: classified without running",
                                    commit_at(like_lo ? lo.index : hi.index).substr(0, 12));
      job.done = true;
    }
    if (exact && !job.done) {
      CULPRIT_TRY_ASSIGN(auto looked,
                         exact_look(selected, *job.lane, *job.probe, lo, hi, *low, *high));
      if (looked) {
        job.result = std::move(*looked);
        job.done = true;
      }
    }
    job.n = quick ? stats::k_quick_blocks : first;
    job.quick = quick;
  }
  while (std::ranges::any_of(jobs, [](const Job& job) { return !job.done; })) {
    std::vector<measure::LaneWants> wants;
    for (const auto& job : jobs) {
      if (!job.done)
        wants.push_back(
            {job.lane, {}, measure::BlocksWanted{{lo.subject, hi.subject, job.probe}, job.n}});
    }
    CULPRIT_TRY_ASSIGN(const bool complete, measure::ensure_lanes(wants));
    for (auto& job : jobs) {
      if (job.done)
        continue;
      auto& result = job.result;
      job.done = true;
      if (job.quick) {
        job.quick = false;
        CULPRIT_TRY_ASSIGN(auto quick_result,
                           quick_look(selected, *noise, *job.lane, *job.probe, lo, hi));
        if (quick_result) {
          result = std::move(*quick_result);
          continue;
        }
        if (!complete) {
          result.runs = job.n;
          result.note = "the time budget ran out";
          continue;
        }
        job.n = first; // no decision: the ordinary looks, these blocks among theirs
        job.done = false;
        continue;
      }
      CULPRIT_TRY_ASSIGN(result.position, position_in(selected, *job.lane, *job.probe, lo, hi,
                                                      job.fresh_from.value_or(0), job.n));
      result.runs = job.n;
      if (!result.position) {
        result.note =
            job.fresh_from
                ? "the case did not appear in enough runs to confirm an intermediate level"
                : "the case did not appear in enough of the probe's runs";
        continue;
      }
      result.statistic = stats::to_string(estimator_of(selected).statistic);
      result.step = result.position->classification;
      if (result.step == stats::StepClass::intermediate && !job.fresh_from) {
        // An intermediate level splits the range, so one look at it is not enough: the probe and
        // both references are measured again in fresh blocks, and only those decide.
        if (!complete) {
          result.note = "looked intermediate when the time budget ran out";
          continue;
        }
        job.fresh_from = job.n;
        job.n += std::max<std::size_t>(2 * compare.min_runs(), 10);
        job.done = false;
        continue;
      }
      if (job.fresh_from)
        result.note = result.step == stats::StepClass::intermediate
                          ? "an intermediate level, confirmed by fresh blocks with both ends"
                          : "looked intermediate; fresh blocks with both ends did not confirm it";
      if (result.step == stats::StepClass::unresolved) {
        // Fresh blocks that leave the probe unresolved get more of their own, up to the most a
        // probe may have, like a first look that does.
        if (!complete)
          result.note = "the time budget ran out";
        else if (job.n >= most)
          result.note =
              job.fresh_from
                  ? fmt::format("looked intermediate; still unresolved in {} fresh blocks "
                                "with both ends",
                                job.n - *job.fresh_from)
                  : fmt::format("still unresolved after {} blocks", job.n);
        else
          job.done = false; // more blocks
      }
      job.n = std::min(job.n + batch, most);
    }
  }
  return learn_interference(selected, jobs, lo, hi);
}

// Every probe of a round is judged by one statistic from its first look to its last; what the
// round's measurements showed applies to the probes of later rounds.
Status Bisection::learn_interference(const measure::SelectedCase& selected,
                                     const std::vector<Job>& jobs, const Reference& lo,
                                     const Reference& hi) {
  const auto it = m_estimators.find(selected.key);
  if (it == m_estimators.end() || it->second.fast_side())
    return {};
  std::vector<std::optional<stats::Interference>> diagnoses;
  for (const auto& job : jobs) {
    if (job.result.statistic.empty() || job.result.exact)
      continue; // nothing measured in blocks
    const std::array<const measure::Subject*, 3> group = {lo.subject, hi.subject, job.probe};
    CULPRIT_TRY_ASSIGN(const auto blocks,
                       job.lane->block_runs(group, selected.key, job.result.runs));
    for (const auto& runs : blocks.runs)
      diagnoses.push_back(measure::diagnose(runs, selected.direction));
  }
  if (auto later = judge_later_by(m_settings.compare.statistic(), selected.direction, it->second,
                                  diagnoses, "the probes' runs"))
    it->second = std::move(*later);
  return {};
}

} // namespace culprit::bisect::detail
