// A --cache-dir that is a symbolic link to a directory that is gone: mkdir says only "File
// exists"; culprit says what the path is and what to do, and creates nothing.

#include <gmock/gmock.h>

#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;

TEST(CacheDirLink, ALinkToNothingIsNamedWithWhatToDo) {
  TempDir temp("culprit-cache-link");
  StepProject project(temp / "project", {.commits = 2, .step_at = 1});
  const auto link = temp / "cache";
  const auto target = temp / "gone";
  std::filesystem::create_directory_symlink(target, link);
  const auto before = snapshot(project.dir());

  const auto run = run_culprit({"--cache-dir", link.string(), "run", "HEAD"}, project.dir());

  EXPECT_EQ(run.exit_code, 2) << run.err;
  const auto line = one_error_line(run);
  EXPECT_THAT(line, HasSubstr(link.string() + " is a symbolic link to " + target.string() +
                              ", which does not exist"));
  EXPECT_THAT(line, HasSubstr("pass --cache-dir with a writable directory"));
  EXPECT_THAT(line, ::testing::Not(HasSubstr("File exists")));
  EXPECT_FALSE(std::filesystem::exists(target));
  EXPECT_EQ(snapshot(project.dir()), before);
}

} // namespace
} // namespace culprit::testing
