#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/history/ledger.hpp"
#include "core/history/track.hpp"
#include "tests/support/fake_measure.hpp"
#include "tests/support/simulated_history.hpp"

namespace culprit::history {
namespace {

using ::testing::ElementsAre;
using testing::fake_case;
using testing::FakeBuildProvider;
using testing::FakeRig;
using testing::SimulatedHistory;
using testing::TempDir;

std::vector<std::string> ids(const std::vector<RangeCommit>& commits) {
  std::vector<std::string> out;
  for (const auto& c : commits)
    out.push_back(c.id);
  return out;
}

std::vector<RangeCommit> chain(int n) {
  std::vector<RangeCommit> commits;
  for (int i = 0; i < n; ++i)
    commits.push_back({fmt::format("c{}", i), 1000 + (i * 100)});
  return commits;
}

TEST(TrackSelection, EveryNthCountsFromTheOldestAndKeepsTheNewest) {
  EXPECT_THAT(ids(select_commits(chain(7), {.every = 3})), ElementsAre("c0", "c3", "c6"));
  EXPECT_THAT(ids(select_commits(chain(8), {.every = 3})), ElementsAre("c0", "c3", "c6", "c7"));
  // A range that grew at its tip keeps the commits it had chosen.
  EXPECT_THAT(ids(select_commits(chain(9), {.every = 3})), ElementsAre("c0", "c3", "c6", "c8"));
  EXPECT_THAT(ids(select_commits(chain(3), {})), ElementsAre("c0", "c1", "c2"));
}

TEST(TrackSelection, SinceDropsOlderCommits) {
  EXPECT_THAT(ids(select_commits(chain(5), {.every = 1, .since = 1200})),
              ElementsAre("c2", "c3", "c4"));
  EXPECT_TRUE(select_commits(chain(5), {.every = 1, .since = 99999}).empty());
}

TEST(TrackSelection, ParsesDatesInUtcOrWithAnOffset) {
  EXPECT_EQ(parse_since("1970-01-02").value(), 86400);
  EXPECT_EQ(parse_since("2026-01-31T12:00:00Z").value(), 1769860800);
  EXPECT_EQ(parse_since("2026-01-31T12:00").value(), 1769860800);
  EXPECT_EQ(parse_since("2026-01-31T13:00:00+01:00").value(), 1769860800);
  EXPECT_EQ(parse_since("2026-01-31 10:30-0130").value(), 1769860800);
  EXPECT_EQ(parse_since("2026-01-31Z").value(), 1769817600);
  for (const auto* bad :
       {"yesterday", "2026-02-30", "2026-1-1", "", "2026-01-31T25:00", "2026-01-31T12",
        "2026-01-31T12:00+1", "2026-01-31 and more", "2026-01-31T12:00:00+01:00x"}) {
    const auto parsed = parse_since(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().code, ExitCode::usage);
  }
}

struct Rig {
  FakeRig rig;
  TempDir dir{"culprit-track"};
  Ledger ledger = Ledger::open_in(dir.path()).value();
  FakeBuildProvider builds;
};

TEST(Track, MeasuresEachCommitOnceAndRecordsItInTheLedger) {
  SimulatedHistory simulated(6, {fake_case("k", 1e-3)});
  Rig r;
  simulated.install(r.rig.executor());
  auto first = track_commits(simulated.range(), r.builds, r.rig.sampler(), r.ledger,
                             {.runs = 4, .chunk = 4});
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->measured, 6U);
  EXPECT_EQ(r.rig.executor().run_count("c0003"), 4);
  const auto tracked = r.ledger.tracked().value();
  ASSERT_EQ(tracked.size(), 6U);
  EXPECT_EQ(tracked[0].commit, "c0000");
  EXPECT_EQ(tracked[0].artifact_id, "artifact-c0000");
  EXPECT_EQ(tracked[0].host_id, "fake-host");
  EXPECT_EQ(tracked[0].recipe_hash, "fake-recipe");
  EXPECT_EQ(tracked[5].commit_time, simulated.range()[5].time);

  // A nightly run over the same range: nothing new to measure.
  auto again =
      track_commits(simulated.range(), r.builds, r.rig.new_sampler(), r.ledger, {.runs = 4});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->runs_made, 0);
  EXPECT_EQ(r.rig.executor().total_runs(), 24);
  EXPECT_EQ(r.ledger.tracked()->size(), 6U);
}

TEST(Track, SkipsCommitsThatDoNotBuild) {
  SimulatedHistory simulated(4, {fake_case("k", 1e-3)});
  Rig r;
  simulated.install(r.rig.executor());
  r.builds.fail("c0002");
  auto outcome = track_commits(simulated.range(), r.builds, r.rig.sampler(), r.ledger, {.runs = 2});
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->measured, 3U);
  EXPECT_EQ(outcome->failed_builds, 1U);
  EXPECT_FALSE(outcome->commits[2].measured);
  EXPECT_EQ(r.ledger.tracked()->size(), 3U);
}

// An anchor that no longer builds was not measured again: the session is not anchored on it.
TEST(Track, AnAnchorThatDidNotBuildIsNotCalledMeasuredAgain) {
  SimulatedHistory simulated(6, {fake_case("k", 1e-3)});
  Rig r;
  simulated.install(r.rig.executor());
  const auto range = simulated.range();
  const std::vector<RangeCommit> first(range.begin(), range.begin() + 4);
  ASSERT_TRUE(
      track_commits(first, r.builds, r.rig.new_session_sampler("track:1"), r.ledger, {.runs = 2}));
  r.builds.fail("c0003");
  auto outcome = track_commits(range, r.builds, r.rig.new_session_sampler("track:2"), r.ledger,
                               {.runs = 2, .anchors = 1});
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->measured, 2U);
  EXPECT_TRUE(outcome->anchors.empty()) << "c0003 was not measured in this session";
  EXPECT_THAT(outcome->anchors_not_measured, ElementsAre("c0003"));
}

TEST(Track, NothingBuildingIsAnInfrastructureError) {
  SimulatedHistory simulated(2, {fake_case("k", 1e-3)});
  Rig r;
  simulated.install(r.rig.executor());
  r.builds.fail("c0000");
  r.builds.fail("c0001");
  auto outcome = track_commits(simulated.range(), r.builds, r.rig.sampler(), r.ledger, {.runs = 2});
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ExitCode::infrastructure);
  EXPECT_THAT(outcome.error().message, ::testing::HasSubstr("none of the 2 new commits built"));
}

TEST(Track, SaysWhichCasesASharedMachineSlowedInBursts) {
  SimulatedHistory simulated(4, {fake_case("k", 1e-3)});
  Rig r;
  simulated.install(r.rig.executor());
  FakeMachine machine;
  machine.slow_share = 0.5;
  r.rig.executor().set_machine(machine);
  auto outcome = track_commits(simulated.range(), r.builds, r.rig.sampler(), r.ledger, {.runs = 4});
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(outcome->noise.size(), 1U);
  EXPECT_EQ(outcome->noise[0].case_name, "k");
  EXPECT_THAT(outcome->noise[0].summary, ::testing::HasSubstr("two speed states"));
  EXPECT_EQ(outcome->noise[0].measured, 4U);
  EXPECT_GE(outcome->noise[0].affected, 3U);

  // A quiet machine: nothing to say.
  Rig quiet;
  simulated.install(quiet.rig.executor());
  auto calm = track_commits(simulated.range(), quiet.builds, quiet.rig.sampler(), quiet.ledger,
                            {.runs = 4});
  ASSERT_TRUE(calm) << calm.error().message;
  EXPECT_TRUE(calm->noise.empty());
}

TEST(TrackPlan, AnchorsNearestBeforeTheNewCommits) {
  const auto commits = chain(10);
  std::vector<TrackedPoint> tracked;
  for (int i : {0, 2, 4, 6})
    tracked.push_back({.commit = fmt::format("c{}", i),
                       .host_id = "h",
                       .recipe_hash = "r",
                       .artifact_id = fmt::format("a{}", i),
                       .source = "track",
                       .file = {},
                       .commit_time = commits[static_cast<std::size_t>(i)].time,
                       .tracked_at = {},
                       .sessions = {}});
  tracked.push_back({.commit = "c5",
                     .host_id = "other",
                     .recipe_hash = "r",
                     .artifact_id = "x",
                     .source = "track",
                     .file = {},
                     .commit_time = commits[5].time,
                     .tracked_at = {},
                     .sessions = {}});
  const std::vector<RangeCommit> selection(commits.begin() + 4, commits.end());
  auto plan = plan_track(selection, tracked, "h", "r", {.anchors = 2});
  EXPECT_THAT(plan.anchors, ::testing::ElementsAre("c2", "c4"))
      << "the tracked commits nearest before c5, the first new one (c5 of host 'other' is new)";
  EXPECT_EQ(plan.already_tracked, 2U) << "c4 and c6";
  std::vector<std::string> order;
  for (const auto& commit : plan.commits)
    order.push_back(commit.id);
  EXPECT_THAT(order, ::testing::ElementsAre("c2", "c4", "c5", "c7", "c8", "c9"));
  // Backfilling older commits: the anchor is the nearest tracked commit after them.
  const std::vector<TrackedPoint> later(tracked.begin() + 2, tracked.begin() + 4); // c4, c6
  plan =
      plan_track(std::vector<RangeCommit>{commits[1], commits[2]}, later, "h", "r", {.anchors = 1});
  EXPECT_THAT(plan.anchors, ::testing::ElementsAre("c4"));
  EXPECT_TRUE(plan_track(selection, tracked, "h", "r", {.anchors = 0}).anchors.empty());
  EXPECT_TRUE(plan_track(selection, tracked, "nobody", "r", {}).anchors.empty());
  EXPECT_TRUE(
      plan_track(std::vector<RangeCommit>{commits[4]}, tracked, "h", "r", {}).commits.empty())
      << "nothing new: no anchor either";
}

TEST(Ledger, RemembersHandledChangesAndImportsPerHost) {
  TempDir dir("culprit-ledger");
  {
    auto ledger = Ledger::open_in(dir.path());
    ASSERT_TRUE(ledger) << ledger.error().message;
    ASSERT_TRUE(ledger->record_handled(
        {"h1", "k", "time", "c1", "c2", "culprit_found", "c2", store::now()}));
    ASSERT_TRUE(ledger->record_import("c1", "h1", "hash", "bench.json"));
  }
  auto ledger = Ledger::open_in(dir.path());
  ASSERT_TRUE(ledger);
  const auto handled = ledger->handled("h1").value();
  ASSERT_EQ(handled.size(), 1U);
  EXPECT_EQ(handled[0].culprit, "c2");
  EXPECT_TRUE(ledger->handled("h2")->empty());
  EXPECT_TRUE(ledger->was_imported("c1", "h1", "hash").value());
  EXPECT_FALSE(ledger->was_imported("c1", "h2", "hash").value());
}

TEST(Ledger, RefusesAFileOfAnotherProgram) {
  TempDir dir("culprit-ledger");
  {
    auto db = store::sql::Database::open_sqlite(dir.path() / k_ledger_file_name);
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->execute("PRAGMA application_id = 7; CREATE TABLE t (x)"));
  }
  const auto ledger = Ledger::open_in(dir.path());
  ASSERT_FALSE(ledger);
  EXPECT_EQ(ledger.error().code, ExitCode::infrastructure);
  EXPECT_THAT(ledger.error().message, ::testing::HasSubstr("not a culprit history ledger"));
}

} // namespace
} // namespace culprit::history
