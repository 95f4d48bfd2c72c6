// culprit store copy: a history moved between SQLite and PostgreSQL, both ways, whole, once.
#include "core/history/store_copy.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/history/ledger.hpp"
#include "tests/core/store/store_fixture.hpp"

namespace culprit::history {
namespace {

using culprit::testing::PostgresServer;
using store::testing::k_key;
using store::testing::make_host;
using store::testing::make_run;

// Fills the store and ledger at `where` with a small history: two hosts, `runs` runs (one a
// warm-up), peaks, a tracked commit with a session, and a regression with an event.
void fill(const store::Location& where, int runs) {
  auto opened = store::Store::open_at(where);
  ASSERT_TRUE(opened) << opened.error().message;
  auto& results = *opened;
  ASSERT_TRUE(results.record_host(make_host(k_key.host_id)));
  ASSERT_TRUE(results.record_host(make_host("host-2")));
  for (int i = 0; i < runs; ++i) {
    auto run = make_run(k_key, {1.0 + i, 2.0 + i, 0.1 * i});
    run.started += std::chrono::microseconds(i);
    run.warmup = i == 0;
    run.session = "s1";
    run.block = i % 2 == 0 ? std::optional<std::string>("b1") : std::nullopt;
    ASSERT_TRUE(results.record_run(run));
  }
  ASSERT_TRUE(results.save_peaks({.host_id = k_key.host_id,
                                  .scope = "cpu",
                                  .device = "test cpu",
                                  .flops_per_second = 1e11,
                                  .tensor_flops_per_second = std::nullopt,
                                  .bytes_per_second = 2e10,
                                  .source = "measured",
                                  .measured = store::now()}));
  auto opened_ledger = Ledger::open_at(where);
  ASSERT_TRUE(opened_ledger) << opened_ledger.error().message;
  auto& ledger = *opened_ledger;
  const TrackedPoint point{.commit = "c1",
                           .host_id = k_key.host_id,
                           .recipe_hash = k_key.recipe_hash,
                           .artifact_id = k_key.artifact_id,
                           .source = "track",
                           .file = "",
                           .commit_time = 1'700'000'000,
                           .tracked_at = store::now(),
                           .sessions = {}};
  ASSERT_TRUE(ledger.record_tracked(point));
  ASSERT_TRUE(ledger.record_session(point, "s1"));
  Regression found{.id = regression_id(k_key.host_id, "c1"),
                   .host_id = k_key.host_id,
                   .culprit = "c1",
                   .subject = "Slower",
                   .author = "A. U. Thor",
                   .cases = {},
                   .owners = {"@kernels"},
                   .evidence = {"/tmp/e.json"},
                   .first_seen = store::now(),
                   .last_seen = store::now()};
  const auto recorded = ledger.record_regression(found, "triage");
  ASSERT_TRUE(recorded) << recorded.error().message;
}

struct Seen {
  std::vector<std::vector<double>> samples;
  store::RunCounts counts;
  std::size_t tracked = 0;
  std::size_t sessions = 0;
  std::size_t regressions = 0;
  std::size_t events = 0;
  bool peaks = false;
};

// The value of `result`, or (a failure said) T's default.
template <class T> T must(Result<T> result, std::string_view what) {
  if (result)
    return std::move(*result);
  ADD_FAILURE() << what << ": " << result.error().message;
  return T{};
}

Seen look(const store::Location& where) {
  Seen seen;
  auto results = store::Store::open_at(where);
  if (!results) {
    ADD_FAILURE() << results.error().message;
    return seen;
  }
  seen.samples = must(results->counted_runs(k_key, "sgemm/4096", "time"), "runs").samples;
  seen.counts = must(results->count_runs(k_key), "counts");
  seen.peaks = must(results->find_peaks(k_key.host_id, "cpu"), "peaks").has_value();
  auto ledger = Ledger::open_at(where);
  if (!ledger) {
    ADD_FAILURE() << ledger.error().message;
    return seen;
  }
  const auto tracked = must(ledger->tracked(), "tracked");
  seen.tracked = tracked.size();
  for (const auto& point : tracked)
    seen.sessions += point.sessions.size();
  const auto regressions = must(ledger->regressions(), "regressions");
  seen.regressions = regressions.size();
  for (const auto& regression : regressions)
    seen.events += regression.events.size();
  return seen;
}

class StoreCopy : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why_not;
    m_server = PostgresServer::shared(&why_not);
    CULPRIT_POSTGRES_OR_SKIP(m_server, why_not);
    m_local = {.cache_dir = m_dir / "local", .url = {}};
    m_back = {.cache_dir = m_dir / "back", .url = {}};
    auto url = m_server->fresh_database();
    ASSERT_TRUE(url) << url.error().message;
    m_shared = {.cache_dir = m_dir / "unused", .url = *url};
  }

  PostgresServer* m_server = nullptr;
  culprit::testing::TempDir m_dir;
  store::Location m_local, m_shared, m_back;
};

TEST_F(StoreCopy, AHistoryGoesToPostgresAndBackWholeAndASecondCopyCopiesNothing) {
  fill(m_local, 7);
  const auto there = copy_store(m_local, m_shared);
  ASSERT_TRUE(there) << there.error().message;
  EXPECT_EQ(there->runs_copied, 7);
  EXPECT_EQ(there->runs_present, 0);

  const auto again = copy_store(m_local, m_shared);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->runs_copied, 0);
  EXPECT_EQ(again->rows_copied, 0);
  EXPECT_EQ(again->runs_present, 7);

  const auto back = copy_store(m_shared, m_back);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->runs_copied, 7);

  const auto original = look(m_local);
  for (const auto& where : {m_shared, m_back}) {
    const auto copy = look(where);
    EXPECT_EQ(copy.samples, original.samples) << where.describe();
    EXPECT_EQ(copy.counts.counted, 6);
    EXPECT_EQ(copy.counts.warmup, 1);
    EXPECT_EQ(copy.tracked, 1U);
    EXPECT_EQ(copy.sessions, 1U);
    EXPECT_EQ(copy.regressions, 1U);
    EXPECT_EQ(copy.events, original.events);
    EXPECT_TRUE(copy.peaks);
  }
}

TEST_F(StoreCopy, AnInterruptedCopyKeepsItsBatchesAndTheSameCommandGoesOn) {
  fill(m_local, 9);
  CopyOptions stop_after_one{.batch = 4, .on_batch = [](const CopyCounts&) { return false; }};
  const auto stopped = copy_store(m_local, m_shared, stop_after_one);
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().code, ExitCode::interrupted);
  EXPECT_EQ(look(m_shared).counts.counted + look(m_shared).counts.warmup, 4);

  const auto resumed = copy_store(m_local, m_shared, {.batch = 4, .on_batch = {}});
  ASSERT_TRUE(resumed) << resumed.error().message;
  EXPECT_EQ(resumed->runs_present, 4);
  EXPECT_EQ(resumed->runs_copied, 5);
  EXPECT_EQ(look(m_shared).samples, look(m_local).samples);
}

// The source and target hold the record of one regression, each with events of its own: the
// target's record keeps its events, and none of the source's is grafted onto it.
void expect_regression_kept(const store::Location& from, const store::Location& to) {
  fill(from, 1);
  fill(to, 1);
  const auto id = regression_id(k_key.host_id, "c1");
  {
    auto ledger = Ledger::open_at(to);
    ASSERT_TRUE(ledger) << ledger.error().message;
    ASSERT_TRUE(
        ledger->transition(id, RegressionState::bisected,
                           {store::now(), RegressionState::acknowledged, "ada", "mine", ""}));
  }
  const auto copied = copy_store(from, to);
  ASSERT_TRUE(copied) << copied.error().message;
  auto ledger = Ledger::open_at(to);
  ASSERT_TRUE(ledger) << ledger.error().message;
  const auto held = ledger->regression(id);
  ASSERT_TRUE(held && *held) << (held ? "none" : held.error().message);
  EXPECT_EQ((*held)->state, RegressionState::acknowledged);
  ASSERT_EQ((*held)->events.size(), 2U);
  EXPECT_EQ((*held)->events[1].note, "mine");
}

// A target whose ledger the target's culprit refuses (a newer one's): the copy is refused before
// it makes anything there.
void expect_refused_target_left_alone(const store::Location& from, const store::Location& to) {
  fill(from, 1);
  {
    auto ledger = Ledger::open_at(to);
    ASSERT_TRUE(ledger) << ledger.error().message;
  }
  {
    auto db = to.shared() ? store::sql::Database::open_postgres(to.url)
                          : store::sql::Database::open_sqlite(to.cache_dir / k_ledger_file_name);
    ASSERT_TRUE(db) << db.error().message;
    ASSERT_TRUE(db->execute(to.shared() ? "UPDATE culprit_schema SET version = 99 WHERE "
                                          "component = 'ledger'"
                                        : "PRAGMA user_version = 99"));
  }
  const auto refused = copy_store(from, to);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ExitCode::infrastructure);
  EXPECT_NE(refused.error().message.find("newer culprit"), std::string::npos)
      << refused.error().message;
  if (!to.shared()) {
    EXPECT_FALSE(std::filesystem::exists(to.cache_dir / store::k_store_file_name));
    return;
  }
  auto db = store::sql::Database::open_postgres(to.url);
  ASSERT_TRUE(db) << db.error().message;
  auto runs = db->prepare("SELECT to_regclass('runs') IS NULL");
  ASSERT_TRUE(runs);
  ASSERT_TRUE(runs->step().value());
  EXPECT_TRUE(runs->column_bool(0)) << "the store's tables were made";
}

TEST_F(StoreCopy, ARegressionTheTargetHoldsKeepsItsOwnEvents) {
  expect_regression_kept(m_local, m_shared);
}

TEST_F(StoreCopy, ARefusedCopyLeavesTheTargetAsItWas) {
  expect_refused_target_left_alone(m_local, m_shared);
}

TEST(StoreCopyFiles, ARegressionTheTargetHoldsKeepsItsOwnEvents) {
  culprit::testing::TempDir dir("culprit-copy-kept");
  expect_regression_kept({.cache_dir = dir / "a", .url = {}}, {.cache_dir = dir / "b", .url = {}});
}

TEST(StoreCopyFiles, ARefusedCopyLeavesTheTargetAsItWas) {
  culprit::testing::TempDir dir("culprit-copy-refused");
  expect_refused_target_left_alone({.cache_dir = dir / "a", .url = {}},
                                   {.cache_dir = dir / "b", .url = {}});
}

TEST(StoreCopyFiles, ItsCountsAreInTheNumberTheyNeed) {
  culprit::testing::TempDir dir("culprit-copy-counts");
  const store::Location from{.cache_dir = dir / "a", .url = {}};
  fill(from, 1);
  const auto stopped =
      copy_store(from, {.cache_dir = dir / "b", .url = {}},
                 {.batch = 1, .on_batch = [](const CopyCounts&) { return false; }});
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().code, ExitCode::interrupted);
  EXPECT_EQ(stopped.error().message,
            "interrupted after 1 run; the same command goes on from there");
}

TEST(StoreCopySummary, SaysEachCountInTheNumberItNeeds) {
  EXPECT_EQ(copy_summary({.runs_copied = 1, .runs_present = 0, .rows_copied = 1, .rows_present = 1},
                         "A", "B"),
            "copied 1 run and 1 other row from A to B (0 runs and 1 row was there already)");
  EXPECT_EQ(
      copy_summary({.runs_copied = 1200, .runs_present = 2, .rows_copied = 37, .rows_present = 0},
                   "A", "B"),
      "copied 1200 runs and 37 other rows from A to B (2 runs and 0 rows were there "
      "already)");
}

TEST_F(StoreCopy, CopyingAStoreOntoItselfIsRefused) {
  const auto refused = copy_store(m_shared, m_shared);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ExitCode::usage);
}

} // namespace
} // namespace culprit::history
