// The time lane of a bisection under a counting instrument (--instrument valgrind, perf, ncu):
// each culprit that counts located compared with its parent in time, and the cases whose counts
// do not show the change their time does bisected by time.

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/bisect/bisection.hpp"

namespace culprit::bisect::detail {
namespace {

// `more` (a bisection by time) into `into` (one by counts): their cases, steps, culprits and
// builds side by side; inconclusive when either is.
void merge_outcome(BisectOutcome& into, BisectOutcome&& more) {
  const auto append = [](auto& to, auto& from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  };
  append(into.confirmation.cases, more.confirmation.cases);
  for (const auto& c : more.cases)
    into.by_time.insert(c.key);
  append(into.cases, more.cases);
  append(into.steps, more.steps);
  append(into.culprits, more.culprits);
  for (auto& commit : more.candidates)
    if (std::ranges::find(into.candidates, commit) == into.candidates.end())
      into.candidates.push_back(std::move(commit));
  into.builds.merge(more.builds);
  into.subjects.merge(more.subjects);
  into.reused_from.merge(more.reused_from);
  into.rounds += more.rounds;
  if (into.status == BisectStatus::not_reproduced || more.status == BisectStatus::inconclusive)
    into.status = more.status;
  if (!more.note.empty())
    into.note += (into.note.empty() ? "" : "; ") + more.note;
}

} // namespace

// The culprit against its parent in time, like `culprit compare` would: the counted case when the
// timed runs report it, else every timed case (the counts are of the whole program).
Result<std::vector<measure::CaseVerdict>> Bisection::in_time(const measure::SelectedCase& selected,
                                                             const measure::Subject& parent,
                                                             const measure::Subject& culprit) {
  auto settings = measure::timed_settings(m_settings.compare);
  const auto globs = settings.case_globs;
  settings.case_globs = {selected.key.case_name};
  auto compared = measure::compare_subjects(*m_settings.timer, parent, culprit, settings);
  if (!compared && compared.error().code == ExitCode::usage) {
    settings.case_globs = globs;
    compared = compare_subjects(*m_settings.timer, parent, culprit, settings);
  }
  if (!compared)
    return std::unexpected(compared.error());
  return std::move(compared->cases);
}

// Under a counting instrument: the cases whose counts did not move between the ends are compared
// in time, and those that got slower in time are bisected by time. What made them slower (memory,
// a sleep, the OS, a slower instruction) is no count, so the search goes on as without an
// instrument.
Result<BisectOutcome>
bisect_quiet_cases_by_time(const BisectRange& range, build::BuildProvider& builds,
                           const BisectSettings& settings,
                           const std::function<void(const BisectProgress&)>& progress,
                           BisectOutcome* so_far, BisectOutcome counted) {
  std::vector<std::string> quiet;
  for (const auto& verdict : counted.confirmation.cases)
    if (std::ranges::none_of(counted.cases, [&](const measure::SelectedCase& bisected) {
          return bisected.key == verdict.selected.key;
        }))
      quiet.push_back(verdict.selected.key.case_name);
  if (quiet.empty())
    return counted;
  auto timed = settings;
  timed.compare = measure::timed_settings(settings.compare);
  timed.timer = nullptr;
  const std::array<measure::Sampler*, 1> timer = {settings.timer};
  timed.compare.case_globs = quiet;
  auto by_time = run_bisect(range, builds, timer, timed, progress, so_far);
  if (!by_time && by_time.error().code == ExitCode::usage) {
    // Counts of the whole program, one case: every timed case the recipe selects.
    timed.compare.case_globs = settings.compare.case_globs;
    by_time = run_bisect(range, builds, timer, timed, progress, so_far);
  }
  if (!by_time) {
    if (so_far != nullptr) { // interrupted: what counts found stays in the evidence
      auto partial = counted;
      merge_outcome(partial, std::move(*so_far));
      partial.status = BisectStatus::interrupted;
      *so_far = std::move(partial);
    }
    return by_time;
  }
  if (by_time->status == BisectStatus::not_reproduced) {
    if (counted.status == BisectStatus::not_reproduced)
      counted.note = "the ends' times agree as well as their counts";
    return counted;
  }
  std::vector<std::string> names;
  for (const auto& c : by_time->cases)
    names.push_back(c.key.case_name);
  by_time->note =
      fmt::format("the ends' counts of {} do not show the change their times do: "
                  "bisected by time{}{}",
                  fmt::join(names, ", "), by_time->note.empty() ? "" : "; ", by_time->note);
  merge_outcome(counted, std::move(*by_time));
  return counted;
}

} // namespace culprit::bisect::detail
