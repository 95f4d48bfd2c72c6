#include <algorithm>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/history/series.hpp"
#include "core/history/track.hpp"
#include "core/report/history.hpp"
#include "tests/support/fake_measure.hpp"
#include "tests/support/simulated_history.hpp"

namespace culprit::history {
namespace {

using testing::fake_case;
using testing::FakeBuildProvider;
using testing::FakeRig;
using testing::SimulatedHistory;
using testing::TempDir;

struct Tracked {
  FakeRig rig;
  TempDir dir{"culprit-history"};
  Ledger ledger = Ledger::open_in(dir.path()).value();
  FakeBuildProvider builds;

  void track(const SimulatedHistory& simulated, std::size_t every = 1) {
    simulated.install(rig.executor());
    auto outcome = track_commits(select_commits(simulated.range(), {.every = every}), builds,
                                 rig.sampler(), ledger, {.runs = 5});
    ASSERT_TRUE(outcome) << outcome.error().message;
  }

  History history(HistoryOptions options = {}) {
    auto tracked = ledger.tracked();
    EXPECT_TRUE(tracked) << tracked.error().message;
    auto points = choose_points(*tracked, options);
    EXPECT_TRUE(points) << points.error().message;
    auto loaded = load_history(rig.store(), *points, options);
    EXPECT_TRUE(loaded) << loaded.error().message;
    return loaded.value_or(History{});
  }
};

TEST(HistorySeries, FindsOneStepAtItsCommitWithTheCommitsAroundIt) {
  SimulatedHistory simulated(60, {fake_case("sgemm", 1e-3), fake_case("saxpy", 2e-4)});
  simulated.plant("sgemm", 31, 1.10);
  Tracked tracked;
  tracked.track(simulated);
  const auto history = tracked.history();
  ASSERT_EQ(history.series.size(), 2U);
  EXPECT_EQ(history.series[1].case_name, "sgemm");
  ASSERT_EQ(history.series[1].points.size(), 60U);
  const auto& point = history.series[1].points[10];
  EXPECT_EQ(point.commit, "c0010");
  EXPECT_EQ(point.runs, 5U);
  EXPECT_LE(point.ci[0], point.median);
  EXPECT_GE(point.ci[1], point.median);
  EXPECT_NEAR(point.median, 1e-3, 3e-5);
  ASSERT_EQ(history.change_points.size(), 1U);
  const auto& change = history.change_points[0];
  EXPECT_EQ(change.case_name, "sgemm");
  EXPECT_EQ(change.before, "c0030");
  EXPECT_EQ(change.commit, "c0031");
  EXPECT_EQ(change.index, 31U);
  EXPECT_NEAR(change.ratio, 1.10, 0.02);
  EXPECT_LE(change.p_value, 0.01);
  EXPECT_TRUE(change.regression());
}

// Hundreds of cases are read a batch of cases at a time, the next batch on another thread while
// this one's series are built, and searched a group at a time beside it: every series and change
// point is the one the case's history alone gives (read by its own queries, searched alone).
TEST(HistorySeries, ManyCasesReadInBatchesGiveWhatEachCaseGivesAlone) {
  std::vector<FakeCase> cases;
  for (int c = 0; c < 300; ++c)
    cases.push_back(fake_case(fmt::format("k{:03}", c), 1e-4 * (1 + (c % 7))));
  SimulatedHistory simulated(10, cases, 3);
  simulated.plant("k010", 5, 1.3);
  simulated.plant("k260", 4, 0.7);
  Tracked tracked;
  tracked.track(simulated);
  const auto all = tracked.history();
  ASSERT_EQ(all.series.size(), 300U);
  std::vector<std::string> stepped;
  for (const auto& change : all.change_points)
    stepped.push_back(change.case_name + "@" + change.commit);
  EXPECT_EQ(stepped, (std::vector<std::string>{"k010@c0005", "k260@c0004"}));
  for (std::size_t c = 0; c < all.series.size(); c += 13) {
    const auto& series = all.series[c];
    HistoryOptions one;
    one.case_globs = {series.case_name};
    const auto alone = tracked.history(one);
    ASSERT_EQ(alone.series.size(), 1U) << series.case_name;
    ASSERT_EQ(alone.series[0].points.size(), series.points.size()) << series.case_name;
    for (std::size_t p = 0; p < series.points.size(); ++p) {
      EXPECT_EQ(alone.series[0].points[p].median, series.points[p].median) << series.case_name;
      EXPECT_EQ(alone.series[0].points[p].ci, series.points[p].ci) << series.case_name;
    }
    EXPECT_EQ(alone.series[0].no_change_reason, series.no_change_reason);
  }
  for (const auto& change : all.change_points) {
    HistoryOptions one;
    one.case_globs = {change.case_name};
    const auto alone = tracked.history(one);
    ASSERT_EQ(alone.change_points.size(), 1U) << change.case_name;
    EXPECT_EQ(alone.change_points[0].commit, change.commit);
    EXPECT_EQ(alone.change_points[0].ci, change.ci);
    EXPECT_EQ(alone.change_points[0].p_value, change.p_value);
  }
}

TEST(HistorySeries, AFasterThroughputIsAnImprovement) {
  SimulatedHistory simulated(40,
                             {fake_case("copy", 1e9, 0.01, parsers::Direction::higher_is_better)});
  simulated.plant("copy", 20, 1.15);
  Tracked tracked;
  tracked.track(simulated);
  const auto history = tracked.history();
  ASSERT_EQ(history.change_points.size(), 1U);
  EXPECT_EQ(history.change_points[0].commit, "c0020");
  EXPECT_FALSE(history.change_points[0].regression());
}

TEST(HistorySeries, AFlatNoisySeriesHasNoChangePoint) {
  SimulatedHistory simulated(80, {fake_case("flat", 1e-3, 0.04)});
  Tracked tracked;
  tracked.track(simulated);
  EXPECT_TRUE(tracked.history().change_points.empty());
}

TEST(HistorySeries, StepsBelowTheThresholdAreDropped) {
  Series series{"k", "time", "s", parsers::Direction::lower_is_better, {}, {}, {}};
  for (int i = 0; i < 40; ++i) {
    const double wiggle = (i % 2 == 0 ? 1.0005 : 0.9995);
    series.points.push_back({.commit = fmt::format("c{:04}", i),
                             .last_commit = fmt::format("c{:04}", i),
                             .commits = 1,
                             .host_id = "h",
                             .source = "track",
                             .session = "",
                             .median = (i < 20 ? 1.0 : 1.01) * wiggle,
                             .ci = {1, 1},
                             .runs = 5});
  }
  auto strict = find_change_points(series, {.min_change = 0.005});
  ASSERT_TRUE(strict) << strict.error().message;
  ASSERT_EQ(strict->size(), 1U);
  EXPECT_EQ(strict->front().index, 20U);
  auto lenient = find_change_points(series, {.min_change = 0.02});
  ASSERT_TRUE(lenient);
  EXPECT_TRUE(lenient->empty());
}

TEST(HistorySeries, CaseGlobsAndMetricSelectTheSeries) {
  SimulatedHistory simulated(8, {fake_case("sgemm", 1e-3), fake_case("saxpy", 2e-4)});
  Tracked tracked;
  tracked.track(simulated);
  HistoryOptions options;
  options.case_globs = {"sg*"};
  const auto history = tracked.history(options);
  ASSERT_EQ(history.series.size(), 1U);
  EXPECT_EQ(history.series[0].case_name, "sgemm");

  auto points = choose_points(*tracked.ledger.tracked(), options);
  options.case_globs = {"nothing*"};
  const auto none = load_history(tracked.rig.store(), *points, options);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ExitCode::usage);
}

// Two nights of tracking: the first 20 commits, then the next 20 on a machine `speed` times as
// slow, each night a session of its own (the second anchored on the first's last commit unless
// `anchors` is 0).
struct TwoNights {
  Tracked tracked;
  SimulatedHistory first_night;
  SimulatedHistory second_night;

  TwoNights(double speed, double planted, std::size_t anchors = 1)
      : first_night(40, {fake_case("k", 1e-3, 0.01)}),
        second_night(40, {fake_case("k", 1e-3, 0.01)}) {
    second_night.plant("k", 20, planted);
    first_night.install(tracked.rig.executor());
    const auto range = first_night.range();
    const std::vector<RangeCommit> first(range.begin(), range.begin() + 20);
    auto one =
        track_commits(first, tracked.builds, tracked.rig.new_session_sampler("track:night-1"),
                      tracked.ledger, {.runs = 5, .anchors = anchors});
    EXPECT_TRUE(one) << one.error().message;
    second_night.install(tracked.rig.executor(), speed);
    auto two =
        track_commits(range, tracked.builds, tracked.rig.new_session_sampler("track:night-2"),
                      tracked.ledger, {.runs = 5, .anchors = anchors});
    EXPECT_TRUE(two) << two.error().message;
    if (two) {
      EXPECT_EQ(two->measured, 20U);
      EXPECT_EQ(two->already_tracked, 20U);
      EXPECT_EQ(two->anchors.size(), anchors);
    }
  }
};

TEST(HistorySessions, AMachineSlowerOnTheSecondNightIsNoChangePoint) {
  TwoNights nights(1.08, 1.0);
  const auto history = nights.tracked.history();
  ASSERT_EQ(history.series.size(), 1U);
  const auto& series = history.series[0];
  EXPECT_TRUE(history.change_points.empty());
  ASSERT_EQ(series.sessions.size(), 2U);
  EXPECT_EQ(series.sessions[0].id, "track:night-1");
  EXPECT_TRUE(series.sessions[0].aligned);
  EXPECT_THAT(series.sessions[0].anchors, ::testing::ElementsAre("c0019"));
  EXPECT_NEAR(series.sessions[0].factor, 1 / 1.08, 0.01);
  EXPECT_EQ(series.sessions[0].points, 19U) << "c0019's runs are the second night's";
  EXPECT_EQ(series.sessions[1].factor, 1.0);
  // Every point reads as if measured on the second night.
  ASSERT_EQ(series.points.size(), 40U);
  EXPECT_NEAR(series.points[5].median, 1.08e-3, 0.02e-3);
  EXPECT_EQ(series.points[5].session, "track:night-1");
  EXPECT_EQ(series.points[19].session, "track:night-2");
}

TEST(HistorySessions, WithoutAnAnchorTheSlowerMachineLooksLikeARegression) {
  TwoNights nights(1.08, 1.0, 0);
  const auto history = nights.tracked.history();
  ASSERT_EQ(history.series.size(), 1U);
  ASSERT_EQ(history.series[0].sessions.size(), 2U);
  EXPECT_FALSE(history.series[0].sessions[0].aligned);
  ASSERT_EQ(history.change_points.size(), 1U) << "the case the anchor is there for";
  EXPECT_EQ(history.change_points[0].commit, "c0020");
  const auto notes = report::session_notes(history.series[0], 0.01);
  ASSERT_EQ(notes.size(), 1U);
  EXPECT_THAT(notes[0], ::testing::HasSubstr("shares no commit with the others"));
}

TEST(HistorySessions, ARealStepOnTheSecondNightIsFoundWithItsIntervalAndSessions) {
  TwoNights nights(1.0, 1.08);
  const auto history = nights.tracked.history();
  ASSERT_EQ(history.change_points.size(), 1U);
  const auto& change = history.change_points[0];
  EXPECT_EQ(change.before, "c0019");
  EXPECT_EQ(change.commit, "c0020");
  EXPECT_NEAR(change.ratio, 1.08, 0.015);
  EXPECT_LT(change.ci[0], change.ratio);
  EXPECT_GT(change.ci[1], change.ratio);
  EXPECT_GT(change.ci[0], 1.04);
  EXPECT_LT(change.ci[1], 1.12);
  EXPECT_THAT(change.sessions, ::testing::ElementsAre("track:night-1", "track:night-2"));
  EXPECT_NEAR(history.series[0].sessions[0].factor, 1.0, 0.01);
}

TEST(HistorySessions, AStepAndASlowerMachineTogetherShowOnlyTheStep) {
  TwoNights nights(1.08, 1.08);
  const auto history = nights.tracked.history();
  ASSERT_EQ(history.change_points.size(), 1U);
  EXPECT_EQ(history.change_points[0].commit, "c0020");
  EXPECT_NEAR(history.change_points[0].ratio, 1.08, 0.015) << "not 1.08 squared";
}

TEST(HistorySessions, ANightThatAddsNothingMeasuresNothingNotEvenAnAnchor) {
  SimulatedHistory simulated(6, {fake_case("k", 1e-3)});
  Tracked tracked;
  simulated.install(tracked.rig.executor());
  ASSERT_TRUE(track_commits(simulated.range(), tracked.builds,
                            tracked.rig.new_session_sampler("track:1"), tracked.ledger,
                            {.runs = 3}));
  auto again =
      track_commits(simulated.range(), tracked.builds, tracked.rig.new_session_sampler("track:2"),
                    tracked.ledger, {.runs = 3});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->runs_made, 0);
  EXPECT_TRUE(again->anchors.empty());
  EXPECT_EQ(again->already_tracked, 6U);
  // --fresh measures the whole selection again in the new session, and history shows its runs.
  auto fresh =
      track_commits(simulated.range(), tracked.builds, tracked.rig.new_session_sampler("track:3"),
                    tracked.ledger, {.runs = 3, .remeasure = true});
  ASSERT_TRUE(fresh) << fresh.error().message;
  EXPECT_EQ(fresh->measured, 6U);
  EXPECT_EQ(fresh->runs_made, 18);
  const auto history = tracked.history();
  ASSERT_EQ(history.series.size(), 1U);
  for (const auto& point : history.series[0].points)
    EXPECT_EQ(point.session, "track:3");
}

TEST(HistorySessions, CommitsWithIdenticalArtifactsAreOnePoint) {
  SimulatedHistory simulated(12, {fake_case("k", 1e-3)});
  Tracked tracked;
  for (const auto* commit : {"c0001", "c0002", "c0003"})
    tracked.builds.set_artifact(commit, "artifact-c0000");
  tracked.track(simulated);
  const auto history = tracked.history();
  ASSERT_EQ(history.series.size(), 1U);
  const auto& points = history.series[0].points;
  ASSERT_EQ(points.size(), 9U);
  EXPECT_EQ(points[0].commit, "c0000");
  EXPECT_EQ(points[0].last_commit, "c0003");
  EXPECT_EQ(points[0].commits, 4U);
  EXPECT_EQ(points[1].commit, "c0004");
  EXPECT_EQ(points[1].commits, 1U);
}

// Thirty commits, of which only two change the case: three artifacts, so three points. The two
// steps between them are found, each at the first commit of its new artifact, though E-divisive
// alone sees nothing in three points.
TEST(HistorySessions, StepsBetweenFewPointsOfSharedArtifactsAreFound) {
  SimulatedHistory simulated(30, {fake_case("k", 100e-9, 0.01)});
  simulated.plant("k", 10, 1.12);
  simulated.plant("k", 22, 1.107);
  Tracked tracked;
  for (std::size_t i = 0; i < 30; ++i) {
    const std::size_t first = i < 10 ? 0 : (i < 22 ? 10 : 22);
    tracked.builds.set_artifact(simulated.commit(i), "artifact-" + simulated.commit(first));
  }
  tracked.track(simulated);
  const auto history = tracked.history();
  ASSERT_EQ(history.series.size(), 1U);
  ASSERT_EQ(history.series[0].points.size(), 3U);
  ASSERT_EQ(history.change_points.size(), 2U);
  EXPECT_EQ(history.change_points[0].before, "c0009");
  EXPECT_EQ(history.change_points[0].commit, "c0010");
  EXPECT_NEAR(history.change_points[0].ratio, 1.12, 0.02);
  EXPECT_GT(history.change_points[0].ci[0], 1.0);
  EXPECT_EQ(history.change_points[1].before, "c0021");
  EXPECT_EQ(history.change_points[1].commit, "c0022");
  EXPECT_NEAR(history.change_points[1].ratio, 1.107, 0.02);
}

// A regression at the newest commit is one point after many: within min_segment of the end,
// where E-divisive cannot split, and still found.
TEST(HistorySeries, AStepAtTheNewestCommitIsFound) {
  SimulatedHistory simulated(20, {fake_case("k", 1e-3, 0.01)});
  simulated.plant("k", 19, 1.10);
  Tracked tracked;
  tracked.track(simulated);
  const auto history = tracked.history();
  ASSERT_EQ(history.change_points.size(), 1U);
  EXPECT_EQ(history.change_points[0].commit, "c0019");
  EXPECT_NEAR(history.change_points[0].ratio, 1.10, 0.02);
}

// Two points that differ by less than their runs can tell apart are no step, and history says
// what step they could have resolved.
TEST(HistorySeries, NeighboursWithinTheirNoiseAreNoStep) {
  SimulatedHistory simulated(2, {fake_case("k", 1e-3, 0.08)});
  simulated.plant("k", 1, 1.03);
  Tracked tracked;
  tracked.track(simulated);
  const auto history = tracked.history();
  EXPECT_TRUE(history.change_points.empty());
  ASSERT_EQ(history.series.size(), 1U);
  EXPECT_THAT(history.series[0].no_change_reason,
              ::testing::HasSubstr("to stand out of their noise and the 2.0% threshold; 2 points "
                                   "are too few for E-divisive (it needs 6)"));
  EXPECT_THAT(report::render_text(history, {}, report::Glyphs::ascii),
              ::testing::HasSubstr("  no change point: "));
}

// Ten points, 2.1-2.3 then 2.5-2.6: the 15% step is found, though E-divisive's least p-value
// over ten points is close to its significance.
TEST(HistorySeries, AFifteenPercentStepInTenPointsIsFound) {
  SimulatedHistory simulated(10, {fake_case("k", 2.2e-3, 0.03)});
  simulated.plant("k", 5, 1.15);
  Tracked tracked;
  tracked.track(simulated);
  const auto history = tracked.history();
  ASSERT_EQ(history.change_points.size(), 1U);
  EXPECT_EQ(history.change_points[0].commit, "c0005");
  EXPECT_TRUE(history.series[0].no_change_reason.empty());
}

TrackedPoint point(const std::string& commit, const std::string& host, const std::string& recipe,
                   std::int64_t tracked_micros) {
  return {commit, host, recipe, "a-" + commit, "track", {}, 0, store::from_micros(tracked_micros),
          {}};
}

TEST(HistorySeries, MixedHostsAreRefusedUnlessAskedFor) {
  const std::vector<TrackedPoint> tracked = {
      point("c1", "host-a", "r", 1), point("c1", "host-b", "r", 2), point("c2", "host-a", "r", 3)};
  const auto mixed = choose_points(tracked, {});
  ASSERT_FALSE(mixed);
  EXPECT_EQ(mixed.error().code, ExitCode::usage);
  EXPECT_THAT(mixed.error().message, ::testing::HasSubstr("host-a, host-b"));
  EXPECT_THAT(mixed.error().message, ::testing::HasSubstr("--all-hosts"));

  HistoryOptions all;
  all.all_hosts = true;
  EXPECT_EQ(choose_points(tracked, all)->size(), 3U);
  HistoryOptions one;
  one.host = "host-a";
  EXPECT_EQ(choose_points(tracked, one)->size(), 2U);
}

TEST(HistorySeries, TheRecipeTrackedLastStandsForACommit) {
  const std::vector<TrackedPoint> tracked = {point("c1", "h", "old", 1), point("c1", "h", "new", 5),
                                             point("c2", "h", "old", 2)};
  const auto chosen = choose_points(tracked, {});
  ASSERT_TRUE(chosen);
  ASSERT_EQ(chosen->size(), 2U);
  EXPECT_EQ((*chosen)[0].recipe_hash, "new");
  EXPECT_EQ((*chosen)[1].commit, "c2");
}

TEST(HistorySeries, NothingMeasuredIsAUsageError) {
  FakeRig rig;
  const auto history = load_history(rig.store(), {point("c1", "fake-host", "r", 1)}, {});
  ASSERT_FALSE(history);
  EXPECT_EQ(history.error().code, ExitCode::usage);
  EXPECT_THAT(history.error().message, ::testing::HasSubstr("culprit track"));
}

} // namespace
} // namespace culprit::history
