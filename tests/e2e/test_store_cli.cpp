// End to end: a history on a shared PostgreSQL store (tests/support/postgres_server.hpp). track
// writes to the server and nothing to the cache's SQLite files; history reads it through --store,
// CULPRIT_STORE or the recipe's [store] url; store copy moves an imported local history there,
// once; and a bad URL, a refused login or a server that is not there is one line with the
// documented exit code and no password.

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/store/store.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/loop_bench.hpp"
#include "tests/support/nightly_results.hpp"
#include "tests/support/postgres_server.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::PostgresServer;
using testing::run_culprit;
using testing::ScratchRepo;
using testing::TempDir;

class StoreCli : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why_not;
    server = PostgresServer::shared(&why_not);
    CULPRIT_POSTGRES_OR_SKIP(server, why_not);
    auto fresh = server->fresh_database();
    ASSERT_TRUE(fresh) << fresh.error().message;
    url = *fresh;
    scratch.write("bench.c", testing::k_loop_bench);
    scratch.write("culprit.toml", testing::k_loop_recipe);
    scratch.write("work", "400000\n");
    commits.push_back(scratch.commit("benchmark"));
    for (int i = 0; i < 2; ++i) {
      scratch.write("bench.c", std::string(testing::k_loop_bench) + "const char note[] = \"" +
                                   std::to_string(i) + "\";\n");
      commits.push_back(scratch.commit("note " + std::to_string(i)));
    }
  }

  testing::ProcessOutput culprit_cli(std::vector<std::string> args,
                                     const std::map<std::string, std::string>& env = {}) {
    args.insert(args.begin(), {"--cache-dir", (temp / "cache").string()});
    return run_culprit(args, scratch.dir(), env);
  }

  // The SQLite files of the repository's cache dir, wherever it is under the cache.
  [[nodiscard]] bool local_store_exists() const {
    std::error_code error;
    if (!std::filesystem::exists(temp / "cache", error))
      return false;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(temp / "cache"))
      if (entry.path().filename() == store::k_store_file_name)
        return true;
    return false;
  }

  PostgresServer* server = nullptr;
  std::string url;
  TempDir temp{"culprit-store-cli"};
  ScratchRepo scratch{temp / "project"};
  std::vector<std::string> commits;
};

TEST_F(StoreCli, TrackWritesToTheServerAndHistoryReadsItFromAnywhere) {
  const auto track =
      culprit_cli({"--store", url, "track", commits.front() + "..HEAD", "--runs", "3"});
  ASSERT_EQ(track.exit_code, 0) << track.err;
  EXPECT_FALSE(local_store_exists()) << "the runs went to the cache dir";
  EXPECT_THAT(track.out + track.err, Not(HasSubstr(server->password())));

  const auto flag = culprit_cli({"--store", url, "history"});
  ASSERT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_THAT(flag.out, HasSubstr("2 points"));
  const auto env = culprit_cli({"history"}, {{"CULPRIT_STORE", url}});
  ASSERT_EQ(env.exit_code, 0) << env.err;
  EXPECT_EQ(env.out, flag.out);
  scratch.write("culprit.toml",
                std::string(testing::k_loop_recipe) + "\n[store]\nurl = \"" + url + "\"\n");
  const auto recipe = culprit_cli({"history"});
  ASSERT_EQ(recipe.exit_code, 0) << recipe.err;
  EXPECT_EQ(recipe.out, flag.out);
  // Without a store named, the cache dir's own (empty) history.
  scratch.write("culprit.toml", std::string(testing::k_loop_recipe));
  EXPECT_EQ(culprit_cli({"history"}).exit_code, 2);
}

TEST_F(StoreCli, EvidenceNamesTheStoreWithoutItsPassword) {
  const auto evidence = temp / "run.json";
  const auto ran = culprit_cli({"run", "HEAD", "--store=" + url, "--min-runs", "2", "--max-runs",
                                "2", "--json", evidence.string()});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  std::ifstream in(evidence);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, Not(HasSubstr(server->password())));
  const auto parsed = nlohmann::json::parse(text);
  auto masked = url;
  masked.replace(masked.find(server->password()), server->password().size(), "***");
  EXPECT_EQ(parsed.at("settings").at("store"), masked);
  EXPECT_THAT(parsed.at("command").dump(), HasSubstr("--store=" + masked));
  EXPECT_FALSE(local_store_exists());
}

TEST_F(StoreCli, StoreCopyTakesALocalHistoryToTheServerOnce) {
  const auto file = temp / "nightly.json";
  std::ofstream(file) << testing::k_nightly_gbench;
  for (const auto* commit : {"HEAD", "HEAD~1"})
    ASSERT_EQ(culprit_cli({"import", file.string(), "--commit", commit, "--host", "ci"}).exit_code,
              0);
  const auto copied = culprit_cli({"store", "copy", "local", url});
  ASSERT_EQ(copied.exit_code, 0) << copied.err;
  EXPECT_THAT(copied.out, HasSubstr("copied 2 runs"));
  EXPECT_THAT(copied.out, Not(HasSubstr(server->password())));
  EXPECT_THAT(copied.out, HasSubstr(":***@"));
  const auto again = culprit_cli({"store", "copy", "local", url});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr("copied 0 runs and 0 other rows"));

  const auto shared = culprit_cli({"--store", url, "history"});
  ASSERT_EQ(shared.exit_code, 0) << shared.err;
  EXPECT_THAT(shared.out, HasSubstr("BM_Copy/64 [real_time]  2 points"));
  const auto local = culprit_cli({"history"});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  EXPECT_EQ(local.out, shared.out);

  const auto itself = culprit_cli({"store", "copy", url, url});
  EXPECT_EQ(itself.exit_code, 2);
  const auto nowhere = culprit_cli({"store", "copy", (temp / "nothing").string(), url});
  EXPECT_EQ(nowhere.exit_code, 2);
  EXPECT_THAT(nowhere.err, HasSubstr("holds no results store"));
}

TEST_F(StoreCli, BadStoresAreOneLineWithTheDocumentedExitCodeAndNoPassword) {
  const auto malformed =
      culprit_cli({"--store", "postgresql://ci:s3cr3t@db/perf?nosuch=1", "history"});
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_EQ(std::ranges::count(malformed.err, '\n'), 1) << malformed.err;
  EXPECT_THAT(malformed.err, Not(HasSubstr("s3cr3t")));

  auto wrong = url;
  wrong.replace(wrong.find(server->password()), server->password().size(), "s3cr3t");
  const auto refused = culprit_cli({"--store", wrong, "track", commits.front() + "..HEAD"});
  EXPECT_EQ(refused.exit_code, 4);
  EXPECT_EQ(std::ranges::count(refused.err, '\n'), 1) << refused.err;
  EXPECT_THAT(refused.err, Not(HasSubstr("s3cr3t")));
  EXPECT_THAT(refused.err, HasSubstr("password authentication failed"));
  EXPECT_FALSE(local_store_exists());
}

} // namespace
} // namespace culprit
