#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/history/series.hpp"
#include "core/history/track.hpp"
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

TEST(HistorySeries, AFasterThroughputIsAnImprovement) {
  SimulatedHistory simulated(40, {fake_case("copy", 1e9, 0.01, Direction::higher_is_better)});
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
  Series series{"k", "time", "s", Direction::lower_is_better, {}};
  for (int i = 0; i < 40; ++i) {
    const double wiggle = (i % 2 == 0 ? 1.0005 : 0.9995);
    series.points.push_back(
        {fmt::format("c{:04}", i), "h", "track", (i < 20 ? 1.0 : 1.01) * wiggle, {1, 1}, 5});
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

TrackedPoint point(const std::string& commit, const std::string& host, const std::string& recipe,
                   std::int64_t tracked_micros) {
  return {commit, host, recipe, "a-" + commit, "track", {}, 0, store::from_micros(tracked_micros)};
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
