// The store on a real PostgreSQL server (tests/support/postgres_server.hpp): what only the shared
// store has, or has in its own way. The queries themselves run on both backends in
// test_store_runs.cpp and test_store_concurrency.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <fmt/core.h>

#include "core/history/ledger.hpp"
#include "core/store/location.hpp"
#include "core/store/sql.hpp"
#include "tests/core/store/store_fixture.hpp"

namespace culprit::store::testing {
namespace {

using culprit::testing::PostgresServer;

class PostgresStore : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why_not;
    m_server = PostgresServer::shared(&why_not);
    CULPRIT_POSTGRES_OR_SKIP(m_server, why_not);
    auto url = m_server->fresh_database();
    ASSERT_TRUE(url) << url.error().message;
    m_where = {.cache_dir = m_dir.path(), .url = *url};
  }

  // A connection of its own, for what the store would never do (a foreign table, a schema
  // version set by hand).
  store::sql::Database raw() const {
    return store::sql::Database::open_postgres(m_where.url).value();
  }

  PostgresServer* m_server = nullptr;
  culprit::testing::TempDir m_dir;
  Location m_where;
};

TEST_F(PostgresStore, RunsAreKeptAcrossConnectionsAndTheCacheHoldsNoStore) {
  {
    auto store = Store::open_at(m_where);
    ASSERT_TRUE(store) << store.error().message;
    ASSERT_TRUE(store->record_host(make_host(k_key.host_id)));
    ASSERT_TRUE(store->record_run(make_run(k_key, {1.0, 2.0, 0.1 + 0.2, 1e-300})));
  }
  auto store = Store::open_at(m_where);
  ASSERT_TRUE(store) << store.error().message;
  const auto runs = store->counted_runs(k_key, "sgemm/4096", "time");
  ASSERT_TRUE(runs) << runs.error().message;
  ASSERT_EQ(runs->samples.size(), 1U);
  // Doubles travel as text and come back bit for bit.
  EXPECT_EQ(runs->samples[0], (std::vector<double>{1.0, 2.0, 0.1 + 0.2, 1e-300}));
  EXPECT_FALSE(std::filesystem::exists(m_dir / k_store_file_name));
  EXPECT_EQ(store->name().find(m_server->password()), std::string::npos) << store->name();
}

TEST_F(PostgresStore, AStoreOfANewerCulpritIsRefusedAndLeftAlone) {
  ASSERT_TRUE(Store::open_at(m_where));
  auto db = raw();
  ASSERT_TRUE(db.execute("UPDATE culprit_schema SET version = 99 WHERE component = 'store'"));
  const auto opened = Store::open_at(m_where);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ExitCode::infrastructure);
  EXPECT_NE(opened.error().message.find("newer culprit"), std::string::npos)
      << opened.error().message;
  EXPECT_EQ(opened.error().message.find(m_server->password()), std::string::npos);
  auto version = db.prepare("SELECT version FROM culprit_schema WHERE component = 'store'");
  ASSERT_TRUE(version->step().value());
  EXPECT_EQ(version->column_int64(0), 99);
}

TEST_F(PostgresStore, ADatabaseOfAnotherApplicationIsRefusedAndLeftAlone) {
  auto db = raw();
  ASSERT_TRUE(db.execute("CREATE TABLE invoices (id BIGINT PRIMARY KEY)"));
  const auto opened = Store::open_at(m_where);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ExitCode::infrastructure);
  EXPECT_NE(opened.error().message.find("another application"), std::string::npos)
      << opened.error().message;
  auto tables = db.prepare("SELECT count(*) FROM information_schema.tables WHERE table_schema = "
                           "current_schema()");
  ASSERT_TRUE(tables->step().value());
  EXPECT_EQ(tables->column_int64(0), 1); // nothing was created beside it
  EXPECT_FALSE(history::Ledger::open_at(m_where));
}

TEST_F(PostgresStore, AWrongPasswordIsOneLineWithoutThePassword) {
  auto where = m_where;
  const auto at = where.url.find(m_server->password());
  where.url.replace(at, m_server->password().size(), "not-the-password");
  const auto opened = Store::open_at(where);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ExitCode::infrastructure);
  EXPECT_EQ(opened.error().message.find('\n'), std::string::npos) << opened.error().message;
  EXPECT_EQ(opened.error().message.find("not-the-password"), std::string::npos)
      << opened.error().message;
  EXPECT_NE(opened.error().message.find("password"), std::string::npos) << opened.error().message;
}

TEST_F(PostgresStore, APasswordFileOthersMayReadIsNamedInTheMessageNotWarnedAboutByLibpq) {
  auto where = m_where;
  where.url.erase(where.url.find(':' + m_server->password()), m_server->password().size() + 1);
  const auto file = m_dir.path() / "pgpass";
  std::ofstream(file) << "*:*:*:*:" << m_server->password() << "\n";
  std::filesystem::permissions(
      file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                std::filesystem::perms::group_read | std::filesystem::perms::others_read);
  const std::string old_password = std::getenv("PGPASSWORD") ? std::getenv("PGPASSWORD") : "";
  ::unsetenv("PGPASSWORD");
  ::setenv("PGPASSFILE", file.c_str(), 1);
  ::testing::internal::CaptureStderr();
  const auto opened = Store::open_at(where);
  const auto said = ::testing::internal::GetCapturedStderr();
  ::unsetenv("PGPASSFILE");
  if (!old_password.empty())
    ::setenv("PGPASSWORD", old_password.c_str(), 1);
  EXPECT_EQ(said, "") << "libpq spoke on stderr";
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ExitCode::infrastructure);
  EXPECT_EQ(opened.error().message.find('\n'), std::string::npos) << opened.error().message;
  EXPECT_NE(opened.error().message.find("chmod 600 " + file.string()), std::string::npos)
      << opened.error().message;
  EXPECT_EQ(opened.error().message.find(m_server->password()), std::string::npos);

  // Once only its owner may read it, libpq reads it and the login succeeds.
  std::filesystem::permissions(file, std::filesystem::perms::owner_read |
                                         std::filesystem::perms::owner_write);
  ::setenv("PGPASSFILE", file.c_str(), 1);
  const auto again = Store::open_at(where);
  ::unsetenv("PGPASSFILE");
  EXPECT_TRUE(again) << again.error().message;
}

TEST_F(PostgresStore, AServerThatIsNotThereIsOneLineAndExit4) {
  // A port nobody listens on: the server's own, plus one.
  const auto colon = m_where.url.rfind(':');
  const auto slash = m_where.url.find('/', colon);
  const int port = std::stoi(m_where.url.substr(colon + 1, slash - colon - 1));
  auto where = m_where;
  where.url = fmt::format("{}:{}{}?connect_timeout=2", m_where.url.substr(0, colon),
                          port == 65535 ? 1 : port + 1, m_where.url.substr(slash));
  const auto opened = Store::open_at(where);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ExitCode::infrastructure);
  EXPECT_EQ(opened.error().message.find('\n'), std::string::npos) << opened.error().message;
  EXPECT_EQ(opened.error().message.find(m_server->password()), std::string::npos);
  EXPECT_NE(opened.error().message.find("cannot reach"), std::string::npos)
      << opened.error().message;
}

TEST_F(PostgresStore, AServerRestartedBetweenRunsLosesNothingAndTheStoreGoesOn) {
  auto store = Store::open_at(m_where);
  ASSERT_TRUE(store) << store.error().message;
  ASSERT_TRUE(store->record_host(make_host(k_key.host_id)));
  ASSERT_TRUE(store->record_run(make_run(k_key, {1.0})));
  const auto again = m_server->restart();
  ASSERT_TRUE(again) << again.error().message;
  // The connection was cut: the next statement makes it again.
  const auto after = store->record_run(make_run(k_key, {2.0}));
  ASSERT_TRUE(after) << after.error().message;
  const auto runs = store->counted_runs(k_key, "sgemm/4096", "time");
  ASSERT_TRUE(runs) << runs.error().message;
  EXPECT_EQ(runs->samples.size(), 2U);
}

TEST_F(PostgresStore, AServerRestartedWhileRunsGoInKeepsEveryRunItAcknowledgedWhole) {
  auto store = Store::open_at(m_where);
  ASSERT_TRUE(store) << store.error().message;
  ASSERT_TRUE(store->record_host(make_host(k_key.host_id)));
  std::atomic<bool> restarted = false;
  std::thread restarter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto again = m_server->restart();
    EXPECT_TRUE(again) << again.error().message;
    restarted = true;
  });
  int acknowledged = 0;
  int reported = 0;
  for (int i = 0; !restarted || i < 5; ++i) {
    const auto recorded = store->record_run(make_run(k_key, {1.0 * i, 2.0 * i, 3.0 * i}));
    if (recorded) {
      ++acknowledged;
      continue;
    }
    // The run in flight is reported, in one line, without the password.
    ++reported;
    EXPECT_EQ(recorded.error().code, ExitCode::infrastructure);
    EXPECT_EQ(recorded.error().message.find('\n'), std::string::npos) << recorded.error().message;
    EXPECT_EQ(recorded.error().message.find(m_server->password()), std::string::npos);
  }
  restarter.join();
  // The store goes on after the restart.
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(store->record_run(make_run(k_key, {7.0, 8.0, 9.0})));
  acknowledged += 3;
  const auto runs = store->counted_runs(k_key, "sgemm/4096", "time");
  ASSERT_TRUE(runs) << runs.error().message;
  // Every run acknowledged is there; a run reported may have committed just before the
  // connection went (its answer lost), never in part.
  EXPECT_GE(static_cast<int>(runs->samples.size()), acknowledged);
  EXPECT_LE(static_cast<int>(runs->samples.size()), acknowledged + reported);
  for (const auto& samples : runs->samples)
    EXPECT_EQ(samples.size(), 3U);
}

TEST_F(PostgresStore, AReaderIsNotBlockedByAWriterInTheMiddleOfItsTransaction) {
  auto store = Store::open_at(m_where);
  ASSERT_TRUE(store) << store.error().message;
  ASSERT_TRUE(store->record_host(make_host(k_key.host_id)));
  ASSERT_TRUE(store->record_run(make_run(k_key, {1.0})));
  // Another process writes the same tables and has not committed yet.
  auto writer = raw();
  auto holding = store::sql::Transaction::begin(writer);
  ASSERT_TRUE(holding);
  ASSERT_TRUE(writer.execute("UPDATE hosts SET last_seen = last_seen + 1; DELETE FROM samples"));
  const auto start = std::chrono::steady_clock::now();
  const auto runs = store->counted_runs(k_key, "sgemm/4096", "time");
  ASSERT_TRUE(runs) << runs.error().message;
  EXPECT_EQ(runs->samples, (std::vector<std::vector<double>>{{1.0}})); // the committed state
  // Not waiting for the writer (which never commits here): far less than a lock timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(PostgresStore, AnOlderLedgerThatLostATableIsRefusedBeforeItIsUpgraded) {
  ASSERT_TRUE(history::Ledger::open_at(m_where));
  {
    auto db = raw();
    ASSERT_TRUE(db.execute("DROP TABLE searches; DROP TABLE regression_events; UPDATE "
                           "culprit_schema SET version = 5 WHERE component = 'ledger'"));
  }
  const auto ledger = history::Ledger::open_at(m_where);
  ASSERT_FALSE(ledger);
  EXPECT_EQ(ledger.error().code, ExitCode::infrastructure);
  EXPECT_NE(ledger.error().message.find("regression_events is missing"), std::string::npos)
      << ledger.error().message;
  EXPECT_FALSE(history::Ledger::check_at(m_where));
  // Left as it was: still version 5, without the table of version 6.
  auto db = raw();
  auto version = db.prepare("SELECT version FROM culprit_schema WHERE component = 'ledger'");
  ASSERT_TRUE(version);
  ASSERT_TRUE(version->step().value());
  EXPECT_EQ(version->column_int64(0), 5);
}

TEST_F(PostgresStore, TheLedgerLivesBesideTheStore) {
  ASSERT_TRUE(Store::open_at(m_where));
  auto ledger = history::Ledger::open_at(m_where);
  ASSERT_TRUE(ledger) << ledger.error().message;
  history::TrackedPoint point{.commit = "c1",
                              .host_id = "h",
                              .recipe_hash = "r",
                              .artifact_id = "a1",
                              .source = "track",
                              .file = "",
                              .commit_time = 1'700'000'000,
                              .tracked_at = now(),
                              .sessions = {}};
  ASSERT_TRUE(ledger->record_tracked(point));
  ASSERT_TRUE(ledger->record_session(point, "s1"));
  point.artifact_id = "a2";
  ASSERT_TRUE(ledger->record_tracked(point)); // the same commit again: updated, not doubled
  ASSERT_TRUE(ledger->begin_session("track a..b", "s2"));
  ASSERT_TRUE(ledger->begin_session("track a..b", "s2")); // the start of a resumed one stays
  EXPECT_EQ(ledger->unfinished_session("track a..b", TimePoint{}).value(), "s2");
  ASSERT_TRUE(ledger->record_import("c1", "h", "hash", "file.json"));
  EXPECT_TRUE(ledger->was_imported("c1", "h", "hash").value());
  EXPECT_FALSE(ledger->was_imported("c1", "h", "other").value());

  auto again = history::Ledger::open_at(m_where);
  ASSERT_TRUE(again) << again.error().message;
  const auto tracked = again->tracked();
  ASSERT_TRUE(tracked) << tracked.error().message;
  ASSERT_EQ(tracked->size(), 1U);
  EXPECT_EQ((*tracked)[0].artifact_id, "a2");
  ASSERT_EQ((*tracked)[0].sessions.size(), 1U);
  EXPECT_EQ((*tracked)[0].sessions[0].id, "s1");
}

TEST(StoreUrl, ThePasswordIsMaskedWhereverItIs) {
  EXPECT_EQ(masked_url("postgresql://ci:s3cr3t@db.example:5432/perf"),
            "postgresql://ci:***@db.example:5432/perf");
  EXPECT_EQ(masked_url("postgresql://ci:p@ss@db/perf?sslmode=require"),
            "postgresql://ci:***@db/perf?sslmode=require");
  EXPECT_EQ(masked_url("postgres://db/perf?sslmode=require&password=s3cr3t&user=ci"),
            "postgres://db/perf?sslmode=require&password=***&user=ci");
  EXPECT_EQ(masked_url("postgresql://ci@db/perf"), "postgresql://ci@db/perf");
  EXPECT_EQ(masked_url("postgresql:///perf"), "postgresql:///perf");
}

TEST(StoreUrl, APasswordWithAnUnencodedSlashOrAtIsMaskedAndRefused) {
  EXPECT_EQ(masked_url("postgresql://ci:se/cret@db/perf"), "postgresql://ci:***@db/perf");
  EXPECT_EQ(masked_url("postgresql://ci:se/cr@et@db:5432/perf?sslmode=require"),
            "postgresql://ci:***@db:5432/perf?sslmode=require");
  EXPECT_EQ(masked_url("postgresql://ci:se/cret@db"), "postgresql://ci:***@db");
  for (const char* url : {"postgresql://ci:se/cret@db/perf", "postgresql://ci:P@ssw0rd@db/perf",
                          "postgres://ci:a/b@c@db:5432/perf?sslmode=require"}) {
    const auto checked = check_store_url(url);
    ASSERT_FALSE(checked) << url;
    EXPECT_EQ(checked.error().code, ExitCode::usage);
    const auto& message = checked.error().message;
    for (const char* part : {"se/cret", "ssw0rd", "a/b"})
      EXPECT_EQ(message.find(part), std::string::npos) << message;
    EXPECT_NE(message.find("%40"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_TRUE(check_store_url("postgresql://ci:P%40ss%2Fw0rd@db/perf"));
}

TEST(StoreUrl, ADbnameThatIsAConnectionStringOfItsOwnIsMaskedWhole) {
  EXPECT_EQ(masked_url("postgresql://db/k?dbname=postgresql://ci:Sekr3tQ@db/k"),
            "postgresql://db/k?dbname=***");
  EXPECT_EQ(masked_url("postgresql://db/k?dbname=user%3Dci%20password%3DSekr3tQ"),
            "postgresql://db/k?dbname=***");
  EXPECT_EQ(masked_url("postgresql://db/k?dbname=perf"), "postgresql://db/k?dbname=perf");
  for (const char* text : {"host=db dbname='user=ci password=Sekr3tQ'",
                           "host=db dbname=postgresql://ci:Sekr3tQ@db/k"}) {
    const auto checked = check_store_url(text);
    ASSERT_FALSE(checked) << text;
    EXPECT_EQ(checked.error().code, ExitCode::usage);
    EXPECT_EQ(checked.error().message.find("Sekr3tQ"), std::string::npos)
        << checked.error().message;
    EXPECT_EQ(checked.error().message.find("postgresql://db/"), std::string::npos)
        << checked.error().message;
  }
}

TEST(StoreUrl, UrlsInACommandLineAreMasked) {
  EXPECT_EQ(mask_urls_in("--store=postgresql://ci:s3cr3t@db/perf"),
            "--store=postgresql://ci:***@db/perf");
  EXPECT_EQ(mask_urls_in("a postgres://x:y@h/d and postgresql://p:q@h/d?password=z"),
            "a postgres://x:***@h/d and postgresql://p:***@h/d?password=***");
  EXPECT_EQ(mask_urls_in("--threshold=2%"), "--threshold=2%");
}

TEST(StoreUrl, AMalformedUrlIsAUsageErrorWithoutThePassword) {
  for (const char* url : {"mysql://ci:s3cr3t@db/perf", "postgresql://ci:s3cr3t@db/perf?nosuch=1",
                          "db.example:5432"}) {
    const auto checked = check_store_url(url);
    ASSERT_FALSE(checked) << url;
    EXPECT_EQ(checked.error().code, ExitCode::usage);
    EXPECT_EQ(checked.error().message.find("s3cr3t"), std::string::npos) << checked.error().message;
    EXPECT_NE(checked.error().message.find("postgresql://USER@HOST"), std::string::npos);
  }
  EXPECT_TRUE(check_store_url("postgresql://ci@db.example:5432/perf?sslmode=require"));
}

TEST(StoreUrl, APasswordParameterInAnyCaseOrSpellingIsMasked) {
  EXPECT_EQ(masked_url("postgresql://ci@db/k?PASSWORD=Sekr3tQ"),
            "postgresql://ci@db/k?PASSWORD=***");
  EXPECT_EQ(masked_url("postgresql://ci@db/k?sslmode=require&sslpassword=Sekr3tQ"),
            "postgresql://ci@db/k?sslmode=require&sslpassword=***");
  EXPECT_EQ(masked_url("postgresql://ci@db/k?pass%77ord=Sekr3tQ"),
            "postgresql://ci@db/k?pass%77ord=***");
  for (const char* url :
       {"postgresql://ci@db/k?PASSWORD=Sekr3tQ", "postgresql://ci:Sekr3tQ%zz@db/k",
        "postgresql://ci@db/k?password=Sekr3tQ%zz", "postgresql://ci@db/k?Password=Sekr3tQ"}) {
    const auto checked = check_store_url(url);
    ASSERT_FALSE(checked) << url;
    EXPECT_EQ(checked.error().code, ExitCode::usage);
    EXPECT_EQ(checked.error().message.find("Sekr3tQ"), std::string::npos)
        << checked.error().message;
  }
}

TEST(StoreUrl, KeyValueParametersAreRefusedWithTheUrlToWriteAndWithoutThePassword) {
  const auto checked =
      check_store_url("host=127.0.0.1 port=5432 user=ci password=WrongPass99 dbname=k");
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error().code, ExitCode::usage);
  EXPECT_EQ(checked.error().message.find("WrongPass99"), std::string::npos)
      << checked.error().message;
  EXPECT_NE(checked.error().message.find("postgresql://ci@127.0.0.1:5432/k"), std::string::npos)
      << checked.error().message;
  EXPECT_EQ(checked.error().message.find('\n'), std::string::npos);
  for (const char* text : {"host=db password = 'Wrong Pass99' dbname=k",
                           "host=db PASSWORD=WrongPass99", "password=WrongPass99"}) {
    const auto refused = check_store_url(text);
    ASSERT_FALSE(refused) << text;
    EXPECT_EQ(refused.error().code, ExitCode::usage);
    EXPECT_EQ(refused.error().message.find("Pass99"), std::string::npos) << refused.error().message;
  }
  // The same through the environment.
  ::setenv(std::string(k_store_env).c_str(), "host=db user=ci password=WrongPass99 dbname=k", 1);
  const auto chosen = choose_store_url(std::nullopt, std::nullopt);
  ::unsetenv(std::string(k_store_env).c_str());
  ASSERT_FALSE(chosen);
  EXPECT_EQ(chosen.error().message.find("WrongPass99"), std::string::npos)
      << chosen.error().message;
  EXPECT_NE(chosen.error().message.find("postgresql://ci@db/k"), std::string::npos)
      << chosen.error().message;
}

TEST(StoreUrl, TheFlagWinsOverTheEnvironmentWhichWinsOverTheRecipe) {
  ::unsetenv(std::string(k_store_env).c_str());
  EXPECT_EQ(choose_store_url(std::nullopt, std::nullopt).value(), "");
  EXPECT_EQ(choose_store_url(std::nullopt, "postgresql://r/db").value(), "postgresql://r/db");
  ::setenv(std::string(k_store_env).c_str(), "postgresql://e/db", 1);
  EXPECT_EQ(choose_store_url(std::nullopt, "postgresql://r/db").value(), "postgresql://e/db");
  EXPECT_EQ(choose_store_url("postgresql://f/db", "postgresql://r/db").value(),
            "postgresql://f/db");
  EXPECT_FALSE(choose_store_url("sqlite:///x", std::nullopt));
  ::unsetenv(std::string(k_store_env).c_str());
}

} // namespace
} // namespace culprit::store::testing
