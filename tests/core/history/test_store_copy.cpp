// culprit store copy: a history moved between SQLite and PostgreSQL, both ways, whole, once.
#include "core/history/store_copy.hpp"

#include <gtest/gtest.h>

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

TEST_F(StoreCopy, CopyingAStoreOntoItselfIsRefused) {
  const auto refused = copy_store(m_shared, m_shared);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ExitCode::usage);
}

} // namespace
} // namespace culprit::history
