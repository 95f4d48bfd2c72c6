// Stacked regressions and their fixes, through the whole night: a simulated history tracked in
// sessions (each new one anchored on the last), its change points triaged and bisected, and the
// ledger updated as `culprit triage` updates it, on either backend. A fix closes the regression
// whose level it restores, not every one whose step it happens to match.

#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/evidence/triage_document.hpp"
#include "core/history/ledger.hpp"
#include "core/history/regressions.hpp"
#include "core/history/series.hpp"
#include "core/history/track.hpp"
#include "core/history/triage.hpp"
#include "core/store/sql.hpp"
#include "tests/core/store/store_fixture.hpp"
#include "tests/support/fake_measure.hpp"
#include "tests/support/simulated_history.hpp"

namespace culprit::history {
namespace {

using testing::ChainGraph;
using testing::fake_case;
using testing::FakeBuildProvider;
using testing::FakeRig;
using testing::SimulatedHistory;

// The part of a triage document that update_regressions reads: each finding's culprit with the
// cases it moved, their ratios and intervals.
evidence::TriageDocument document_of(const TriageOutcome& outcome) {
  evidence::TriageDocument document;
  evidence::EvidenceBisect bisect;
  for (const auto& finding : outcome.findings)
    for (const auto& found : finding.culprits) {
      evidence::EvidenceCulprit culprit;
      culprit.commit = finding.commit;
      culprit.subject = "step at " + finding.commit;
      evidence::EvidenceCulpritCase moved;
      moved.name = found.selected.key.case_name;
      if (found.change) {
        moved.ratio = found.change->ratio.estimate;
        moved.ci = {found.change->ratio.lower, found.change->ratio.upper};
      }
      culprit.cases.push_back(moved);
      evidence::add_culprit(bisect.culprits, std::move(culprit));
    }
  document.evidence.bisect = std::move(bisect);
  return document;
}

class StackedRegressions : public ::testing::TestWithParam<store::sql::Dialect> {
protected:
  void SetUp() override {
    CULPRIT_STORE_LOCATION(m_backend, GetParam(), m_where);
    m_ledger.emplace(Ledger::open_at(m_where).value());
  }

  // Tracks the first `commits` commits of `simulated` as a session of their own (anchored on the
  // commit tracked last before them), triages the history and updates the ledger, where git no
  // longer knows the commits `unknown` (a rewritten branch).
  evidence::RegressionUpdate night(const SimulatedHistory& simulated, std::size_t commits,
                                   const std::set<std::string>& unknown = {}) {
    simulated.install(m_rig.executor());
    const auto range = simulated.range();
    const std::vector<RangeCommit> taken(range.begin(),
                                         range.begin() + static_cast<std::ptrdiff_t>(commits));
    auto& sampler = m_rig.new_session_sampler("track:night-" + std::to_string(++m_nights));
    auto tracked = track_commits(taken, m_builds, sampler, *m_ledger, {.runs = 5, .anchors = 1});
    EXPECT_TRUE(tracked) << tracked.error().message;

    HistoryOptions options;
    const auto points = choose_points(m_ledger->tracked().value(), options).value();
    auto history = load_history(m_rig.store(), points, options);
    EXPECT_TRUE(history) << history.error().message;
    TriageSettings settings;
    settings.host_id = "fake-host";
    ChainGraph graph(simulated.commits());
    auto outcome = run_triage(*history, m_builds, sampler, graph, *m_ledger, settings);
    EXPECT_TRUE(outcome) << outcome.error().message;
    const auto chain = simulated.commits();
    const auto position = [&](const std::string& commit) {
      return std::ranges::find(chain, commit) - chain.begin();
    };
    auto update = evidence::update_regressions(
        *m_ledger, *outcome, document_of(*outcome), *history, "fake-host", "/tmp/triage.json",
        settings.bisect.compare.decide.threshold,
        [&](const std::string& ancestor, const std::string& descendant) -> Result<bool> {
          if (unknown.contains(ancestor) || unknown.contains(descendant))
            return usage_error("unknown revision");
          return position(ancestor) <= position(descendant);
        });
    EXPECT_TRUE(update) << update.error().message;
    return update.value_or(evidence::RegressionUpdate{});
  }

  RegressionState state_of(const SimulatedHistory& simulated, std::size_t culprit) {
    const auto held = m_ledger->regression(regression_id("fake-host", simulated.commit(culprit)));
    EXPECT_TRUE(held && *held) << "no record for " << simulated.commit(culprit);
    return held && *held ? (*held)->state : RegressionState::invalid;
  }

  store::testing::Backend m_backend;
  store::Location m_where;
  std::optional<Ledger> m_ledger;
  FakeRig m_rig;
  FakeBuildProvider m_builds;
  int m_nights = 0;
};

std::vector<std::string> ids(const std::vector<Regression>& regressions) {
  std::vector<std::string> out;
  for (const auto& r : regressions)
    out.push_back(r.culprit);
  return out;
}

// 100 for 10 commits, 112 for 12, 124 for 8: two regressions. Then ten commits back at 112, in a
// session of their own: the second step was undone, the first was not.
TEST_P(StackedRegressions, AFixOfTheSecondOfTwoClosesTheSecondOnly) {
  SimulatedHistory simulated(40, {fake_case("k", 1e-3, 0.005)});
  simulated.plant("k", 10, 1.12);
  simulated.plant("k", 22, 124.0 / 112.0);
  simulated.plant("k", 30, 112.0 / 124.0);

  const auto first = night(simulated, 30);
  EXPECT_THAT(ids(first.recorded),
              ::testing::UnorderedElementsAre(simulated.commit(10), simulated.commit(22)));
  const auto second = night(simulated, 40);
  EXPECT_THAT(ids(second.fixed), ::testing::ElementsAre(simulated.commit(22)));
  EXPECT_EQ(state_of(simulated, 22), RegressionState::fixed);
  EXPECT_EQ(state_of(simulated, 10), RegressionState::bisected)
      << "112 is 12% above the level before the first culprit";
  // It is still open, so it can be acknowledged.
  const auto held = m_ledger->regression(regression_id("fake-host", simulated.commit(10))).value();
  ASSERT_TRUE(held);
  EXPECT_TRUE(m_ledger->transition(held->id, held->state,
                                   {store::now(), RegressionState::acknowledged, "ada", "", ""}));
}

// A change point git can no longer place (its branch was rewritten) lies between nothing: it
// keeps no fix from closing the regression it fixes.
TEST_P(StackedRegressions, AStepGitCannotPlaceKeepsNoFixFromClosing) {
  SimulatedHistory simulated(40, {fake_case("k", 1e-3, 0.005)});
  simulated.plant("k", 10, 1.12);
  simulated.plant("k", 22, 124.0 / 112.0);
  simulated.plant("k", 30, 112.0 / 124.0);
  night(simulated, 30);
  const auto second = night(simulated, 40, {simulated.commit(10)});
  EXPECT_THAT(ids(second.fixed), ::testing::ElementsAre(simulated.commit(22)));
  EXPECT_EQ(state_of(simulated, 10), RegressionState::bisected);
}

// Three steps up (100, 112, 125, 140), then undone one at a time from the newest, each undoing in
// a session of its own: each night closes exactly the regression whose level came back.
TEST_P(StackedRegressions, ThreeStepsUndoneFromTheNewestCloseOneANight) {
  SimulatedHistory simulated(56, {fake_case("k", 1e-3, 0.005)});
  simulated.plant("k", 8, 1.12);
  simulated.plant("k", 16, 1.115);
  simulated.plant("k", 24, 1.12);
  simulated.plant("k", 32, 1 / 1.12);
  simulated.plant("k", 40, 1 / 1.115);
  simulated.plant("k", 48, 1 / 1.12);

  const auto first = night(simulated, 32);
  EXPECT_EQ(first.recorded.size(), 3U);
  EXPECT_THAT(ids(night(simulated, 40).fixed), ::testing::ElementsAre(simulated.commit(24)));
  EXPECT_EQ(state_of(simulated, 8), RegressionState::bisected);
  EXPECT_EQ(state_of(simulated, 16), RegressionState::bisected);
  EXPECT_THAT(ids(night(simulated, 48).fixed), ::testing::ElementsAre(simulated.commit(16)));
  EXPECT_EQ(state_of(simulated, 8), RegressionState::bisected);
  EXPECT_THAT(ids(night(simulated, 56).fixed), ::testing::ElementsAre(simulated.commit(8)));
}

INSTANTIATE_TEST_SUITE_P(Backends, StackedRegressions,
                         ::testing::Values(store::sql::Dialect::sqlite,
                                           store::sql::Dialect::postgres),
                         store::testing::backend_name);

} // namespace
} // namespace culprit::history
