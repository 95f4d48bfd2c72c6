#include "core/store/sql.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace culprit::store::sql {
namespace {

class SqliteTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto opened = Database::open_sqlite(m_dir / "test.db");
    ASSERT_TRUE(opened) << opened.error().message;
    m_db.emplace(std::move(*opened));
    ASSERT_TRUE(m_db->execute("CREATE TABLE t (i INTEGER, d REAL, s TEXT)"));
  }
  testing::TempDir m_dir;
  std::optional<Database> m_db;
};

TEST_F(SqliteTest, BindsAndReadsEveryType) {
  auto insert = m_db->prepare("INSERT INTO t VALUES (?1, ?2, ?3)");
  ASSERT_TRUE(insert);
  insert->bind_all(std::int64_t{1} << 40, 2.5, std::string_view("text"));
  ASSERT_TRUE(insert->run());
  insert->reset();
  insert->bind_all(std::optional<std::int64_t>{}, std::optional<double>{},
                   std::optional<std::string>{});
  ASSERT_TRUE(insert->run());
  EXPECT_EQ(m_db->changes(), 1);

  auto select = m_db->prepare("SELECT i, d, s FROM t ORDER BY rowid");
  ASSERT_TRUE(select);
  ASSERT_TRUE(select->step().value());
  EXPECT_EQ(select->column_int64(0), std::int64_t{1} << 40);
  EXPECT_DOUBLE_EQ(select->column_double(1), 2.5);
  EXPECT_EQ(select->column_text(2), "text");
  ASSERT_TRUE(select->step().value());
  EXPECT_EQ(select->column_optional_int64(0), std::nullopt);
  EXPECT_EQ(select->column_optional_double(1), std::nullopt);
  EXPECT_EQ(select->column_optional_text(2), std::nullopt);
  EXPECT_FALSE(select->step().value());
}

TEST_F(SqliteTest, EmptyTextIsNotNull) {
  auto insert = m_db->prepare("INSERT INTO t (s) VALUES (?1)");
  ASSERT_TRUE(insert);
  insert->bind(1, std::string_view());
  ASSERT_TRUE(insert->run());
  auto select = m_db->prepare("SELECT s IS NULL, s FROM t");
  ASSERT_TRUE(select->step().value());
  EXPECT_EQ(select->column_int64(0), 0);
  EXPECT_EQ(select->column_text(1), "");
}

// A statement done with goes back to the connection's idle ones: prepared again by its text, it
// starts from its first row with no binding left, even when it was left in the middle of its rows
// or while another of the same text is still open.
TEST_F(SqliteTest, AStatementPreparedAgainStartsAfresh) {
  ASSERT_TRUE(m_db->execute("INSERT INTO t (i) VALUES (1), (2), (3)"));
  const std::string text = "SELECT i FROM t WHERE ?1 IS NULL OR i >= ?1 ORDER BY i";
  {
    auto half = m_db->prepare(text);
    ASSERT_TRUE(half);
    half->bind(1, std::int64_t{2});
    ASSERT_TRUE(half->step().value());
    EXPECT_EQ(half->column_int64(0), 2);
    auto other = m_db->prepare(text); // the same text while the first is open
    ASSERT_TRUE(other);
    ASSERT_TRUE(other->step().value());
    EXPECT_EQ(other->column_int64(0), 1);
  }
  for (int again = 0; again < 3; ++again) {
    auto select = m_db->prepare(text);
    ASSERT_TRUE(select);
    std::vector<std::int64_t> seen;
    while (select->step().value())
      seen.push_back(select->column_int64(0));
    EXPECT_EQ(seen, (std::vector<std::int64_t>{1, 2, 3})) << "no binding is left from before";
  }
  // A write through a statement given back and taken again, and the table changed under it.
  for (int again = 0; again < 2; ++again) {
    auto insert = m_db->prepare("INSERT INTO t (i) VALUES (?1)");
    ASSERT_TRUE(insert);
    insert->bind(1, std::int64_t{10 + again});
    ASSERT_TRUE(insert->run());
  }
  ASSERT_TRUE(m_db->execute("ALTER TABLE t ADD COLUMN extra INTEGER"));
  auto count = m_db->prepare(text);
  ASSERT_TRUE(count);
  std::size_t rows = 0;
  while (count->step().value())
    ++rows;
  EXPECT_EQ(rows, 5U);
}

TEST_F(SqliteTest, BadSqlIsAnErrorNamingTheFile) {
  auto statement = m_db->prepare("SELEKT 1");
  ASSERT_FALSE(statement);
  EXPECT_EQ(statement.error().code, ExitCode::infrastructure);
  EXPECT_NE(statement.error().message.find("test.db"), std::string::npos);
  EXPECT_NE(statement.error().message.find("syntax error"), std::string::npos);
}

TEST_F(SqliteTest, BindOutOfRangeIsReportedByStep) {
  auto statement = m_db->prepare("INSERT INTO t (i) VALUES (?1)");
  ASSERT_TRUE(statement);
  statement->bind(1, 1).bind(7, 2);
  auto stepped = statement->step();
  ASSERT_FALSE(stepped);
  EXPECT_NE(stepped.error().message.find("binding"), std::string::npos);
}

TEST_F(SqliteTest, TransactionRollsBackUnlessCommitted) {
  {
    auto transaction = Transaction::begin(*m_db);
    ASSERT_TRUE(transaction);
    ASSERT_TRUE(m_db->execute("INSERT INTO t (i) VALUES (1)"));
  }
  {
    auto transaction = Transaction::begin(*m_db);
    ASSERT_TRUE(transaction);
    ASSERT_TRUE(m_db->execute("INSERT INTO t (i) VALUES (2)"));
    ASSERT_TRUE(transaction->commit());
    EXPECT_FALSE(transaction->commit()); // no longer open
  }
  auto select = m_db->prepare("SELECT group_concat(i) FROM t");
  ASSERT_TRUE(select->step().value());
  EXPECT_EQ(select->column_text(0), "2");
}

TEST_F(SqliteTest, PragmaInteger) {
  ASSERT_TRUE(m_db->execute("PRAGMA user_version = 7"));
  EXPECT_EQ(m_db->pragma_integer("user_version").value(), 7);
}

TEST(SqliteOpen, MissingDirectoryIsAClearError) {
  testing::TempDir dir;
  auto db = Database::open_sqlite(dir / "no/such/dir/test.db");
  ASSERT_FALSE(db);
  EXPECT_EQ(db.error().code, ExitCode::infrastructure);
  EXPECT_NE(db.error().message.find("--cache-dir"), std::string::npos) << db.error().message;
}

} // namespace
} // namespace culprit::store::sql
