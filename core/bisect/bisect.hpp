#pragma once
// Bisection that trusts statistics.
//
// 1. Confirm: good and bad are compared like `culprit compare` does. The cases to bisect are the
//    chosen ones (--case), or every case whose verdict is slower (faster with --improvement);
//    when there are none, the status is not_reproduced.
// 2. Per case, binary search over the range, oldest first, with good before it and bad its last
//    commit. A probed commit is classified by where its level lies between the two references
//    (stats/step_position.hpp): good-like, bad-like, intermediate or unresolved. Unresolved buys
//    more runs of the probe, interleaved with fresh runs of both references, up to max_runs.
//    Intermediate means more than one culprit: the range is split at the probe, which becomes a
//    reference of both halves, and each half is searched. Each culprit gets its share of the
//    total change.
// 3. A probe that fails to build is skipped and the commit nearest the middle among those left is
//    tried instead; when skips leave more than one candidate, they are reported as candidates.
// 4. Under a counting instrument, counts that agree exactly run to run make every level exact
//    (one run a probe, no references; two of the culprit and its parent), and each culprit they
//    name is compared with its parent in time too (BisectSettings::timer); a case whose counts
//    do not show the change its time does is bisected by time.
// 5. Measurements are keyed by artifact id: a probe whose artifacts are byte-identical to a
//    reference's is classified with it without a run, and one identical to any commit measured
//    before reuses those runs; both are noted.
// Every run goes to the store as it finishes, and every decision is a function of the stored
// runs and the seed, so an interrupted bisection resumes where it stopped, and a finished one
// replays with no builds and no runs.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/build/provider.hpp"
#include "core/measure/compare.hpp"
#include "core/measure/sampler.hpp"
#include "core/util/error.hpp"
#include "stats/step_position.hpp"

namespace culprit::bisect {

struct BisectSettings {
  // threshold, confidence, classification confidence, explained share, runs, cases, metric,
  // seed
  measure::CompareSettings compare;
  bool improvement = false; // look for the commit that made things faster
  std::size_t reference_runs_per_batch = 2;
  // Probes whose step dwarfs the noise are classified at a quick look of two blocks
  // (stats/quick_look.hpp); off, every probe waits for the ordinary looks.
  bool quick_look = true;
  // Under a counting instrument (--instrument valgrind): a sampler of the same recipe that times
  // the runs (MeasureSession::time_sampler), compared with timed_settings(compare). Each culprit
  // that counts located is then compared with its parent in time as well, with the time lane's
  // statistics; and when the ends' counts agree, the range is bisected by time. nullptr: counts
  // (or times) alone.
  measure::Sampler* timer = nullptr;
};

struct BisectRange {
  std::string good;
  std::string good_rev;
  std::string bad;
  std::string bad_rev;
  std::vector<std::string> commits; // good..bad, oldest first, bad last
};

// Where a probe was placed: like the good end, like the bad end, between them (another culprit
// below it), not yet clear with the runs allowed, or skipped (it does not build).
enum class ProbeClass : std::uint8_t { good, bad, skip, intermediate, unresolved };
std::string_view to_string(ProbeClass probe);

// How a bisection ended: a culprit named; the regression between the ends did not reproduce;
// more than one candidate left (builds that fail, or runs that ran out); or stopped by an
// interrupt, with what it knew by then. not_run: no bisection was made (a triage group whose
// change did not reproduce).
enum class BisectStatus : std::uint8_t {
  not_run,
  culprit_found,
  not_reproduced,
  inconclusive,
  interrupted
};
std::string_view to_string(BisectStatus status);

struct BisectStep {
  std::string commit;
  std::string case_name;
  ProbeClass classified = ProbeClass::skip;
  std::optional<stats::StepPosition> position;
  std::size_t runs = 0;
  std::string note;
  std::string host_id;   // of the lane that classified it
  std::string statistic; // of each run, that placed the probe ("median", "min"); empty if none
};

// What one count was in a culprit's parent and in the culprit (core/bisect/counters.hpp).
struct CounterChange {
  std::string metric; // instructions, ll_misses_data, ... (core/parsers/valgrind_counts.hpp)
  double parent = 0;
  double culprit = 0;
};

struct CounterDiff {
  std::string counted_case;           // the culprit's case, or the whole program's
  std::vector<CounterChange> changes; // in the order of valgrind_metric_descriptors()
  std::string note;                   // why there are no changes, when there are none
};

struct FoundCulprit {
  std::string commit;
  std::string parent;
  measure::SelectedCase selected;
  std::optional<stats::Comparison> change; // culprit against parent
  std::optional<double> share;             // of the total change of the case
  // Its change in time (BisectSettings::timer), when counts located it: the case, or every
  // timed case when the counts are of the whole program.
  std::vector<measure::CaseVerdict> in_time;
  std::optional<CounterDiff> counters; // count_culprits (core/bisect/counters.hpp)
};

struct BisectProgress {
  std::size_t round = 0;           // of the case being searched, from 1
  std::size_t expected_rounds = 0; // this case's rounds so far and about those still to come
  std::string commit;
  std::string case_name;
  std::size_t case_index = 0; // from 1
  std::size_t cases = 0;
  int runs_made = 0;
};

struct BisectOutcome {
  BisectStatus status = BisectStatus::not_run;
  measure::CompareOutcome confirmation;
  std::vector<measure::SelectedCase> cases; // the ones bisected
  std::vector<BisectStep> steps;
  std::vector<FoundCulprit> culprits;
  std::vector<std::string> candidates;              // when inconclusive
  std::size_t rounds = 0;                           // of probes, K at a time
  std::size_t lanes = 1;                            // K
  std::map<std::string, build::BuildResult> builds; // by commit
  std::map<std::string, measure::Subject> subjects; // measured, by commit
  std::map<std::string, std::string> reused_from;   // commit -> commit measured instead
  std::string note;
  // Under a counting instrument, the cases bisected by time (BisectSettings::timer): their runs
  // are the timer's.
  std::set<measure::CaseKey> by_time;
};

Result<BisectOutcome> run_bisect(const BisectRange& range, build::BuildProvider& builds,
                                 measure::Sampler& sampler, const BisectSettings& settings,
                                 const std::function<void(const BisectProgress&)>& progress = {});

// K-ary bisection over K lanes (--parallel K): each round probes K commits spread evenly over the
// range, each on its own lane, so rounds fall from about log2 N to about log_(K+1) N. A probe is
// only compared with runs of the references made on its own lane (its own device). The bracket
// after a round is the first bad-like probe and the last good-like probe before it; an
// intermediate probe below it splits the range as in step 2; an unresolved one inside it ends the
// search with candidates. With one lane this is the binary search above.
// When the bisection stops with an error (an interrupt, most often) and `so_far` is given, it
// receives what was known by then, with status "interrupted": the confirmation, the steps, the
// culprits named and the builds, so that the evidence of an interrupted bisection can be kept.
Result<BisectOutcome> run_bisect(const BisectRange& range, build::BuildProvider& builds,
                                 std::span<measure::Sampler* const> lanes,
                                 const BisectSettings& settings,
                                 const std::function<void(const BisectProgress&)>& progress = {},
                                 BisectOutcome* so_far = nullptr);

} // namespace culprit::bisect
