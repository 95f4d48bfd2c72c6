// A history ledger that is not what culprit writes: a column or a table dropped by hand, a version
// no culprit writes, a regression in a state no culprit writes. Each is refused as damage, with
// what to do, and left as it is: never taken for a bug, never made over, never read as another
// state.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "core/history/ledger.hpp"
#include "core/history/regressions.hpp"
#include "core/store/sql.hpp"
#include "tests/core/store/store_fixture.hpp"

namespace culprit::history {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class DamagedLedger : public ::testing::TestWithParam<store::sql::Dialect> {
protected:
  void SetUp() override { CULPRIT_STORE_LOCATION(m_backend, GetParam(), m_where); }

  [[nodiscard]] bool sqlite() const { return GetParam() == store::sql::Dialect::sqlite; }

  // A connection of its own to the ledger, for what culprit would never do.
  store::sql::Database raw() const {
    return (sqlite() ? store::sql::Database::open_sqlite(m_where.cache_dir / k_ledger_file_name)
                     : store::sql::Database::open_postgres(m_where.url))
        .value();
  }

  // Makes the ledger with one regression and its event.
  void make() {
    auto ledger = Ledger::open_at(m_where);
    ASSERT_TRUE(ledger) << ledger.error().message;
    const auto at = store::now();
    ASSERT_TRUE(ledger->record_regression({.id = regression_id("host-a", "c1"),
                                           .host_id = "host-a",
                                           .culprit = "c1",
                                           .subject = "Slower",
                                           .author = "A. U. Thor",
                                           .first_seen = at,
                                           .last_seen = at},
                                          "triage"));
  }

  bool has_table(std::string_view table) const {
    auto db = raw();
    auto query = db.prepare(sqlite() ? "SELECT count(*) FROM sqlite_master WHERE name = ?1"
                                     : "SELECT count(*) FROM information_schema.tables WHERE "
                                       "table_schema = current_schema() AND table_name = ?1")
                     .value();
    query.bind(1, table);
    EXPECT_TRUE(query.step().value());
    return query.column_int64(0) != 0;
  }

  // The refusal of a damaged ledger: one line, exit status 4, what to do, no "bug".
  void expect_damaged(const Error& error, std::string_view what) const {
    EXPECT_EQ(error.code, ExitCode::infrastructure);
    EXPECT_EQ(error.message.find('\n'), std::string::npos) << error.message;
    EXPECT_THAT(error.message, HasSubstr("history ledger"));
    EXPECT_THAT(error.message, HasSubstr("is damaged"));
    EXPECT_THAT(error.message, HasSubstr(what));
    EXPECT_THAT(error.message, Not(HasSubstr("results store " + m_where.describe())));
    EXPECT_THAT(error.message, Not(HasSubstr("bug in culprit")));
    if (sqlite()) {
      EXPECT_THAT(error.message,
                  HasSubstr("mv " + (m_where.cache_dir / k_ledger_file_name).string()));
    }
  }

  store::testing::Backend m_backend;
  store::Location m_where;
};

TEST_P(DamagedLedger, ADroppedColumnIsDamageNotABug) {
  make();
  ASSERT_TRUE(raw().execute("ALTER TABLE regression_events DROP COLUMN note"));
  const auto opened = Ledger::open_at(m_where);
  ASSERT_FALSE(opened);
  expect_damaged(opened.error(), "regression_events has no column note");
}

TEST_P(DamagedLedger, ADroppedTableIsRefusedNotMadeAgainEmpty) {
  make();
  ASSERT_TRUE(raw().execute("DROP TABLE regression_events"));
  const auto opened = Ledger::open_at(m_where);
  ASSERT_FALSE(opened);
  expect_damaged(opened.error(), "its table regression_events is missing");
  EXPECT_FALSE(has_table("regression_events")) << "the ledger was changed";
}

TEST_P(DamagedLedger, AStateNoCulpritWritesIsRefusedNotReadAsAnother) {
  make();
  const auto id = regression_id("host-a", "c1");
  ASSERT_TRUE(raw().execute("UPDATE regressions SET state = 'weird'"));
  auto ledger = Ledger::open_at(m_where);
  ASSERT_TRUE(ledger) << ledger.error().message;
  const auto all = ledger->regressions();
  ASSERT_FALSE(all);
  expect_damaged(all.error(), "regression " + id + " has the state \"weird\"");
  const auto one = ledger->regression(id);
  ASSERT_FALSE(one);
  expect_damaged(one.error(), "\"weird\"");

  ASSERT_TRUE(raw().execute("UPDATE regressions SET state = 'bisected'; UPDATE regression_events "
                            "SET state = 'weird\x1b[2J'"));
  const auto events = ledger->regressions();
  ASSERT_FALSE(events);
  expect_damaged(events.error(), "has the state \"weird\\x1b[2J\"");
}

INSTANTIATE_TEST_SUITE_P(Backends, DamagedLedger,
                         ::testing::Values(store::sql::Dialect::sqlite,
                                           store::sql::Dialect::postgres),
                         store::testing::backend_name);

TEST(DamagedLedgerFile, AVersionNoCulpritWritesIsRefusedAndLeftAlone) {
  culprit::testing::TempDir dir("culprit-ledger-version");
  const auto file = dir.path() / k_ledger_file_name;
  ASSERT_TRUE(Ledger::open(file));
  ASSERT_TRUE(store::sql::Database::open_sqlite(file)->execute("PRAGMA user_version = -1"));
  const auto opened = Ledger::open(file);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ExitCode::infrastructure);
  EXPECT_THAT(opened.error().message, HasSubstr("its version is -1, which no culprit writes"));
  EXPECT_THAT(opened.error().message, HasSubstr("mv " + file.string()));
  EXPECT_EQ(store::sql::Database::open_sqlite(file)->pragma_integer("user_version").value(), -1);
}

} // namespace
} // namespace culprit::history
