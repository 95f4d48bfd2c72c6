#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/history/series.hpp"
#include "core/history/track.hpp"
#include "core/history/triage.hpp"
#include "tests/support/fake_measure.hpp"
#include "tests/support/simulated_history.hpp"

namespace culprit::history {
namespace {

using testing::ChainGraph;
using ::testing::ElementsAre;
using testing::fake_case;
using testing::FakeBuildProvider;
using testing::FakeRig;
using testing::SimulatedHistory;
using testing::TempDir;

// A simulated history tracked every fourth commit, and triage over it.
struct Triaged {
  explicit Triaged(SimulatedHistory history) : simulated(std::move(history)) {
    simulated.install(rig.executor());
    auto tracked = track_commits(select_commits(simulated.range(), {.every = 4}), builds,
                                 rig.sampler(), ledger, {.runs = 5});
    EXPECT_TRUE(tracked) << tracked.error().message;
  }

  History history() {
    HistoryOptions options;
    auto points = choose_points(ledger.tracked().value(), options).value();
    auto loaded = load_history(rig.store(), points, options);
    EXPECT_TRUE(loaded) << loaded.error().message;
    return loaded.value_or(History{});
  }

  TriageOutcome triage(const History& history) {
    TriageSettings settings;
    settings.host_id = "fake-host";
    auto outcome = run_triage(history, builds, rig.sampler(), graph, ledger, settings);
    EXPECT_TRUE(outcome) << outcome.error().message;
    return outcome.value_or(TriageOutcome{});
  }

  SimulatedHistory simulated;
  FakeRig rig;
  TempDir dir{"culprit-triage"};
  Ledger ledger = Ledger::open_in(dir.path()).value();
  FakeBuildProvider builds;
  ChainGraph graph{simulated.commits()};
};

std::vector<std::string> statuses(const TriageOutcome& outcome) {
  std::vector<std::string> out;
  for (const auto& change : outcome.changes)
    out.push_back(change.change.case_name + ":" + std::string(to_string(change.status)));
  return out;
}

TEST(Triage, BisectsAChangePointToItsCulpritAndRemembersIt) {
  SimulatedHistory simulated(64, {fake_case("sgemm", 1e-3), fake_case("saxpy", 2e-4)});
  simulated.plant("sgemm", 42, 1.10);
  Triaged t(std::move(simulated));
  const auto history = t.history();
  ASSERT_EQ(history.change_points.size(), 1U);
  EXPECT_EQ(history.change_points[0].before, "c0040");
  EXPECT_EQ(history.change_points[0].commit, "c0044");

  const auto first = t.triage(history);
  EXPECT_THAT(statuses(first), ElementsAre("sgemm:culprit_found"));
  ASSERT_EQ(first.findings.size(), 1U);
  EXPECT_EQ(first.findings[0].commit, "c0042");
  EXPECT_TRUE(first.findings[0].regression);
  EXPECT_TRUE(first.new_regressions());

  // The next triage leaves it alone, and measures nothing.
  const int runs = t.rig.executor().total_runs();
  const auto second = t.triage(t.history());
  EXPECT_THAT(statuses(second), ElementsAre("sgemm:handled_before"));
  EXPECT_TRUE(second.findings.empty());
  EXPECT_FALSE(second.new_regressions());
  EXPECT_EQ(t.rig.executor().total_runs(), runs);

  // A change point that moved as the history grew, around the same culprit, is the same one.
  History moved;
  auto change = history.change_points[0];
  change.before = "c0036";
  moved.change_points.push_back(change);
  EXPECT_THAT(statuses(t.triage(moved)), ElementsAre("sgemm:handled_before"));
}

TEST(Triage, OneCulpritOfManyCasesIsOneFinding) {
  SimulatedHistory simulated(48,
                             {fake_case("a", 1e-3), fake_case("b", 2e-3), fake_case("c", 5e-4)});
  simulated.plant("a", 21, 1.12);
  simulated.plant("b", 21, 1.08);
  Triaged t(std::move(simulated));
  const auto outcome = t.triage(t.history());
  EXPECT_THAT(statuses(outcome), ElementsAre("a:culprit_found", "b:culprit_found"));
  ASSERT_EQ(outcome.groups.size(), 1U); // one bisection for both
  ASSERT_EQ(outcome.findings.size(), 1U);
  EXPECT_EQ(outcome.findings[0].commit, "c0021");
  EXPECT_EQ(outcome.findings[0].culprits.size(), 2U);
}

TEST(Triage, ImprovementsAreSeparateFindingsAndNoFailure) {
  SimulatedHistory simulated(48, {fake_case("a", 1e-3), fake_case("b", 1e-3)});
  simulated.plant("a", 13, 0.85);
  simulated.plant("b", 30, 1.10);
  Triaged t(std::move(simulated));
  const auto outcome = t.triage(t.history());
  ASSERT_EQ(outcome.findings.size(), 2U);
  EXPECT_EQ(outcome.findings[0].commit, "c0030"); // regressions first
  EXPECT_TRUE(outcome.findings[0].regression);
  EXPECT_EQ(outcome.findings[1].commit, "c0013");
  EXPECT_FALSE(outcome.findings[1].regression);

  SimulatedHistory better(40, {fake_case("a", 1e-3)});
  better.plant("a", 17, 0.85);
  Triaged only_better(std::move(better));
  const auto improved = only_better.triage(only_better.history());
  ASSERT_EQ(improved.findings.size(), 1U);
  EXPECT_FALSE(improved.new_regressions());
}

TEST(Triage, AChangePointThatDoesNotReproduceIsDismissedWithoutBisecting) {
  SimulatedHistory simulated(40, {fake_case("k", 1e-3)});
  Triaged t(std::move(simulated));
  // A change point the series does not support (as one noisy point could suggest).
  History suspect;
  suspect.change_points.push_back({.case_name = "k",
                                   .metric = "time",
                                   .unit = "s",
                                   .index = 3,
                                   .before = "c0008",
                                   .commit = "c0012",
                                   .ratio = 1.08,
                                   .ci = {1.01, 1.15},
                                   .p_value = 0.01,
                                   .sessions = {}});
  const auto outcome = t.triage(suspect);
  EXPECT_THAT(statuses(outcome), ElementsAre("k:not_confirmed"));
  EXPECT_TRUE(outcome.findings.empty());
  ASSERT_EQ(outcome.groups.size(), 1U);
  EXPECT_TRUE(outcome.groups[0].bisect.steps.empty());
  const auto handled = t.ledger.handled("fake-host").value();
  ASSERT_EQ(handled.size(), 1U);
  EXPECT_EQ(handled[0].outcome, "not_confirmed");
}

TEST(Triage, AnEndThatDoesNotBuildFailsOnlyItsChangePoint) {
  SimulatedHistory simulated(48, {fake_case("a", 1e-3), fake_case("b", 1e-3)});
  simulated.plant("a", 13, 1.15);
  simulated.plant("b", 30, 1.10);
  Triaged t(std::move(simulated));
  const auto history = t.history();
  ASSERT_EQ(history.change_points.size(), 2U);
  // The range of a's change (c0012..c0016) is widened to c0008..c0020; its end c0008 was tracked
  // before, but bisecting needs a build.
  t.builds.fail("c0008");
  const auto outcome = t.triage(history);
  EXPECT_THAT(statuses(outcome), ElementsAre("a:failed", "b:culprit_found"));
  EXPECT_TRUE(outcome.new_regressions());
}

} // namespace
} // namespace culprit::history
