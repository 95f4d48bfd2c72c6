#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/evidence/triage_document.hpp"
#include "core/history/ledger.hpp"
#include "core/history/regressions.hpp"
#include "core/history/triage.hpp"
#include "core/store/sql.hpp"
#include "tests/core/store/store_fixture.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit::history {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

Regression slowed(const std::string& culprit, std::vector<RegressionCase> cases) {
  const auto at = store::now();
  return {.id = regression_id("host-a", culprit),
          .host_id = "host-a",
          .culprit = culprit,
          .subject = "Do half as much <b>work</b> again",
          .author = "Alan Turing",
          .cases = std::move(cases),
          .owners = {"@kernels"},
          .evidence = {"/tmp/triage-1.json"},
          .first_seen = at,
          .last_seen = at};
}

TEST(Regressions, AnIdIsShortAndStableForAHostAndACommit) {
  const auto id = regression_id("host-a", "abc123");
  EXPECT_EQ(id, regression_id("host-a", "abc123"));
  EXPECT_NE(id, regression_id("host-b", "abc123"));
  EXPECT_NE(id, regression_id("host-a", "abc124"));
  ASSERT_EQ(id.size(), 8U);
  EXPECT_EQ(id[0], 'R');
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef", 1), std::string::npos) << id;
}

TEST(Regressions, ATransitionThatMakesNoSenseSaysWhatWould) {
  auto r = slowed("abc123", {});
  EXPECT_EQ(next_state(r, RegressionAction::acknowledge).value(), RegressionState::acknowledged);
  EXPECT_EQ(next_state(r, RegressionAction::wontfix).value(), RegressionState::wontfix);
  EXPECT_THAT(next_state(r, RegressionAction::reopen).error().message, HasSubstr("open already"));

  r.state = RegressionState::acknowledged;
  EXPECT_THAT(next_state(r, RegressionAction::acknowledge).error().message,
              HasSubstr("acknowledged already"));
  EXPECT_EQ(next_state(r, RegressionAction::wontfix).value(), RegressionState::wontfix);

  r.state = RegressionState::fixed;
  r.fixed_by = "def456";
  const auto ack = next_state(r, RegressionAction::acknowledge);
  ASSERT_FALSE(ack);
  EXPECT_EQ(ack.error().code, ExitCode::usage);
  EXPECT_THAT(ack.error().message, HasSubstr("is fixed: reopen it first"));
  EXPECT_THAT(next_state(r, RegressionAction::wontfix).error().message, HasSubstr("is fixed"));
  EXPECT_EQ(next_state(r, RegressionAction::reopen).value(), RegressionState::bisected);

  r.state = RegressionState::went_away;
  EXPECT_THAT(next_state(r, RegressionAction::acknowledge).error().message,
              HasSubstr("is went-away: reopen it first"));
  EXPECT_THAT(next_state(r, RegressionAction::wontfix).error().message, HasSubstr("went away"));
  EXPECT_EQ(next_state(r, RegressionAction::reopen).value(), RegressionState::bisected);
  EXPECT_EQ(parse_regression_state("went-away"), RegressionState::went_away);
  EXPECT_FALSE(is_open(RegressionState::went_away));

  r.state = RegressionState::wontfix;
  EXPECT_EQ(next_state(r, RegressionAction::reopen).value(), RegressionState::bisected);
  EXPECT_THAT(next_state(r, RegressionAction::wontfix).error().message,
              HasSubstr("wontfix already"));
}

TEST(Regressions, AnImprovementFixesOnlyWhenEveryCaseComesBackWithinTheThreshold) {
  const auto r = slowed(
      "abc123", {{"loop", "", 1.5, {1.45, 1.55}, 1.0}, {"copy", "", 1.10, {1.08, 1.12}, 1.0}});
  const Improvement both{"fix", {{"loop", "", 1 / 1.5, {}, {}}, {"copy", "", 0.92, {}, {}}}};
  EXPECT_TRUE(fixes(both, r, 0.02)); // 1.10 x 0.92 = 1.012
  const Improvement half{"fix", {{"loop", "", 1 / 1.25, {}, {}}, {"copy", "", 1 / 1.1, {}, {}}}};
  EXPECT_FALSE(fixes(half, r, 0.02)) << "loop is still 1.2 times slower";
  const Improvement one{"fix", {{"loop", "", 1 / 1.5, {}, {}}}};
  EXPECT_FALSE(fixes(one, r, 0.02)) << "copy did not come back";
  const Improvement other_metric{
      "fix", {{"loop", "instructions", 1 / 1.5, {}, {}}, {"copy", "instructions", 0.91, {}, {}}}};
  EXPECT_FALSE(fixes(other_metric, r, 0.02));
  const Improvement overshoot{"fix", {{"loop", "", 0.5, {}, {}}, {"copy", "", 0.91, {}, {}}}};
  EXPECT_FALSE(fixes(overshoot, r, 0.02)) << "a level far below the old one is another change";
  // Two noisy measurements of one change and its undoing: 1.415 x 0.672 is 0.951, but their
  // intervals reach the band.
  const auto noisy = slowed("abc123", {{"loop", "", 1.415, {1.36, 1.47}, 1.0}});
  const Improvement undone{"fix", {{"loop", "", 0.672, {0.629, 0.747}, {}}}};
  EXPECT_TRUE(fixes(undone, noisy, 0.05));
  const Improvement part_way{"fix", {{"loop", "", 0.85, {0.83, 0.87}, {}}}};
  EXPECT_FALSE(fixes(part_way, noisy, 0.05)) << "still 1.13 to 1.28 times slower";
  // Stacked steps (100, then 112 at c10, then 124): undoing the second matches the first's size,
  // but the level stays 12% above the one before c10 once the step between is counted.
  const auto first = slowed("c10", {{"k", "", 1.12, {1.11, 1.13}, 1.0}});
  const Improvement undo_second{"c30", {{"k", "", 112.0 / 124.0, {0.895, 0.91}, {}}}};
  EXPECT_TRUE(fixes(undo_second, first, 0.02)) << "alone, they look like one step undone";
  const auto second_between = [](const RegressionCase&) { return std::optional(124.0 / 112.0); };
  EXPECT_FALSE(fixes(undo_second, first, 0.02, second_between));
  const Improvement undo_both{"c30", {{"k", "", 100.0 / 124.0, {0.80, 0.81}, {}}}};
  EXPECT_TRUE(fixes(undo_both, first, 0.02, second_between));
  const auto unknown = [](const RegressionCase&) -> std::optional<double> { return std::nullopt; };
  EXPECT_FALSE(fixes(undo_second, first, 0.02, unknown)) << "what git cannot place closes nothing";
}

// The ledger's regressions on either backend (tests/core/store/store_fixture.hpp).
class RegressionLedger : public ::testing::TestWithParam<store::sql::Dialect> {
protected:
  void SetUp() override { CULPRIT_STORE_LOCATION(m_backend, GetParam(), m_where); }
  Ledger open() { return Ledger::open_at(m_where).value(); }

  store::testing::Backend m_backend;
  store::Location m_where;
};

TEST_P(RegressionLedger, TheLedgerKeepsThemWithTheirEventsAndRefreshesOnesItHolds) {
  auto ledger = open();
  const auto first = slowed("abc123", {{"loop", "", 1.5, {1.45, 1.55}, 1.0}});
  EXPECT_TRUE(ledger.record_regression(first, "triage").value());

  auto again = first;
  again.cases[0].ratio = 1.52;
  again.evidence = {"/tmp/triage-2.json"};
  again.last_seen = first.last_seen + std::chrono::hours(24);
  EXPECT_FALSE(ledger.record_regression(again, "triage").value());

  const auto held = ledger.regression(first.id).value();
  ASSERT_TRUE(held);
  EXPECT_EQ(held->state, RegressionState::bisected);
  EXPECT_EQ(held->subject, first.subject);
  EXPECT_EQ(held->owners, first.owners);
  EXPECT_EQ(held->cases[0].ratio, 1.52);
  EXPECT_EQ(held->evidence, (std::vector<std::string>{"/tmp/triage-1.json", "/tmp/triage-2.json"}));
  EXPECT_EQ(held->first_seen, first.first_seen);
  EXPECT_EQ(held->last_seen, again.last_seen);
  ASSERT_EQ(held->events.size(), 1U);
  EXPECT_EQ(held->events[0].who, "triage");

  const std::string hostile = "it's <script>alert(1)</script> | **x** \x1b[31m";
  ASSERT_TRUE(ledger.transition(first.id, RegressionState::bisected,
                                {store::now(), RegressionState::acknowledged, "ada", hostile, ""}));
  const auto acked = ledger.regression(first.id).value();
  EXPECT_EQ(acked->state, RegressionState::acknowledged);
  ASSERT_EQ(acked->events.size(), 2U);
  EXPECT_EQ(acked->events[1].note, hostile) << "kept as written; escaped where it is shown";
  EXPECT_EQ(ledger.regressions("host-a").value().size(), 1U);
  EXPECT_TRUE(ledger.regressions("host-b").value().empty());
  EXPECT_FALSE(ledger.regression("Rnothing").value());
}

TEST_P(RegressionLedger, TwoRotationsActingAtOnceLoseNoUpdate) {
  auto one = open();
  auto two = open();
  const auto r = slowed("abc123", {{"loop", "", 1.5, {1.45, 1.55}, 1.0}});
  ASSERT_TRUE(one.record_regression(r, "triage"));
  // Both read it as bisected; the first to act wins, the second is told to look again.
  const auto seen_by_two = two.regression(r.id).value();
  ASSERT_TRUE(one.transition(r.id, RegressionState::bisected,
                             {store::now(), RegressionState::acknowledged, "ada", "mine", ""}));
  const auto late =
      two.transition(seen_by_two->id, seen_by_two->state,
                     {store::now(), RegressionState::wontfix, "bob", "not worth it", ""});
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, ExitCode::usage);
  EXPECT_THAT(late.error().message, HasSubstr("someone changed it meanwhile"));
  const auto held = one.regression(r.id).value();
  EXPECT_EQ(held->state, RegressionState::acknowledged);
  EXPECT_EQ(held->events.size(), 2U) << "the refused change left no event";

  ASSERT_TRUE(two.transition(r.id, RegressionState::acknowledged,
                             {store::now(), RegressionState::fixed, "triage", "", "def456"}));
  EXPECT_EQ(one.regression(r.id).value()->fixed_by, "def456");
}

// One commit that slowed one case and sped up another is two findings, and the document's
// culprit holds the cases of both: the regression's record keeps only the case it slowed (else
// the improvement would be a case it waits for to come back, and it could never close).
TEST_P(RegressionLedger, ACommitThatSlowedOneCaseAndSpedUpAnotherRecordsOnlyTheSlowedOne) {
  auto ledger = open();
  const auto found = [](const std::string& case_name) {
    bisect::FoundCulprit culprit;
    culprit.commit = "abc123";
    culprit.selected.key = {case_name, "time"};
    return culprit;
  };
  TriageOutcome outcome;
  outcome.findings = {Finding{"abc123", true, {}, {found("slowed")}},
                      Finding{"abc123", false, {}, {found("sped")}}};
  evidence::TriageDocument document;
  document.evidence.bisect.emplace();
  evidence::EvidenceCulprit described;
  described.commit = "abc123";
  described.subject = "trade one kernel for another";
  described.cases = {{.name = "slowed", .ratio = 1.3, .ci = {1.25, 1.35}, .share = 1.0},
                     {.name = "sped", .ratio = 0.7, .ci = {0.65, 0.75}, .share = 1.0}};
  document.evidence.bisect->culprits = {described};
  const auto update = evidence::update_regressions(
      ledger, outcome, document, History{}, "host-a", "/tmp/triage.json", 0.02,
      [](const std::string&, const std::string&) -> Result<bool> { return true; });
  ASSERT_TRUE(update) << update.error().message;
  ASSERT_EQ(update->recorded.size(), 1U);
  ASSERT_EQ(update->recorded[0].cases.size(), 1U);
  EXPECT_EQ(update->recorded[0].cases[0].case_name, "slowed");
  EXPECT_TRUE(update->fixed.empty()) << "its own speed-up elsewhere does not fix it";
  const auto held = ledger.regression(regression_id("host-a", "abc123")).value();
  ASSERT_TRUE(held);
  EXPECT_EQ(held->cases.size(), 1U);
}

// Ten points of "loop", at commits c00, c02, ..., c18 of a chain of twenty (a point every other
// commit), at `levels`.
History loop_history(const std::vector<double>& levels) {
  History history;
  Series series{"loop", "time", "s", parsers::Direction::lower_is_better, {}, {}, {}};
  for (std::size_t i = 0; i < levels.size(); ++i) {
    SeriesPoint point;
    point.commit = point.last_commit = fmt::format("c{:02}", 2 * i);
    point.median = levels[i];
    point.ci = {levels[i] * 0.99, levels[i] * 1.01};
    point.runs = 5;
    series.points.push_back(point);
  }
  history.series.push_back(std::move(series));
  return history;
}

// Whether a commit of the chain is at or after `culprit`.
auto at_or_after(const std::string& culprit) {
  return [culprit](const std::string& commit) -> Result<bool> { return commit >= culprit; };
}

TEST(Regressions, AStepTheHistoryNoLongerShowsWentAway) {
  const auto r = slowed("c11", {{"loop", "", 1.3, {1.25, 1.35}, 1.0}});
  const std::vector<double> flat = {1.0, 1.01, 0.99, 1.0, 1.0, 1.01, 1.0, 0.99, 1.0, 1.0};
  // Measured again, the level on either side of c11 (between the points at c10 and c12) is one.
  EXPECT_TRUE(step_went_away(r, loop_history(flat), 0.05, at_or_after("c11")).value());
  // The culprit on a point works the same.
  EXPECT_TRUE(
      step_went_away(slowed("c12", r.cases), loop_history(flat), 0.05, at_or_after("c12")).value());

  // The step is still there, with its change point or without one (the search missed it).
  std::vector<double> step = flat;
  for (std::size_t i = 6; i < step.size(); ++i)
    step[i] *= 1.3;
  EXPECT_FALSE(step_went_away(r, loop_history(step), 0.05, at_or_after("c11")).value());
  auto marked = loop_history(flat);
  ChangePoint change;
  change.case_name = "loop";
  change.metric = "time";
  change.index = 7;
  marked.change_points.push_back(change);
  EXPECT_FALSE(step_went_away(r, marked, 0.05, at_or_after("c11")).value())
      << "a change point among the points around it";
  marked.change_points[0].index = 9;
  EXPECT_TRUE(step_went_away(r, marked, 0.05, at_or_after("c11")).value())
      << "one further on is another change";

  // Points on one side only, a case the history does not show, or a second case still slow.
  EXPECT_FALSE(
      step_went_away(slowed("c00", r.cases), loop_history(flat), 0.05, at_or_after("c00")).value());
  EXPECT_FALSE(
      step_went_away(slowed("c99", r.cases), loop_history(flat), 0.05, at_or_after("c99")).value());
  // A 6% step found at [4%, 8%], now measured at 4.5%: within the 5% threshold, but no smaller
  // than it was found to be.
  const auto small = slowed("c11", {{"loop", "", 1.06, {1.04, 1.08}, 1.0}});
  std::vector<double> smaller = flat;
  for (std::size_t i = 6; i < smaller.size(); ++i)
    smaller[i] *= 1.045;
  EXPECT_FALSE(step_went_away(small, loop_history(smaller), 0.05, at_or_after("c11")).value());
  EXPECT_TRUE(step_went_away(small, loop_history(flat), 0.05, at_or_after("c11")).value());
  const auto two = slowed("c11", {r.cases[0], {"copy", "", 1.2, {1.15, 1.25}, 1.0}});
  EXPECT_FALSE(step_went_away(two, loop_history(flat), 0.05, at_or_after("c11")).value());
  // What git cannot say is an error, not an answer.
  EXPECT_FALSE(step_went_away(r, loop_history(flat), 0.05, [](const std::string&) -> Result<bool> {
    return infra_error("no such commit");
  }));
}

TEST_P(RegressionLedger, ATriageClosesAnOpenRegressionWhoseStepWentAway) {
  auto ledger = open();
  auto r = slowed("c11", {{"loop", "", 1.3, {1.25, 1.35}, 1.0}});
  ASSERT_TRUE(ledger.record_regression(r, "triage"));
  auto closed = slowed("c05", r.cases);
  ASSERT_TRUE(ledger.record_regression(closed, "triage"));
  ASSERT_TRUE(ledger.transition(closed.id, RegressionState::bisected,
                                {store::now(), RegressionState::wontfix, "ada", "", ""}));
  const auto descends = [](const std::string& culprit, const std::string& commit) -> Result<bool> {
    return commit > culprit;
  };
  const auto flat = loop_history({1.0, 1.01, 0.99, 1.0, 1.0, 1.01, 1.0, 0.99, 1.0, 1.0});
  const auto update =
      evidence::update_regressions(ledger, TriageOutcome{}, evidence::TriageDocument{}, flat,
                                   "host-a", "/tmp/triage-2.json", 0.05, descends);
  ASSERT_TRUE(update) << update.error().message;
  ASSERT_EQ(update->went_away.size(), 1U);
  EXPECT_EQ(update->went_away[0].id, r.id);
  const auto held = ledger.regression(r.id).value();
  ASSERT_TRUE(held);
  EXPECT_EQ(held->state, RegressionState::went_away);
  ASSERT_EQ(held->events.size(), 2U);
  EXPECT_THAT(held->events[1].note, HasSubstr("no commit to credit"));
  EXPECT_EQ(ledger.regression(closed.id).value()->state, RegressionState::wontfix)
      << "a closed one stays as a person left it";
  // The next triage finds nothing more to do.
  const auto again =
      evidence::update_regressions(ledger, TriageOutcome{}, evidence::TriageDocument{}, flat,
                                   "host-a", "/tmp/triage-3.json", 0.05, descends);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->went_away.empty());
}

// A regression group of one change point of "loop" between c04 and c06, whose bisection made of
// it what `status` says: the comparison confirmed it (its case among the bisected ones) or not.
TriageOutcome unbisected_outcome(TriageStatus status, bool confirmed) {
  TriageOutcome outcome;
  ChangePoint change;
  change.case_name = "loop";
  change.metric = "time";
  change.before = "c04";
  change.commit = "c06";
  change.ratio = 1.3;
  change.ci = {1.2, 1.4};
  outcome.changes.push_back({change, status, {}, {}});
  TriageGroup group;
  group.changes = {0};
  if (confirmed)
    group.bisect.cases.push_back({{"loop", "time"}, "s", parsers::Direction::lower_is_better});
  outcome.groups.push_back(std::move(group));
  return outcome;
}

Result<evidence::RegressionUpdate> triage_once(Ledger& ledger, const TriageOutcome& outcome,
                                               const evidence::TriageDocument& document = {}) {
  return evidence::update_regressions(
      ledger, outcome, document, History{}, "host-a", "/tmp/triage.json", 0.02,
      [](const std::string&, const std::string&) -> Result<bool> { return true; });
}

TEST_P(RegressionLedger, AChangePointNotBisectedIsARecordThatMovesFromNewToConfirmedToBisected) {
  auto ledger = open();
  const auto id = range_regression_id("host-a", "c04", "c06");
  EXPECT_NE(id, regression_id("host-a", "c06"));

  // 1. The comparison ran out of runs: new.
  auto first = triage_once(ledger, unbisected_outcome(TriageStatus::inconclusive, false));
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_EQ(first->unbisected.size(), 1U);
  EXPECT_TRUE(first->unbisected_new[0]);
  EXPECT_EQ(first->unbisected[0].id, id);
  EXPECT_EQ(first->unbisected[0].state, RegressionState::detected);
  EXPECT_EQ(to_string(RegressionState::detected), "new");
  EXPECT_TRUE(is_open(RegressionState::detected));

  // 2. Confirmed, but the bisection named no culprit: confirmed, the same record.
  auto second = triage_once(ledger, unbisected_outcome(TriageStatus::inconclusive, true));
  ASSERT_TRUE(second) << second.error().message;
  ASSERT_EQ(second->unbisected.size(), 1U);
  EXPECT_FALSE(second->unbisected_new[0]);
  EXPECT_EQ(second->unbisected[0].state, RegressionState::confirmed);
  // Found confirmed again: no new event.
  ASSERT_TRUE(triage_once(ledger, unbisected_outcome(TriageStatus::inconclusive, true)));
  EXPECT_EQ(ledger.regression(id).value()->events.size(), 2U);

  // 3. Bisected at last: the culprit takes the record over, id and events kept.
  auto outcome = unbisected_outcome(TriageStatus::culprit_found, true);
  bisect::FoundCulprit culprit;
  culprit.commit = "c05";
  culprit.selected.key = {"loop", "time"};
  outcome.groups[0].bisect.culprits.push_back(culprit);
  outcome.findings = {Finding{"c05", true, {0}, {culprit}}};
  const auto ids = evidence::regression_record_ids(ledger, outcome, "host-a");
  ASSERT_TRUE(ids);
  EXPECT_EQ(ids->at("c05"), id) << "the record the change point had";
  evidence::TriageDocument document;
  document.evidence.bisect.emplace();
  evidence::EvidenceCulprit described;
  described.commit = "c05";
  described.subject = "Unroll the loop <twice>";
  described.author = "Grace Hopper";
  described.regression = ids->at("c05"); // as triage_document names it
  described.cases = {{.name = "loop", .ratio = 1.31, .ci = {1.28, 1.34}, .share = 1.0}};
  document.evidence.bisect->culprits = {described};
  auto third = triage_once(ledger, outcome, document);
  ASSERT_TRUE(third) << third.error().message;
  ASSERT_EQ(third->recorded.size(), 1U);
  EXPECT_EQ(third->recorded[0].id, id);
  EXPECT_TRUE(third->unbisected.empty());
  const auto held = ledger.regression(id).value();
  ASSERT_TRUE(held);
  EXPECT_EQ(held->state, RegressionState::bisected);
  EXPECT_EQ(held->culprit, "c05");
  EXPECT_EQ(held->subject, described.subject);
  EXPECT_EQ(held->range_before, "c04");
  ASSERT_EQ(held->events.size(), 3U);
  EXPECT_EQ(held->events[0].state, RegressionState::detected);
  EXPECT_EQ(held->events[1].state, RegressionState::confirmed);
  EXPECT_EQ(held->events[2].state, RegressionState::bisected);
  EXPECT_EQ(held->events[2].commit, "c05");
  EXPECT_EQ(ledger.regression_of_culprit("host-a", "c05").value()->id, id);
  // Found again by its culprit: the same record, not a second.
  const auto again = evidence::regression_record_ids(ledger, outcome, "host-a");
  EXPECT_EQ(again->at("c05"), id);
  ASSERT_TRUE(triage_once(ledger, outcome, document));
  EXPECT_EQ(ledger.regressions("host-a").value().size(), 1U);
}

TEST_P(RegressionLedger, AChangePointThatDidNotReproduceIsInvalidAndNotToBeFixed) {
  auto ledger = open();
  auto update = triage_once(ledger, unbisected_outcome(TriageStatus::not_confirmed, false));
  ASSERT_TRUE(update) << update.error().message;
  ASSERT_EQ(update->unbisected.size(), 1U);
  auto r = update->unbisected[0];
  EXPECT_EQ(r.state, RegressionState::invalid);
  EXPECT_FALSE(is_open(r.state));
  EXPECT_TRUE(r.culprit.empty());
  ASSERT_EQ(r.cases.size(), 1U);
  EXPECT_EQ(r.cases[0].ratio, 1.3);
  EXPECT_THAT(r.events.at(0).note, HasSubstr("did not reproduce"));
  EXPECT_THAT(next_state(r, RegressionAction::wontfix).error().message,
              HasSubstr("did not reproduce"));
  EXPECT_THAT(next_state(r, RegressionAction::acknowledge).error().message,
              HasSubstr("reopen it first"));
  EXPECT_EQ(next_state(r, RegressionAction::reopen).value(), RegressionState::detected)
      << "back to what triage made of it before: not confirmed";
  // A confirmed one set aside comes back confirmed; an acknowledged one was first new.
  r.events.push_back({store::now(), RegressionState::confirmed, "triage", "", ""});
  r.events.push_back({store::now(), RegressionState::acknowledged, "ada", "", ""});
  r.state = RegressionState::wontfix;
  EXPECT_EQ(next_state(r, RegressionAction::reopen).value(), RegressionState::confirmed);
  r.state = RegressionState::confirmed;
  EXPECT_EQ(next_state(r, RegressionAction::acknowledge).value(), RegressionState::acknowledged);
}

// A ledger of version 4 (regressions kept no range of commits) opens, keeps its regressions, and
// takes records not bisected.
INSTANTIATE_TEST_SUITE_P(Backends, RegressionLedger,
                         ::testing::Values(store::sql::Dialect::sqlite,
                                           store::sql::Dialect::postgres),
                         store::testing::backend_name);

// The tables of a version 4 ledger, as culprit wrote them (no range, no searches).
constexpr std::string_view k_version_four_ledger = R"sql(
CREATE TABLE tracked (commit_id TEXT NOT NULL, host_id TEXT NOT NULL,
  recipe_hash TEXT NOT NULL, artifact_id TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('track', 'import')), file TEXT NOT NULL,
  commit_time INTEGER NOT NULL, tracked_at INTEGER NOT NULL,
  UNIQUE (commit_id, host_id, recipe_hash));
CREATE TABLE sessions (commit_id TEXT NOT NULL, host_id TEXT NOT NULL, recipe_hash TEXT NOT NULL,
  session TEXT NOT NULL, artifact_id TEXT NOT NULL, measured_at INTEGER NOT NULL,
  PRIMARY KEY (commit_id, host_id, recipe_hash, session));
CREATE TABLE unfinished_sessions (command TEXT PRIMARY KEY, session TEXT NOT NULL,
  started_at INTEGER NOT NULL);
CREATE TABLE imports (commit_id TEXT NOT NULL, host_id TEXT NOT NULL, content_hash TEXT NOT NULL,
  file TEXT NOT NULL, imported_at INTEGER NOT NULL,
  PRIMARY KEY (commit_id, host_id, content_hash));
CREATE TABLE handled (host_id TEXT NOT NULL, case_name TEXT NOT NULL, metric TEXT NOT NULL,
  before_id TEXT NOT NULL, after_id TEXT NOT NULL, outcome TEXT NOT NULL, culprit TEXT NOT NULL,
  handled_at INTEGER NOT NULL, PRIMARY KEY (host_id, case_name, metric, before_id, after_id));
CREATE TABLE regressions (id TEXT PRIMARY KEY, host_id TEXT NOT NULL, culprit TEXT NOT NULL,
  subject TEXT NOT NULL, author TEXT NOT NULL, state TEXT NOT NULL, cases TEXT NOT NULL,
  owners TEXT NOT NULL, evidence TEXT NOT NULL, first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL, fixed_by TEXT NOT NULL);
CREATE TABLE regression_events (regression TEXT NOT NULL, at INTEGER NOT NULL,
  state TEXT NOT NULL, who TEXT NOT NULL, note TEXT NOT NULL, commit_id TEXT NOT NULL);
INSERT INTO regressions VALUES ('R1234567', 'host-a', 'abc123', 'slower', 'Ada', 'acknowledged',
  '[]', '[]', '[]', 1, 2, '');
PRAGMA user_version = 4; PRAGMA application_id = 1129663560;)sql";

TEST(Regressions, AnOlderLedgerThatLostATableOfItsVersionIsRefusedNotRebuiltEmpty) {
  TempDir dir{"culprit-regressions-v4-damaged"};
  const auto file = dir.path() / "ledger.sqlite";
  {
    auto db = store::sql::Database::open_sqlite(file);
    ASSERT_TRUE(db) << db.error().message;
    ASSERT_TRUE(db->execute(k_version_four_ledger));
    ASSERT_TRUE(db->execute("DROP TABLE regression_events"));
  }
  const auto ledger = Ledger::open(file);
  ASSERT_FALSE(ledger);
  EXPECT_EQ(ledger.error().code, ExitCode::infrastructure);
  EXPECT_NE(ledger.error().message.find("regression_events is missing"), std::string::npos)
      << ledger.error().message;
  // Left as it was: still version 4, still without the table.
  auto db = store::sql::Database::open_sqlite(file);
  ASSERT_TRUE(db);
  EXPECT_EQ(db->pragma_integer("user_version").value(), 4);
}

TEST(Regressions, ALedgerOfVersionFourIsMigrated) {
  TempDir dir{"culprit-regressions-v4"};
  const auto file = dir.path() / "ledger.sqlite";
  {
    auto db = store::sql::Database::open_sqlite(file);
    ASSERT_TRUE(db) << db.error().message;
    ASSERT_TRUE(db->execute(k_version_four_ledger));
  }
  auto ledger = Ledger::open(file);
  ASSERT_TRUE(ledger) << ledger.error().message;
  const auto held = ledger->regression("R1234567").value();
  ASSERT_TRUE(held);
  EXPECT_EQ(held->state, RegressionState::acknowledged);
  EXPECT_EQ(held->culprit, "abc123");
  EXPECT_TRUE(held->range_before.empty());
  ASSERT_TRUE(triage_once(*ledger, unbisected_outcome(TriageStatus::inconclusive, true)));
  EXPECT_EQ(ledger->regressions("host-a").value().size(), 2U);
  // And opens again as version 5.
  EXPECT_TRUE(Ledger::open(file));
}

} // namespace
} // namespace culprit::history
