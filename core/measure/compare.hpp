#pragma once
// The A/B comparison driver: base and head are run in interleaved blocks (one run of each, in a
// random order, or both at once in a duet), look after look of a sequential plan
// (stats/sequential.hpp), until every selected case has a confident verdict or the runs or the
// time budget are spent.
//
// Each look compares the blocks made so far, paired (stats/paired.hpp): the ratio of the two runs
// of a block cancels whatever the machine did to both, and blocks stored by earlier commands count
// only when they hold both sides, so reused runs never break the pairing. Which statistic of each
// run is compared follows the settings (core/measure/estimator.hpp): with `auto`, a case whose
// samples show one-sided interference at the first look is judged by the fast side of each run.
// Verdicts over several cases keep their false discovery rate under control (Benjamini-Hochberg): a
// slower or faster call whose adjusted p-value exceeds 1 - c is reported inconclusive instead.
//
// Byte-identical artifacts are an answer in themselves: every case is `same` (ratio 1, the note
// "identical binaries") without a run. The cases are those the store knows of the artifact, or
// one row for every case when it knows none.
//
// Duets: with DuetMode::on every block runs both sides at once on CPUs of their own; with
// automatic, blocks after the first look do when a case shows one-sided interference, the
// benchmark reports no GPU time and the sampler has two CPUs for it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/measure/case_select.hpp"
#include "core/measure/estimator.hpp"
#include "core/measure/sampler.hpp"
#include "core/measure/subject.hpp"
#include "core/recipe/recipe.hpp"
#include "core/util/error.hpp"
#include "stats/decision.hpp"
#include "stats/interference.hpp"
#include "stats/slow_runs.hpp"

namespace culprit::measure {

// What a comparison is asked: the recipe's deciding settings (each default is written in
// DecideOptions alone) and the cases it looks at.
struct CompareSettings {
  recipe::DecideOptions decide; // threshold, confidence, runs, seed, statistic, classification
  std::size_t batch = 0;        // blocks between looks; 0: min_runs
  std::vector<std::string> case_globs;
  std::string metric;
  recipe::DuetMode duet = recipe::DuetMode::off;
  unsigned threads = 0; // bootstrap threads; 0: the hardware's
  // Stop at the first look with stats::k_quick_stop_blocks blocks that shows a step dwarfing the
  // noise beyond the threshold in every block (stats/quick_look.hpp): a bisection's ends.
  bool quick_stop = false;

  [[nodiscard]] std::size_t min_runs() const { return static_cast<std::size_t>(decide.min_runs); }
  [[nodiscard]] std::size_t max_runs() const { return static_cast<std::size_t>(decide.max_runs); }
  // The statistic setting (validated when the recipe was read; auto if it somehow is not).
  [[nodiscard]] StatisticSetting statistic() const;
};

// The comparison a recipe asks for: its [decide] settings, cases, metric and duets.
CompareSettings compare_settings_of(const recipe::Recipe& recipe);

// `counted` (the settings of a counting instrument) for the same comparison in time: the
// format's own metric in place of a count, and at least the default runs before the first look
// (two runs a side decide counts, not times).
CompareSettings timed_settings(CompareSettings counted);

// A comparison of each run's slow side, beside a verdict made with the fast side.
struct TailChange {
  stats::RunStatistic statistic;
  stats::Comparison comparison;
};

struct CaseVerdict {
  SelectedCase selected;
  std::optional<stats::Comparison> comparison; // none when a side lacks the case
  stats::Verdict verdict = stats::Verdict::inconclusive;
  std::optional<double> min_detectable; // relative change these data could resolve
  std::size_t base_runs = 0;            // runs compared: one per block
  std::size_t head_runs = 0;
  std::string note;
  std::optional<Estimator> estimator;
  std::array<std::optional<stats::Interference>, 2> interference; // base, head
  std::optional<TailChange> tail;
  // Whole runs were slow (stats/slow_runs.hpp): the blocks compared, and those left out.
  std::optional<stats::BlockSelection> selection;
  bool one_sample_runs = false; // every run reported one sample: it is the run's fast side
  std::size_t blocks = 0;       // blocks made (those compared: selection's kept, when there is one)
  std::size_t duets = 0;        // of which ran as duets
  std::size_t reused_blocks = 0; // of which earlier commands made (stored, paired)
  // Each side's stored runs of the case that are in no block with the other side: left out.
  std::array<std::size_t, 2> unpaired{0, 0};
  // The median over the compared blocks of each side's run statistic.
  std::array<double, 2> levels{0, 0};
};

struct CompareOutcome {
  std::vector<CaseVerdict> cases;
  // The two builds' artifacts are byte-identical: every case is the same, and nothing ran.
  bool identical = false;
  bool budget_exhausted = false;
  std::size_t looks = 0;
  bool duet = false;       // some blocks ran as duets
  std::string duet_reason; // why duets ran, or did not when asked for automatically
};

// The name of the one row of an identical-artifact verdict when the cases are not known.
inline constexpr std::string_view k_every_case = "(every case)";

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

// Whether a metric is a GPU time (gpu_time, batch_gpu_time, ...): such runs never duet.
bool is_gpu_metric(std::string_view metric);

// The diagnosis of a side's runs, or none when they are too few to say anything.
std::optional<stats::Interference> diagnose(const stats::Runs& runs, parsers::Direction direction);

} // namespace culprit::measure
