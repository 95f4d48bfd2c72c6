// The store's file: creation, reopening, migrations, and files it must refuse.
#include <gtest/gtest.h>

#include <fstream>

#include "core/store/schema.hpp"
#include "tests/core/store/store_fixture.hpp"

namespace culprit::store::testing {
namespace {

using culprit::testing::TempDir;

void write_file(const std::filesystem::path& file, std::string_view bytes) {
  std::ofstream out(file, std::ios::binary);
  out << bytes;
}

TEST(StoreFile, CreatesTheCacheDirAndKeepsRunsAcrossReopening) {
  TempDir dir;
  const auto cache = dir / "deep/cache";
  {
    auto store = Store::open_in(cache);
    ASSERT_TRUE(store) << store.error().message;
    EXPECT_EQ(store->file(), cache / k_store_file_name);
    ASSERT_TRUE(store->record_host(make_host(k_key.host_id)));
    ASSERT_TRUE(store->record_run(make_run(k_key, {1.0, 2.0})));
  }
  auto store = Store::open_in(cache);
  ASSERT_TRUE(store);
  EXPECT_EQ(store->count_runs(k_key)->counted, 1);
}

TEST(StoreFile, SetsTheSchemaVersionWalAndForeignKeys) {
  TempDir dir;
  ASSERT_TRUE(Store::open(dir / "s.db"));
  auto db = store::sql::Database::open_sqlite(dir / "s.db");
  ASSERT_TRUE(db);
  EXPECT_EQ(db->pragma_integer("user_version").value(), k_schema_version);
  EXPECT_EQ(db->pragma_integer("application_id").value(), k_application_id);
  auto journal = db->prepare("PRAGMA journal_mode");
  ASSERT_TRUE(journal->step().value());
  EXPECT_EQ(journal->column_text(0), "wal");
}

TEST(StoreFile, AnEmptyFileIsMigrated) {
  TempDir dir;
  write_file(dir / "s.db", "");
  auto store = Store::open(dir / "s.db");
  ASSERT_TRUE(store) << store.error().message;
  EXPECT_TRUE(store->record_host(make_host("h")));
}

TEST(StoreFile, AStoreFromANewerCulpritIsRefused) {
  TempDir dir;
  ASSERT_TRUE(Store::open(dir / "s.db"));
  {
    auto db = store::sql::Database::open_sqlite(dir / "s.db");
    ASSERT_TRUE(db->execute("PRAGMA user_version = 99"));
  }
  auto store = Store::open(dir / "s.db");
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ExitCode::infrastructure);
  EXPECT_NE(store.error().message.find("newer culprit"), std::string::npos);
  EXPECT_NE(store.error().message.find("version 99"), std::string::npos);
}

TEST(StoreFile, AFileThatIsNotADatabaseSaysToMoveItAway) {
  TempDir dir;
  std::string garbage(8192, 'x');
  write_file(dir / "s.db", garbage);
  auto store = Store::open(dir / "s.db");
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ExitCode::infrastructure);
  EXPECT_NE(store.error().message.find("move it away"), std::string::npos) << store.error().message;
  EXPECT_NE(store.error().message.find((dir / "s.db").string()), std::string::npos);
}

TEST(StoreFile, ADamagedDatabaseIsAnErrorNotACrash) {
  TempDir dir;
  const auto file = dir / "s.db";
  {
    auto store = Store::open(file);
    ASSERT_TRUE(store->record_host(make_host(k_key.host_id)));
    for (int i = 0; i < 200; ++i)
      ASSERT_TRUE(store->record_run(make_run(k_key, std::vector<double>(50, 1.0 + i))));
    auto db = store::sql::Database::open_sqlite(file);
    ASSERT_TRUE(db->execute("PRAGMA wal_checkpoint(TRUNCATE)"));
  }
  // Overwrite the middle of the file (b-tree pages of runs and samples), keep the header.
  const auto size = std::filesystem::file_size(file);
  ASSERT_GT(size, 16384U);
  {
    std::fstream out(file, std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(static_cast<std::streamoff>(size / 2));
    const std::string noise(8192, '\xA5');
    out.write(noise.data(), static_cast<std::streamsize>(noise.size()));
  }
  auto store = Store::open(file);
  if (!store) {
    EXPECT_NE(store.error().message.find("move it away"), std::string::npos);
    return;
  }
  auto runs = store->counted_runs(k_key, "sgemm/4096", "time");
  auto artifact = store->artifact_record(k_key.artifact_id);
  ASSERT_FALSE(runs && artifact) << "the damage went unnoticed";
  const auto& error = runs ? artifact.error() : runs.error();
  EXPECT_EQ(error.code, ExitCode::infrastructure);
  EXPECT_NE(error.message.find("move it away"), std::string::npos) << error.message;
}

TEST(StoreFile, AnotherProgramsDatabaseIsLeftAlone) {
  TempDir dir;
  {
    auto db = store::sql::Database::open_sqlite(dir / "s.db");
    ASSERT_TRUE(db->execute("CREATE TABLE contacts (name TEXT)"));
  }
  auto store = Store::open(dir / "s.db");
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find("not a culprit results store"), std::string::npos);
}

TEST(StoreFile, AnUnwritableDirectoryIsAClearError) {
  if (geteuid() == 0)
    GTEST_SKIP() << "root writes anywhere";
  TempDir dir;
  std::filesystem::create_directory(dir / "ro");
  std::filesystem::permissions(dir / "ro", std::filesystem::perms::owner_read |
                                               std::filesystem::perms::owner_exec);
  auto store = Store::open_in(dir / "ro/cache");
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find("--cache-dir"), std::string::npos);
}

TEST(StoreFile, ACacheDirThatIsAFileIsAClearError) {
  TempDir dir;
  write_file(dir / "cache", "not a directory");
  auto store = Store::open_in(dir / "cache");
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ExitCode::infrastructure);
  EXPECT_NE(store.error().message.find("--cache-dir"), std::string::npos) << store.error().message;
}

} // namespace
} // namespace culprit::store::testing

namespace culprit::store::testing {
namespace {

// A statement left on a row by record_run held a read snapshot open and the WAL grew with every
// run (190 MiB for 10,000 runs); checkpoints keep it near SQLite's 1000-page threshold.
TEST(StoreFile, TheWriteAheadLogStaysBounded) {
  culprit::testing::TempDir dir;
  auto store = Store::open_in(dir.path());
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->record_host(make_host(k_key.host_id)));
  for (int i = 0; i < 2000; ++i)
    ASSERT_TRUE(store->record_run(make_run(k_key, {1.0})));
  const auto wal = std::filesystem::file_size(store->file().string() + "-wal");
  EXPECT_LT(wal, 8U << 20) << "the WAL is never checkpointed";
}

} // namespace
} // namespace culprit::store::testing
