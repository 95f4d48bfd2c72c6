// Triage's search kept from one night to the next: which points a search takes again, what the
// ledger keeps of the last one, and a ledger of version 5 taken up to keep it.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/history/ledger.hpp"
#include "core/history/search_window.hpp"
#include "core/history/track.hpp"
#include "core/store/sql.hpp"
#include "tests/core/store/store_fixture.hpp"
#include "tests/support/fake_measure.hpp"
#include "tests/support/simulated_history.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit::history {
namespace {

using ::testing::HasSubstr;

// `count` points of one host, each commit with an artifact of its own.
std::vector<TrackedPoint> points_of(std::size_t count) {
  std::vector<TrackedPoint> points;
  for (std::size_t i = 0; i < count; ++i)
    points.push_back({.commit = "c" + std::to_string(i),
                      .host_id = "host",
                      .recipe_hash = "recipe",
                      .artifact_id = "a" + std::to_string(i),
                      .source = "import",
                      .file = "night.json",
                      .commit_time = static_cast<std::int64_t>(i),
                      .tracked_at = store::from_micros(static_cast<std::int64_t>(i)),
                      .sessions = {}});
  return points;
}

TEST(SearchWindow, AHistoryNeverSearchedIsSearchedWholeAndSaysWhyWhenLong) {
  const auto short_one = plan_search(points_of(k_search_context), std::nullopt);
  EXPECT_TRUE(short_one.whole());
  EXPECT_EQ(short_one.points, k_search_context);
  EXPECT_EQ(short_one.why_whole, "") << "a history no longer than the window has nothing to keep";
  const auto long_one = plan_search(points_of(200), std::nullopt);
  EXPECT_TRUE(long_one.whole());
  EXPECT_FALSE(long_one.since);
  EXPECT_THAT(long_one.why_whole, HasSubstr("no triage searched this history before"));
  // A triage that saw a short history settled nothing; when it has grown, all is searched.
  const auto none_settled = settled_by_search("scope", points_of(30));
  EXPECT_EQ(none_settled.points, 0U);
  const auto grown = plan_search(points_of(60), none_settled);
  EXPECT_TRUE(grown.whole());
  EXPECT_THAT(grown.why_whole,
              HasSubstr("settled no point (it saw 48 points of the series or fewer"));
}

TEST(SearchWindow, ANightAppendedIsSearchedWithTheContextBeforeIt) {
  auto points = points_of(200);
  const auto settled = settled_by_search("scope", points);
  EXPECT_EQ(settled.points, 200 - k_search_context);
  EXPECT_EQ(settled.digest, points_digest(std::span(points).first(settled.points)));
  points.push_back(points_of(201).back());
  const auto window = plan_search(points, settled);
  EXPECT_EQ(window.first, 200 - k_search_context);
  EXPECT_EQ(window.points, 201U);
  ASSERT_TRUE(window.since);
  EXPECT_EQ(window.since->searched_at, settled.searched_at);
  EXPECT_EQ(window.why_whole, "");
  // Searched again with nothing new: the same window.
  EXPECT_EQ(plan_search(std::span(points).first(200), settled).first, 200 - k_search_context);
}

TEST(SearchWindow, ASettledPointThatChangedMakesTheSearchWhole) {
  auto points = points_of(200);
  const auto settled = settled_by_search("scope", points);
  auto tracked_again = points;
  tracked_again[10].tracked_at = store::from_micros(1'000'000); // imported again
  auto measured_again = points;
  measured_again[20].sessions.push_back({.id = "track:later", .artifact_id = "a20", .at = {}});
  auto inserted = points;
  inserted.insert(inserted.begin() + 5, points_of(300).back());
  auto rebuilt = points;
  rebuilt[30].artifact_id = "other";
  for (const auto& changed : {tracked_again, measured_again, inserted, rebuilt}) {
    const auto window = plan_search(changed, settled);
    EXPECT_TRUE(window.whole());
    EXPECT_FALSE(window.since);
    EXPECT_THAT(window.why_whole, HasSubstr("are no longer the history's first ones"));
  }
  // Fewer points than were settled: removed ones.
  EXPECT_TRUE(plan_search(std::span(points).first(100), settled).whole());
  // A change among the newest points, which the next search takes again anyway, keeps the rest.
  auto newest_again = points;
  newest_again[190].sessions.push_back({.id = "track:later", .artifact_id = "a190", .at = {}});
  EXPECT_EQ(plan_search(newest_again, settled).first, settled.points);
}

// The context counts points of the series, and neighbouring commits with the same artifact are
// one: what is settled never ends inside one, and 48 rows of the ledger may be fewer points.
TEST(SearchWindow, TheContextCountsPointsOfTheSeries) {
  auto points = points_of(100);
  // Commits 49 to 53 share an artifact: one point of the series, so 96 points in all.
  for (std::size_t i = 49; i <= 53; ++i)
    points[i].artifact_id = "shared";
  // 46 points after the shared one, the shared one, and three more: back to commit 46.
  EXPECT_EQ(settled_by_search("scope", points, {}, 50).points, 46U);
  EXPECT_EQ(settled_by_search("scope", points, {}, 47).points, 49U);
  EXPECT_EQ(settled_by_search("scope", points, {}, 46).points, 54U);
  EXPECT_EQ(settled_by_search("scope", points, {}, 96).points, 0U);
  EXPECT_EQ(settled_by_search("scope", points, {}, 0).points, 100U);
}

// A change point the triage left open (inconclusive, or its commits did not build) is tried again
// by the next one: nothing from the context before it is settled.
TEST(SearchWindow, NothingIsSettledNearAChangePointLeftOpen) {
  const auto points = points_of(200);
  const std::vector<std::string> open = {"c120"};
  EXPECT_EQ(settled_by_search("scope", points, open).points, 121 - k_search_context);
  const std::vector<std::string> two = {"c150", "c60", "not-a-tracked-commit"};
  EXPECT_EQ(settled_by_search("scope", points, two).points, 61 - k_search_context);
  const std::vector<std::string> early = {"c10"};
  EXPECT_EQ(settled_by_search("scope", points, early).points, 0U);
  EXPECT_EQ(settled_by_search("scope", points, early).digest, points_digest({}));
}

TEST(SearchWindow, TheScopeTellsSearchesThatMayFindOtherThingsApart) {
  HistoryOptions base;
  base.host = "host";
  auto threshold = base;
  threshold.change.min_change = 0.05;
  auto host = base;
  host.host = "other";
  auto cases = base;
  cases.case_globs = {"gemm*"};
  auto metric = base;
  metric.metric = "instructions";
  EXPECT_EQ(search_scope(base), search_scope(HistoryOptions(base)));
  for (const auto& other : {threshold, host, cases, metric})
    EXPECT_NE(search_scope(other), search_scope(base));
  // A triage that leaves improvements alone settles points whose improvements nobody bisected.
  EXPECT_NE(search_scope(base, false), search_scope(base, true));
}

// A search of the window finds what a search of the whole history finds there: the step among
// the new points at the same commit and nearly the same ratio. The step among the settled points
// is not looked for again: the triage that searched them found it.
TEST(SearchWindow, TheWindowFindsTheNewStepsTheWholeSearchFinds) {
  testing::SimulatedHistory simulated(
      120, {testing::fake_case("sgemm", 1e-3), testing::fake_case("saxpy", 2e-4)});
  simulated.plant("saxpy", 40, 1.15);
  simulated.plant("sgemm", 110, 1.10);
  testing::FakeRig rig;
  testing::TempDir dir{"culprit-search-window"};
  auto ledger = Ledger::open_in(dir.path()).value();
  testing::FakeBuildProvider builds;
  simulated.install(rig.executor());
  ASSERT_TRUE(track_commits(select_commits(simulated.range(), {}), builds, rig.sampler(), ledger,
                            {.runs = 5}));
  const auto points = choose_points(ledger.tracked().value(), {}).value();
  ASSERT_EQ(points.size(), 120U);
  const auto whole = load_history(rig.store(), points, {}).value();
  ASSERT_EQ(whole.change_points.size(), 2U);

  // Last night's triage saw the first 100 points.
  const auto settled = settled_by_search("scope", std::span(points).first(100));
  const auto window = plan_search(points, settled);
  ASSERT_EQ(window.first, 100 - k_search_context);
  const std::vector<TrackedPoint> taken(points.begin() + static_cast<std::ptrdiff_t>(window.first),
                                        points.end());
  const auto searched = load_history(rig.store(), taken, {}).value();
  ASSERT_EQ(searched.change_points.size(), 1U);
  const auto& found = searched.change_points[0];
  const auto& expected =
      whole.change_points[0].case_name == "sgemm" ? whole.change_points[0] : whole.change_points[1];
  EXPECT_EQ(found.case_name, "sgemm");
  EXPECT_EQ(found.commit, expected.commit);
  EXPECT_EQ(found.before, expected.before);
  EXPECT_EQ(found.index + window.first, expected.index);
  EXPECT_NEAR(found.ratio, expected.ratio, 0.01);
  EXPECT_NEAR(found.ratio, 1.10, 0.02);
}

// Nightly tracking: each night a session of its own, measuring the new commits and an anchor, a
// commit tracked the night before. The anchor is among the newest points, which the next search
// takes again, so the settled ones stay as they were; and the window holds both sessions with the
// anchor that ties them, so a second night 8% slower is no change point there either.
TEST(SearchWindow, ANightOfTrackingLeavesTheSettledPointsAlone) {
  testing::SimulatedHistory first_night(62, {testing::fake_case("k", 1e-3, 0.01)});
  testing::SimulatedHistory second_night(62, {testing::fake_case("k", 1e-3, 0.01)});
  testing::FakeRig rig;
  testing::TempDir dir{"culprit-search-nights"};
  auto ledger = Ledger::open_in(dir.path()).value();
  testing::FakeBuildProvider builds;
  const auto range = first_night.range();
  first_night.install(rig.executor());
  ASSERT_TRUE(track_commits({range.begin(), range.begin() + 60}, builds,
                            rig.new_session_sampler("track:night-1"), ledger, {.runs = 5}));
  const auto before = choose_points(ledger.tracked().value(), {}).value();
  const auto settled = settled_by_search("scope", before);
  ASSERT_EQ(settled.points, 60 - k_search_context);

  second_night.install(rig.executor(), 1.08);
  const auto two =
      track_commits(range, builds, rig.new_session_sampler("track:night-2"), ledger, {.runs = 5});
  ASSERT_TRUE(two) << two.error().message;
  ASSERT_EQ(two->anchors.size(), 1U);
  const auto after = choose_points(ledger.tracked().value(), {}).value();
  ASSERT_EQ(after.size(), 62U);
  const auto window = plan_search(after, settled);
  ASSERT_EQ(window.first, settled.points) << window.why_whole;
  const std::vector<TrackedPoint> taken(after.begin() + static_cast<std::ptrdiff_t>(window.first),
                                        after.end());
  const auto searched = load_history(rig.store(), taken, {}).value();
  ASSERT_EQ(searched.series.size(), 1U);
  EXPECT_EQ(searched.series[0].sessions.size(), 2U);
  EXPECT_TRUE(searched.change_points.empty());
}

class SearchLedger : public ::testing::TestWithParam<store::sql::Dialect> {
protected:
  void SetUp() override { CULPRIT_STORE_LOCATION(m_backend, GetParam(), m_where); }
  Ledger open() { return Ledger::open_at(m_where).value(); }

  store::testing::Backend m_backend;
  store::Location m_where;
};

TEST_P(SearchLedger, KeepsTheLastSearchOfEachScope) {
  auto ledger = open();
  EXPECT_FALSE(ledger.last_search("scope-a").value());
  const SearchMark first{.scope = "scope-a",
                         .points = 152,
                         .digest = "d1",
                         .searched_at = store::from_micros(1'000'000)};
  ASSERT_TRUE(ledger.record_search(first));
  ASSERT_TRUE(ledger.record_search({.scope = "scope-b",
                                    .points = 3,
                                    .digest = "d2",
                                    .searched_at = store::from_micros(2'000'000)}));
  auto next = first;
  next.points = 153;
  next.digest = "d3";
  next.searched_at = store::from_micros(3'000'000);
  ASSERT_TRUE(ledger.record_search(next));
  const auto held = open().last_search("scope-a").value();
  ASSERT_TRUE(held);
  EXPECT_EQ(held->points, 153U);
  EXPECT_EQ(held->digest, "d3");
  EXPECT_EQ(held->searched_at, next.searched_at);
  EXPECT_EQ(open().last_search("scope-b").value()->points, 3U);
}

// A ledger of version 5 (before searches were kept) is taken up to version 6 when opened, on
// either backend, and keeps searches from then on.
TEST_P(SearchLedger, ALedgerOfVersionFiveIsTakenUp) {
  {
    auto created = open();
  }
  {
    auto db = GetParam() == store::sql::Dialect::sqlite
                  ? store::sql::Database::open_sqlite(m_where.cache_dir / k_ledger_file_name)
                  : store::sql::Database::open_postgres(m_where.url);
    ASSERT_TRUE(db) << db.error().message;
    ASSERT_TRUE(db->execute("DROP TABLE searches"));
    ASSERT_TRUE(db->execute(GetParam() == store::sql::Dialect::sqlite
                                ? "PRAGMA user_version = 5"
                                : "UPDATE culprit_schema SET version = 5 WHERE component = "
                                  "'ledger'"));
  }
  auto ledger = open();
  ASSERT_TRUE(ledger.record_search({.scope = "s", .points = 1, .digest = "d", .searched_at = {}}));
  EXPECT_TRUE(ledger.last_search("s").value());
  if (GetParam() == store::sql::Dialect::postgres) {
    auto db = store::sql::Database::open_postgres(m_where.url).value();
    auto version = db.prepare("SELECT version FROM culprit_schema WHERE component = 'ledger'");
    ASSERT_TRUE(version);
    ASSERT_TRUE(version->step().value());
    EXPECT_EQ(version->column_int64(0), 6);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, SearchLedger,
                         ::testing::Values(store::sql::Dialect::sqlite,
                                           store::sql::Dialect::postgres),
                         store::testing::backend_name);

} // namespace
} // namespace culprit::history
