// A repository in git's SHA-256 object format, which the libgit2 culprit uses may not read: one
// line that says so and what to do, exit 2, the repository untouched.

#include <fstream>

#include <gmock/gmock.h>

#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;

TEST(Sha256Repository, IsRefusedWithWhatToDo) {
  TempDir temp("culprit-sha256");
  const auto repo = temp / "repo";
  std::filesystem::create_directories(repo);
  const std::map<std::string, std::string> env = {{"GIT_CONFIG_NOSYSTEM", "1"},
                                                  {"GIT_CONFIG_GLOBAL", "/dev/null"},
                                                  {"GIT_AUTHOR_NAME", "Ada"},
                                                  {"GIT_AUTHOR_EMAIL", "ada@example.com"},
                                                  {"GIT_COMMITTER_NAME", "Ada"},
                                                  {"GIT_COMMITTER_EMAIL", "ada@example.com"},
                                                  {"LC_ALL", "C"}};
  const auto init = run_process({"git", "init", "-q", "--object-format=sha256"}, repo, env);
  if (init.exit_code != 0)
    GTEST_SKIP() << "this git makes no SHA-256 repositories: " << init.err;
  std::ofstream(repo / "culprit.toml")
      << "[build]\ncommand = \"true\"\n[run]\ncommand = \"true\"\n";
  ASSERT_EQ(run_process({"git", "add", "-A"}, repo, env).exit_code, 0);
  ASSERT_EQ(run_process({"git", "commit", "-q", "-m", "first"}, repo, env).exit_code, 0);
  const auto before = snapshot(repo);

  const auto run =
      run_culprit({"--cache-dir", (temp / "cache").string(), "run", "HEAD"}, repo, env);

  if (run.exit_code == 0)
    GTEST_SKIP() << "this libgit2 reads SHA-256 repositories";
  EXPECT_EQ(run.exit_code, 2) << run.err;
  const auto line = one_error_line(run);
  EXPECT_THAT(line, HasSubstr("is a SHA-256 repository, and the libgit2"));
  EXPECT_THAT(line, HasSubstr("git fast-export --all | git fast-import"));
  EXPECT_EQ(snapshot(repo), before);
}

} // namespace
} // namespace culprit::testing
