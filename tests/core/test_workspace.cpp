#include <fstream>

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "core/build/workspace.hpp"
#include "core/git/repository.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using testing::ScratchRepo;
using testing::TempDir;

std::string contents(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct FileStamp {
  ino_t inode;
  timespec mtime;
};
FileStamp stamp(const std::filesystem::path& file) {
  struct stat info = {};
  lstat(file.c_str(), &info);
  return {info.st_ino, info.st_mtim};
}
bool same_stamp(const FileStamp& a, const FileStamp& b) {
  return a.inode == b.inode && a.mtime.tv_sec == b.mtime.tv_sec &&
         a.mtime.tv_nsec == b.mtime.tv_nsec;
}

class WorkspaceTest : public ::testing::Test {
protected:
  TempDir temp{"culprit-ws"};
  ScratchRepo scratch{temp / "project"};
  std::filesystem::path cache = temp / "cache";

  git::CommitInfo info(const git::Repository& repo, const std::string& id) {
    return repo.commit_info(id).value();
  }
};

TEST_F(WorkspaceTest, ChecksOutFilesModesAndSymlinks) {
  scratch.write("src/kernel.cpp", "int main() {}\n");
  scratch.write("run.sh", "#!/bin/sh\necho hi\n", true);
  scratch.symlink("src/kernel.cpp", "link.cpp");
  const auto c = scratch.commit("first");
  auto repo = git::Repository::open(scratch.dir()).value();
  build::Workspace workspace(cache);
  auto slot = workspace.acquire().value();
  auto done = slot.checkout(repo, info(repo, c));
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_TRUE(done->fresh);
  EXPECT_EQ(done->written, 3U);
  const auto src = slot.source_dir();
  EXPECT_EQ(contents(src / "src/kernel.cpp"), "int main() {}\n");
  EXPECT_TRUE((std::filesystem::status(src / "run.sh").permissions() &
               std::filesystem::perms::owner_exec) != std::filesystem::perms::none);
  EXPECT_TRUE(std::filesystem::is_symlink(src / "link.cpp"));
  EXPECT_EQ(std::filesystem::read_symlink(src / "link.cpp"), "src/kernel.cpp");
  EXPECT_EQ(slot.state()->commit, c);
}

TEST_F(WorkspaceTest, NextCheckoutRewritesOnlyWhatDiffersAndDeletesWhatIsGone) {
  for (int i = 0; i < 20; ++i)
    scratch.write("file" + std::to_string(i) + ".txt", "v1 " + std::to_string(i));
  scratch.write("gone/deep.txt", "gone soon");
  const auto c1 = scratch.commit("one");
  scratch.write("file3.txt", "v2");
  scratch.remove("gone");
  scratch.write("added.txt", "new");
  const auto c2 = scratch.commit("two");

  auto repo = git::Repository::open(scratch.dir()).value();
  build::Workspace workspace(cache);
  auto slot = workspace.acquire().value();
  ASSERT_TRUE(slot.checkout(repo, info(repo, c1)));
  const auto src = slot.source_dir();
  std::ofstream(src / "in_source_build.o") << "object";
  const auto untouched = stamp(src / "file7.txt");

  auto done = slot.checkout(repo, info(repo, c2));
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_FALSE(done->fresh);
  EXPECT_EQ(done->written, 2U);
  EXPECT_EQ(done->removed, 1U);
  EXPECT_EQ(contents(src / "file3.txt"), "v2");
  EXPECT_EQ(contents(src / "added.txt"), "new");
  EXPECT_FALSE(std::filesystem::exists(src / "gone"));
  EXPECT_TRUE(same_stamp(untouched, stamp(src / "file7.txt")));
  EXPECT_EQ(contents(src / "in_source_build.o"), "object") << "untracked build outputs stay";

  // Going back restores the old contents.
  ASSERT_TRUE(slot.checkout(repo, info(repo, c1)));
  EXPECT_EQ(contents(src / "file3.txt"), "v1 3");
  EXPECT_EQ(contents(src / "gone/deep.txt"), "gone soon");
  EXPECT_FALSE(std::filesystem::exists(src / "added.txt"));
}

// A file written in the same clock tick as the slot's index is "racily clean": git cannot tell
// from its stat data whether it changed after the index was written. libgit2 then records its
// size as 0 in the next index it writes. Such a file is unchanged and must not be rewritten:
// a new mtime would make the build recompile everything that includes it.
TEST_F(WorkspaceTest, AFileWrittenInTheIndexsClockTickIsNotRewrittenLater) {
  scratch.write("kernel.hpp", "// the header every object includes\n");
  scratch.write("kernel.cpp", "v1");
  const auto c1 = scratch.commit("one");
  scratch.write("kernel.cpp", "v2");
  const auto c2 = scratch.commit("two");
  scratch.write("kernel.cpp", "v3");
  const auto c3 = scratch.commit("three");

  auto repo = git::Repository::open(scratch.dir()).value();
  build::Workspace workspace(cache);
  auto slot = workspace.acquire().value();
  ASSERT_TRUE(slot.checkout(repo, info(repo, c1)));
  const auto header = slot.source_dir() / "kernel.hpp";
  // Whether the header and the index share a tick depends on the clock; make it so.
  struct stat written = {};
  ASSERT_EQ(lstat(header.c_str(), &written), 0);
  const timespec times[2] = {written.st_mtim, written.st_mtim};
  ASSERT_EQ(utimensat(AT_FDCWD, (slot.root() / "index").c_str(), times, 0), 0);
  const auto before = stamp(header);

  ASSERT_TRUE(slot.checkout(repo, info(repo, c2)));
  EXPECT_TRUE(same_stamp(before, stamp(header)));
  auto done = slot.checkout(repo, info(repo, c3));
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_TRUE(same_stamp(before, stamp(header))) << "an unchanged header was written again";
  EXPECT_EQ(done->written, 1U);
  EXPECT_EQ(contents(slot.source_dir() / "kernel.cpp"), "v3");

  // A racily clean file that a build did change is still restored.
  std::ofstream(header) << "// scribbled on by a build\n";
  ASSERT_TRUE(slot.checkout(repo, info(repo, c1)));
  EXPECT_EQ(contents(header), "// the header every object includes\n");
}

TEST_F(WorkspaceTest, RestoresTrackedFilesThatABuildModified) {
  scratch.write("a.txt", "pristine");
  scratch.write("b.txt", "b");
  const auto c1 = scratch.commit("one");
  scratch.write("b.txt", "b2");
  const auto c2 = scratch.commit("two");
  auto repo = git::Repository::open(scratch.dir()).value();
  build::Workspace workspace(cache);
  auto slot = workspace.acquire().value();
  ASSERT_TRUE(slot.checkout(repo, info(repo, c1)));
  std::ofstream(slot.source_dir() / "a.txt") << "scribbled on by a build";
  std::filesystem::remove(slot.source_dir() / "b.txt");
  ASSERT_TRUE(slot.checkout(repo, info(repo, c2)));
  EXPECT_EQ(contents(slot.source_dir() / "a.txt"), "pristine");
  EXPECT_EQ(contents(slot.source_dir() / "b.txt"), "b2");
}

TEST_F(WorkspaceTest, AStateLostHalfwayMeansAFreshCheckout) {
  scratch.write("a.txt", "a");
  const auto c1 = scratch.commit("one");
  auto repo = git::Repository::open(scratch.dir()).value();
  {
    build::Workspace workspace(cache);
    auto slot = workspace.acquire().value();
    ASSERT_TRUE(slot.checkout(repo, info(repo, c1)));
    std::ofstream(slot.source_dir() / "stale.txt") << "left by an interrupted checkout";
    std::filesystem::remove(slot.root() / "state.json");
  }
  build::Workspace workspace(cache);
  auto slot = workspace.acquire().value();
  EXPECT_FALSE(slot.state().has_value());
  auto done = slot.checkout(repo, info(repo, c1)).value();
  EXPECT_TRUE(done.fresh);
  EXPECT_FALSE(std::filesystem::exists(slot.source_dir() / "stale.txt"));
}

// A culprit killed while it wrote a slot's index leaves libgit2's index.lock behind; the slot's
// next holder, alone with it, clears the lock instead of failing with "the index is locked"
// (Strays.TheScratchDirectoryOfAKilledCulpritIsRemovedByTheNext, now and then).
TEST_F(WorkspaceTest, ALockOnTheIndexLeftByAKilledCheckoutIsCleared) {
  scratch.write("a.txt", "a");
  const auto c1 = scratch.commit("one");
  scratch.write("a.txt", "b");
  const auto c2 = scratch.commit("two");
  auto repo = git::Repository::open(scratch.dir()).value();
  {
    build::Workspace workspace(cache);
    auto slot = workspace.acquire().value();
    ASSERT_TRUE(slot.checkout(repo, info(repo, c1)));
    std::ofstream(slot.root() / "index.lock") << "";
  }
  build::Workspace workspace(cache);
  auto slot = workspace.acquire().value();
  auto done = slot.checkout(repo, info(repo, c2));
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(contents(slot.source_dir() / "a.txt"), "b");
  EXPECT_FALSE(std::filesystem::exists(slot.root() / "index.lock"));
}

TEST_F(WorkspaceTest, SlotsAreLockedSoTwoUsersNeverShareOne) {
  build::Workspace workspace(cache, 2);
  auto first = workspace.acquire().value();
  auto second = workspace.acquire().value();
  EXPECT_NE(first.number(), second.number());
  EXPECT_NE(first.root(), second.root());
}

TEST_F(WorkspaceTest, SubmodulesComeFromTheLocalModuleStore) {
  ScratchRepo library(temp / "library");
  library.write("lib.h", "// v1\n");
  const auto lib1 = library.commit("lib v1");
  library.write("lib.h", "// v2\n");
  const auto lib2 = library.commit("lib v2");

  scratch.write("main.cpp", "#include \"third_party/lib/lib.h\"\n");
  scratch.git({"submodule", "add", "-q", (temp / "library").string(), "third_party/lib"});
  scratch.git({"-C", "third_party/lib", "checkout", "-q", lib1});
  const auto c1 = scratch.commit("add lib at v1");
  scratch.git({"-C", "third_party/lib", "checkout", "-q", lib2});
  const auto c2 = scratch.commit("bump lib to v2");
  // The library's own repository may vanish: culprit needs only the module store.
  std::filesystem::remove_all(temp / "library");

  auto repo = git::Repository::open(scratch.dir()).value();
  build::Workspace workspace(cache);
  auto slot = workspace.acquire().value();
  auto done = slot.checkout(repo, info(repo, c1));
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(contents(slot.source_dir() / "third_party/lib/lib.h"), "// v1\n");
  ASSERT_TRUE(slot.checkout(repo, info(repo, c2)));
  EXPECT_EQ(contents(slot.source_dir() / "third_party/lib/lib.h"), "// v2\n");
  ASSERT_TRUE(slot.checkout(repo, info(repo, c1)));
  EXPECT_EQ(contents(slot.source_dir() / "third_party/lib/lib.h"), "// v1\n");
}

TEST_F(WorkspaceTest, AMissingSubmoduleCommitSaysHowToFetchIt) {
  ScratchRepo library(temp / "library");
  library.write("lib.h", "// v1\n");
  library.commit("lib v1");
  scratch.git({"submodule", "add", "-q", (temp / "library").string(), "lib"});
  const auto c1 = scratch.commit("add lib");
  std::filesystem::remove_all(scratch.dir() / ".git" / "modules");
  auto repo = git::Repository::open(scratch.dir()).value();
  build::Workspace workspace(cache);
  auto slot = workspace.acquire().value();
  auto done = slot.checkout(repo, info(repo, c1));
  ASSERT_FALSE(done);
  EXPECT_THAT(done.error().message, HasSubstr("git submodule update --init"));
}

} // namespace
} // namespace culprit
