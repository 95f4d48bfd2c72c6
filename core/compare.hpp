#pragma once
// The A/B comparison driver: base and head are run interleaved, look after look of a sequential
// plan (stats/sequential.hpp), until every selected case has a confident verdict or the runs or
// the time budget are spent. Verdicts over several cases keep their false discovery rate under
// control (Benjamini-Hochberg): a slower or faster call whose adjusted p-value exceeds 1 - c is
// reported inconclusive instead.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/measure/case_select.hpp"
#include "core/measure/sampler.hpp"
#include "core/measure/subject.hpp"
#include "stats/decision.hpp"

namespace culprit {

struct CompareSettings {
  double threshold = 0.02;
  double confidence = 0.95;
  std::size_t min_runs = 5;
  std::size_t max_runs = 40;
  std::size_t batch = 0; // runs per side between looks; 0: min_runs
  std::uint64_t seed = 1;
  std::vector<std::string> case_globs;
  std::string metric;
  stats::Statistic statistic = stats::Statistic::median;
  unsigned threads = 0;
};

struct CaseVerdict {
  SelectedCase selected;
  std::optional<stats::Comparison> comparison; // none when a side lacks the case
  stats::Verdict verdict = stats::Verdict::inconclusive;
  std::optional<double> min_detectable; // relative change these data could resolve
  std::size_t base_runs = 0;
  std::size_t head_runs = 0;
  std::string note;
};

struct CompareOutcome {
  std::vector<CaseVerdict> cases;
  bool budget_exhausted = false;
  std::size_t looks = 0;
};

// The message of a budget that ran out before the benchmark reported anything to decide on.
inline constexpr std::string_view k_budget_spent_before_any_run =
    "inconclusive: the time budget ran out before the benchmark reported anything to decide on; "
    "raise --budget (or [decide] budget), or leave it out";
// An inconclusive error (ExitCode::inconclusive, k_budget_spent_before_any_run) when no subject
// has reported a case yet: the reason there is nothing to compare is the budget, not the
// benchmark.
Status budget_spent_if_nothing_reported(Sampler& sampler,
                                        const std::vector<const Subject*>& subjects);

Result<CompareOutcome> compare_subjects(Sampler& sampler, const Subject& base, const Subject& head,
                                        const CompareSettings& settings);

// The cases both subjects (or either) reported, selected by the settings' globs and metric.
Result<std::vector<SelectedCase>> select_common_cases(Sampler& sampler,
                                                      const std::vector<const Subject*>& subjects,
                                                      const CompareSettings& settings);

stats::Direction to_stats(Direction direction);

} // namespace culprit
