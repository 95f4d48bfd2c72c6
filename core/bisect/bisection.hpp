#pragma once
// The bisection driver behind run_bisect (core/bisect/bisect.hpp), shared by its parts:
// bisect.cpp searches (chooses probes, narrows the bracket, names culprits), classify.cpp places
// probes between the references with their runs, and time_lane.cpp adds time to a bisection by
// counts. Not part of the library's interface.

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/bisect/bisect.hpp"
#include "stats/quick_look.hpp"

namespace culprit::bisect::detail {

inline constexpr int k_good = -1; // the index of the good end, before the range

class Bisection {
public:
  Bisection(const BisectRange& range, build::BuildProvider& builds,
            std::span<measure::Sampler* const> lanes, const BisectSettings& settings,
            const std::function<void(const BisectProgress&)>& progress)
      : m_range(range), m_builds(builds), m_lanes(lanes.begin(), lanes.end()),
        m_sampler(*lanes.front()), m_settings(settings), m_progress(progress) {}

  Result<BisectOutcome> run();
  // What run() had found when it stopped early, with status "interrupted".
  [[nodiscard]] BisectOutcome so_far() const;

private:
  void add_candidate(const std::string& commit);
  struct Reference {
    int index = k_good;
    const measure::Subject* subject = nullptr;
  };
  struct Classification {
    stats::StepClass step = stats::StepClass::unresolved;
    std::optional<stats::StepPosition> position;
    std::size_t runs = 0;
    std::string note;
    std::string statistic; // of each run, that placed the probe; empty when none did
    bool exact = false;    // placed by counts that did not vary, without blocks
  };

  [[nodiscard]] const std::string& commit_at(int index) const {
    return index == k_good ? m_range.good : m_range.commits[static_cast<std::size_t>(index)];
  }
  Result<const measure::Subject*> subject_at(int index);
  // One probe being classified in a round, on its lane.
  struct Job {
    int index = 0;
    const measure::Subject* probe = nullptr;
    measure::Sampler* lane = nullptr;
    std::size_t n = 0;  // probe runs asked for
    bool quick = false; // its first look is a quick one (stats/quick_look.hpp)
    // Set once the probe looked intermediate: the first of the fresh blocks that alone decide.
    std::optional<std::size_t> fresh_from;
    bool done = false;
    Classification result;
  };
  // About how many rounds narrow `span` candidates to one: K probes a round split a range into
  // K + 1 parts.
  [[nodiscard]] std::size_t rounds_for(int span) const;
  Result<std::vector<Job>> round_of(const measure::SelectedCase& selected, const Reference& lo,
                                    const Reference& hi, const std::vector<int>& indices);
  Status classify(const measure::SelectedCase& selected, std::vector<Job>& jobs,
                  const Reference& lo, const Reference& hi);
  // The position of the probe from blocks [from, to) of the group {lo, hi, probe} on the lane.
  Result<std::optional<stats::StepPosition>> position_in(const measure::SelectedCase& selected,
                                                         measure::Sampler& lane,
                                                         const measure::Subject& probe,
                                                         const Reference& lo, const Reference& hi,
                                                         std::size_t from, std::size_t to);
  Result<std::optional<stats::StepNoise>> ends_noise(const measure::SelectedCase& selected);
  [[nodiscard]] bool exact_case(const measure::SelectedCase& selected) const;
  Result<std::optional<double>> exact_level(const measure::SelectedCase& selected,
                                            measure::Sampler& lane, const measure::Subject& subject,
                                            std::size_t count);
  Result<std::optional<Classification>> exact_look(const measure::SelectedCase& selected,
                                                   measure::Sampler& lane,
                                                   const measure::Subject& probe,
                                                   const Reference& lo, const Reference& hi,
                                                   double low, double high);
  // The ends' comparison of the case, when it was compared (nullptr otherwise).
  [[nodiscard]] const measure::CaseVerdict*
  confirmation_of(const measure::SelectedCase& selected) const;
  Result<std::optional<Classification>> quick_look(const measure::SelectedCase& selected,
                                                   const stats::StepNoise& ends,
                                                   measure::Sampler& lane,
                                                   const measure::Subject& probe,
                                                   const Reference& lo, const Reference& hi);
  [[nodiscard]] std::vector<int> choose_probes(const Reference& lo, const Reference& hi) const;
  [[nodiscard]] stats::StepOptions step_options() const;
  [[nodiscard]] const measure::Estimator& estimator_of(const measure::SelectedCase& selected) const;
  // After a round: the probes of later rounds are judged by the fast side once one of this
  // round's measurements shows one-sided interference (see judge_later_by).
  Status learn_interference(const measure::SelectedCase& selected, const std::vector<Job>& jobs,
                            const Reference& lo, const Reference& hi);
  Status search(const measure::SelectedCase& selected, Reference lo, Reference hi);
  Status add_culprit(const measure::SelectedCase& selected, const Reference& parent, int index);
  // The change of a culprit that counts located, in time (BisectSettings::timer).
  Result<std::vector<measure::CaseVerdict>> in_time(const measure::SelectedCase& selected,
                                                    const measure::Subject& parent,
                                                    const measure::Subject& culprit);

  const BisectRange& m_range;
  build::BuildProvider& m_builds;
  std::vector<measure::Sampler*> m_lanes;
  measure::Sampler& m_sampler; // the first lane: the confirmation, and culprits' changes
  const measure::Subject* m_good = nullptr; // the ends, once built
  const measure::Subject* m_bad = nullptr;
  std::map<std::string, measure::Sampler*> m_lane_of; // commit -> the lane that classified it
  const BisectSettings& m_settings;
  const std::function<void(const BisectProgress&)>& m_progress;
  std::size_t m_probes = 0;
  std::size_t m_rounds = 0;
  // For progress: the case being searched (from 1), its rounds so far, and the rounds that the
  // parts of its range still waiting to be searched (after a split) will take.
  std::size_t m_case = 0;
  std::size_t m_case_rounds = 0;
  bool m_left_candidates = false; // the search of the current case ended among candidates
  std::size_t m_pending_rounds = 0;
  BisectOutcome m_outcome;
  std::set<int> m_skipped;
  // Chosen by the confirmation of the ends; with statistic = auto, the fast side as soon as any
  // measurement of the case shows one-sided interference.
  std::map<measure::CaseKey, measure::Estimator> m_estimators;
  std::map<std::string, std::string> m_measured_by_artifact; // artifact id -> first commit
};

// Under a counting instrument (settings.timer): `counted`, the outcome of the bisection by
// counts, with the cases whose counts did not move between the ends compared in time and those
// slower in time bisected by time (time_lane.cpp). `so_far` as for run_bisect.
Result<BisectOutcome>
bisect_quiet_cases_by_time(const BisectRange& range, build::BuildProvider& builds,
                           const BisectSettings& settings,
                           const std::function<void(const BisectProgress&)>& progress,
                           BisectOutcome* so_far, BisectOutcome counted);

} // namespace culprit::bisect::detail
