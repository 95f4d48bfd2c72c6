// A results store whose schema version (PRAGMA user_version) was set by hand: a version no
// culprit writes, or one whose tables are not those of that version. Each is refused with the
// line for a damaged store, which says to move it away, and the store is left as it was.

#include <fmt/format.h>
#include <gmock/gmock.h>

#include "core/store/sql.hpp"
#include "core/store/store.hpp"
#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;

std::filesystem::path store_file_under(const std::filesystem::path& cache) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(cache))
    if (entry.path().filename() == store::k_store_file_name)
      return entry.path();
  return {};
}

void set_user_version(const std::filesystem::path& file, std::int64_t version) {
  auto db = store::sql::Database::open_sqlite(file);
  ASSERT_TRUE(db) << db.error().message;
  ASSERT_TRUE(db->execute(fmt::format("PRAGMA user_version = {}", version)));
}

TEST(OddStores, AVersionThatDoesNotMatchTheTablesIsADamagedStore) {
  TempDir temp("culprit-odd-store");
  StepProject project(temp / "project", {.commits = 2, .step_at = 1});
  const auto cache = temp / "cache";
  const std::vector<std::string> run = {"--cache-dir", cache.string(), "run", "HEAD", "--min-runs",
                                        "3",           "--max-runs",   "3"};
  const auto warm = run_culprit(run, project.dir());
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  const auto file = store_file_under(cache);
  ASSERT_FALSE(file.empty());

  // -1 and 0 on a store with tables; 1 and 2 on tables of version 3.
  for (const std::int64_t version : {-1, 0, 1, 2}) {
    SCOPED_TRACE(version);
    set_user_version(file, version);
    const auto before = snapshot(cache);
    const auto refused = run_culprit(run, project.dir());
    EXPECT_EQ(refused.exit_code, 4) << refused.err;
    const auto line = one_error_line(refused);
    EXPECT_THAT(line, HasSubstr("the file is damaged or not a culprit store; move it away (mv " +
                                file.string()));
    EXPECT_THAT(line, ::testing::Not(HasSubstr("bug in culprit")));
    const auto after = snapshot(cache);
    EXPECT_TRUE(before == after) << changed_paths(before, after);
  }

  // Nothing was altered: with its version back, the store serves again.
  set_user_version(file, store::k_schema_version);
  const auto again = run_culprit(run, project.dir());
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(inspect_store(cache).integrity, "ok");
}

} // namespace
} // namespace culprit::testing
