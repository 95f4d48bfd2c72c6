#pragma once
// Regressions as records: what triage found, kept in the history ledger with a state that a
// rotation moves along and that closes by itself when the level comes back.
//
// One record per culprit commit and host, across the cases it slowed (a change that slowed forty
// shapes of one kernel is one regression), with a short stable id (R and seven hex digits of a
// hash of host and commit), the cases with their ratio, interval and share, the culprit's subject,
// author and owners, the evidence files that showed it, when it was first and last seen, and its
// state with who changed it, when, and why. A change point not bisected yet is a record of its
// own, without a culprit, for the measured commits around it (its id a hash of host and those
// commits); when a later triage names its culprit, that record becomes the culprit's, id and
// events kept:
//
//   new           triage found the change point, but could not confirm it yet (the comparison
//                 ran out of runs, or the commits around it did not build): tried again next time
//   confirmed     a comparison of the commits around it confirmed it, but its bisection named no
//                 culprit yet: tried again next time
//   invalid       the comparison did not reproduce it: not tried again
//   bisected      triage confirmed the change and named its culprit
//   acknowledged  someone owns it (`culprit regressions ack ID --note ...`)
//   wontfix       judged not worth fixing (`wontfix ID --note ...`)
//   fixed         a later commit brought every one of its cases back to their level before it,
//                 within the threshold (fixes): triage bisected that improvement and credits it
//   went-away     the history no longer shows its step, and no commit is to credit: measured
//                 again (a later session, a new toolchain or driver), every case is within the
//                 threshold on either side of the culprit, with no change point there
//                 (history::step_went_away)
//   (reopen ID brings a closed one back to what triage last made of it: bisected, confirmed or
//   new)
//
// A transition that makes no sense (acknowledging a fixed one) is a usage error that says what
// would; two rotations acting at once on one record cannot lose an update: a transition is made
// only from the state it was decided from, in one transaction, or it says to look again.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/store/records.hpp"
#include "core/util/error.hpp"

namespace culprit::history {

// `detected` is spelled "new".
enum class RegressionState : std::uint8_t {
  detected,
  confirmed,
  invalid,
  bisected,
  acknowledged,
  wontfix,
  fixed,
  went_away
};
std::string_view to_string(RegressionState state);
std::optional<RegressionState> parse_regression_state(std::string_view text);
// Open: it still needs someone or the next triage (new, confirmed, bisected, acknowledged).
[[nodiscard]] bool is_open(RegressionState state);

struct RegressionCase {
  std::string case_name;
  std::string metric; // what located it; empty: the run's own metric (time)
  double ratio = 1;
  std::array<double, 2> ci{1, 1};
  std::optional<double> share;
  friend bool operator==(const RegressionCase&, const RegressionCase&) = default;
};

struct RegressionEvent {
  store::TimePoint at;
  RegressionState state = RegressionState::bisected;
  std::string who;
  std::string note;
  std::string commit; // fixed: the commit that fixed it
};

struct Regression {
  std::string id{};
  std::string host_id{};
  std::string culprit{}; // empty while not bisected
  // The measured commits around its change point (the last of the old level, the first of the
  // new); what a record without a culprit is known by.
  std::string range_before{};
  std::string range_after{};
  std::string subject{};
  std::string author{};
  RegressionState state = RegressionState::bisected;
  std::vector<RegressionCase> cases{};
  std::vector<std::string> owners{};
  std::vector<std::string> evidence{}; // files, oldest first
  store::TimePoint first_seen{};
  store::TimePoint last_seen{};
  std::string fixed_by{};
  std::vector<RegressionEvent> events{}; // oldest first
};

// Whether a regression's case is the one of a series (`metric` empty: the run's own metric).
[[nodiscard]] bool same_case(const RegressionCase& slowed, std::string_view case_name,
                             std::string_view metric);

// Where a regression's culprit lies on a series whose points do not include it: between the
// points `index` - 1 and `index` of the series numbered `series` (from 0, in the history's order).
struct RegressionPlace {
  std::string regression; // its id
  std::size_t series = 0;
  std::size_t index = 0;
  friend bool operator==(const RegressionPlace&, const RegressionPlace&) = default;
};

// "R" and seven hex digits of a hash of the host and the culprit commit.
std::string regression_id(std::string_view host_id, std::string_view culprit);
// The same of the host and the measured commits around a change point not bisected yet.
std::string range_regression_id(std::string_view host_id, std::string_view before,
                                std::string_view after);

// What a person asks of a record.
enum class RegressionAction : std::uint8_t { acknowledge, wontfix, reopen };
std::string_view to_string(RegressionAction action);

// The state `action` takes `regression` to, or a usage error that says why it cannot and what
// would (acknowledging a fixed one: reopen it first). Reopening goes back to the last of new,
// confirmed and bisected among its events (when they hold none: bisected, or new for one without
// a culprit).
Result<RegressionState> next_state(const Regression& regression, RegressionAction action);

// The improvement a later commit made to some cases, as triage bisected it.
struct Improvement {
  std::string commit;
  std::vector<RegressionCase> cases;
};

// The product of the ratios of the steps a case of a regression took between its culprit and a
// later fix, besides those two (1 when there were none), or nothing when that cannot be told.
using StepsBetween = std::function<std::optional<double>(const RegressionCase& slowed)>;

// Whether `improvement` fixes `regression`: every case of the regression is among the
// improvement's (same name and metric), and its level after the improvement is back within
// `threshold` of its level before the regression's culprit. That level is the product of the
// regression's step, the steps `between` them and the improvement's: when two regressions are
// stacked (100, then 112, then 124), undoing the second (back to 112) brings the first back to
// nothing, although its step and the undoing are of one size. The product of the two intervals
// (the steps between at their estimates) must reach into [1 / (1 + threshold), 1 + threshold]:
// two noisy measurements of one change do not multiply to exactly 1 (a 50% step measured at
// +41.5% under load, its undoing at -32.8%), while a fix that brought a case only part of the way
// back stays clear of the band and the regression open. Whether the improvement came after the
// culprit is the caller's to say.
[[nodiscard]] bool fixes(const Improvement& improvement, const Regression& regression,
                         double threshold, const StepsBetween& between = {});

} // namespace culprit::history
