#pragma once
// Triage: every change point of the tracked history that no earlier triage handled is confirmed,
// bisected to its culprit, and grouped with the others by culprit commit.
//
// 1. New: a change point is left alone when the ledger holds the same case, metric and pair of
//    commits, or a culprit of the same case and metric between its two commits (a change point
//    that moved by a commit as the history grew is the same regression).
// 2. Grouped: change points of several cases between the same two measured commits, in the same
//    direction, are one bisection.
// 3. Confirmed (never bisect on one noisy point): the bisection starts with compare's sequential
//    test of the two commits (core/measure/compare.hpp). The tracked runs are its first look; more
//    runs are bought only while the verdict is uncertain, up to max_runs. A case that does not come
//    out slower (faster for an improvement) is dismissed, and remembered as not confirmed.
// 4. Bisected (core/bisect) between the measured commits around the change point, widened by
//    `margin` measured commits on each side: E-divisive may place a change one point off, and a
//    range that misses the step by one would dismiss a real regression. The culprits of all
//    bisections are grouped by commit: one culprit that slowed many cases is one finding.
// 5. Remembered: confirmed-and-named and dismissed change points go to the ledger. Inconclusive
//    ones stay open, so the next triage tries them again (with the runs already made).
// Regressions and improvements are separate findings; only regressions are failures.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/bisect/bisect.hpp"
#include "core/history/ledger.hpp"
#include "core/history/series.hpp"
#include "core/util/error.hpp"

namespace culprit::history {

// The commits between two measured commits; git in the tool, a list in tests.
class CommitGraph {
public:
  CommitGraph() = default;
  virtual ~CommitGraph() = default;
  CommitGraph(const CommitGraph&) = delete;
  CommitGraph& operator=(const CommitGraph&) = delete;
  CommitGraph(CommitGraph&&) = delete;
  CommitGraph& operator=(CommitGraph&&) = delete;
  // before..after along the first-parent chain, oldest first, `after` last, `before` excluded.
  virtual Result<std::vector<std::string>> range(const std::string& before,
                                                 const std::string& after) = 0;
};

struct TriageSettings {
  bisect::BisectSettings bisect; // compare: threshold, confidence, runs, metric, seed
  std::string host_id;           // whose handled change points count
  bool improvements = true;      // bisect improvements too
  std::size_t margin = 1;        // measured commits added to the range on each side
};

// What triage made of one change point: a culprit named; not confirmed by a comparison of the
// commits around it (dismissed); inconclusive (tried again by the next triage); its bisection
// failed; or an earlier triage handled it. pending: not decided yet.
enum class TriageStatus : std::uint8_t {
  pending,
  culprit_found,
  not_confirmed,
  inconclusive,
  failed,
  handled_before
};
std::string_view to_string(TriageStatus status);

struct TriageChange {
  ChangePoint change;
  TriageStatus status = TriageStatus::pending;
  std::vector<std::string> culprits;
  std::string note;
};

// One bisection: the change points of one (widened) pair of commits in one direction.
struct TriageGroup {
  bisect::BisectRange range;
  bool improvement = false;
  std::vector<std::size_t> changes; // into TriageOutcome::changes
  bisect::BisectOutcome bisect;
};

// One culprit commit with every case it changed.
struct Finding {
  std::string commit;
  bool regression = true;
  std::vector<std::size_t> groups; // the bisections that named it
  std::vector<bisect::FoundCulprit> culprits;
};

struct TriageOutcome {
  std::vector<TriageChange> changes;
  std::vector<TriageGroup> groups;
  std::vector<Finding> findings; // regressions first, most cases first
  [[nodiscard]] std::size_t count(TriageStatus status) const;
  [[nodiscard]] bool new_regressions() const;
};

struct TriageProgress {
  std::size_t group = 0;
  std::size_t groups = 0;
  bisect::BisectProgress bisect;
};

// Whether the history no longer shows `regression`'s step, with no commit to credit: every case
// of it has a series with points on both sides of the culprit (`at_or_after(commit)`: whether a
// commit is the culprit or comes after it along the history), no change point among the three
// points on either side, and the levels of those (the median of each side's) within `threshold` of
// each other and closer than the end of the case's interval nearest 1 (a step near the threshold
// measured a little smaller has not gone away). A case the history does not show, or shows on one
// side only, says no.
Result<bool> step_went_away(const Regression& regression, const History& history, double threshold,
                            const std::function<Result<bool>(const std::string&)>& at_or_after);

Result<TriageOutcome> run_triage(const History& history, build::BuildProvider& builds,
                                 measure::Sampler& sampler, CommitGraph& graph, Ledger& ledger,
                                 const TriageSettings& settings,
                                 const std::function<void(const TriageProgress&)>& progress = {});

} // namespace culprit::history
