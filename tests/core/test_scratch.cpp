#include <fstream>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/measure/scratch.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using testing::TempDir;

// The pid of a process that has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

TEST(Scratch, TheDirectoriesOfDeadProcessesAndReusedPidsAreRemoved) {
  TempDir temp("culprit-scratch");
  const auto root = temp / "scratch";
  std::filesystem::create_directories(root);
  const auto dead = std::to_string(dead_pid());
  std::filesystem::create_directories(root / dead);
  std::filesystem::create_directories(root / (".new-" + dead + "-1f"));
  // pid 1 is alive, but holds no lock of culprit's: its pid was reused.
  std::filesystem::create_directories(root / "1");
  std::ofstream(root / "1" / ".lock") << "";
  std::filesystem::create_directories(root / "notes");
  {
    auto mine = measure::ScratchDir::open(root);
    ASSERT_TRUE(mine) << mine.error().message;
    EXPECT_EQ(mine->path(), root / std::to_string(::getpid()));
    EXPECT_TRUE(std::filesystem::is_directory(mine->path()));
    EXPECT_FALSE(std::filesystem::exists(root / dead));
    EXPECT_FALSE(std::filesystem::exists(root / (".new-" + dead + "-1f")));
    EXPECT_FALSE(std::filesystem::exists(root / "1"));
    EXPECT_TRUE(std::filesystem::exists(root / "notes")) << "not culprit's";
    // Another command's sweep leaves a live one alone: its lock is held.
    EXPECT_EQ(measure::remove_abandoned_scratch(root), 0U);
    EXPECT_TRUE(std::filesystem::is_directory(mine->path()));
  }
  EXPECT_FALSE(std::filesystem::exists(root / std::to_string(::getpid())));
}

} // namespace
} // namespace culprit
