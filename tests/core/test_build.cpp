#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/build/builder.hpp"
#include "core/exec/local_executor.hpp"
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

std::size_t entries_in(const std::filesystem::path& dir) {
  std::error_code ec;
  std::size_t count = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    ++count;
  return count;
}

class BuildTest : public ::testing::Test {
protected:
  void SetUp() override {
    scratch.write("bench.sh", "#!/bin/sh\necho one\n", true);
    scratch.write("README", "docs\n");
    c1 = scratch.commit("one");
    scratch.write("README", "more docs\n");
    c2 = scratch.commit("docs only");
    scratch.write("bench.sh", "#!/bin/sh\necho two\n", true);
    c3 = scratch.commit("two");
    recipe.command = "cp {src}/bench.sh {build}/bench && echo \"$CULPRIT_COMMIT $CULPRIT_REV "
                     "$NVCC_APPEND_FLAGS\" > {build}/info";
    recipe.artifacts = {"bench", "info"};
  }

  build::Builder make_builder() { return build::Builder(repo, recipe, temp / "cache", executor); }

  TempDir temp{"culprit-build"};
  ScratchRepo scratch{temp / "project"};
  std::string c1, c2, c3;
  git::Repository repo = git::Repository::open(scratch.dir()).value();
  recipe::BuildRecipe recipe;
  exec::LocalExecutor executor;
};

TEST_F(BuildTest, BuildsIntoTheCacheAndReusesTheKey) {
  auto builder = make_builder();
  auto first = builder.build(c1, "HEAD~2");
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_EQ(first->status, build::BuildStatus::built) << first->message;
  EXPECT_EQ(contents(first->artifact_dir / "bench"), "#!/bin/sh\necho one\n");
  EXPECT_EQ(contents(first->artifact_dir / "info"), c1 + " HEAD~2 -Xptxas -v\n");
  EXPECT_TRUE(std::filesystem::exists(first->log));

  auto again = builder.build(c1, "HEAD~2");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, build::BuildStatus::cached);
  EXPECT_EQ(again->key, first->key);
  EXPECT_EQ(again->artifact_dir, first->artifact_dir);

  // A fresh builder (a new culprit process) sees the same cache.
  auto later = make_builder().build(c1, "HEAD~2");
  ASSERT_TRUE(later);
  EXPECT_EQ(later->status, build::BuildStatus::cached);
}

TEST_F(BuildTest, CommitsWithIdenticalArtifactsShareOneArtifactDirectory) {
  recipe.command = "cp {src}/bench.sh {build}/bench";
  recipe.artifacts = {"bench"};
  auto builder = make_builder();
  auto one = builder.build(c1, "").value();
  auto docs = builder.build(c2, "").value();
  auto two = builder.build(c3, "").value();
  EXPECT_NE(one.key, docs.key) << "different trees, different build keys";
  EXPECT_EQ(one.artifact_id, docs.artifact_id) << "byte-identical artifacts share an id";
  EXPECT_NE(one.artifact_id, two.artifact_id);
  EXPECT_TRUE((std::filesystem::status(two.artifact_dir / "bench").permissions() &
               std::filesystem::perms::owner_exec) != std::filesystem::perms::none);
}

TEST_F(BuildTest, AFailedBuildIsRecordedWithItsLogAndNotRetriedUnlessAsked) {
  recipe.command = "echo compiling; echo 'error: broken' >&2; exit 3";
  auto builder = make_builder();
  auto failed = builder.build(c1, "").value();
  EXPECT_EQ(failed.status, build::BuildStatus::failed);
  EXPECT_THAT(failed.message, HasSubstr("exited with status 3"));
  const auto log = contents(failed.log);
  EXPECT_THAT(log, HasSubstr("compiling\nerror: broken\n")) << "one stream, in order";

  auto cached = builder.build(c1, "").value();
  EXPECT_EQ(cached.status, build::BuildStatus::cached_failure);
  EXPECT_EQ(cached.message, failed.message);

  build::BuildOptions rebuild;
  rebuild.rebuild = true;
  auto retried = builder.build(c1, "", rebuild).value();
  EXPECT_EQ(retried.status, build::BuildStatus::failed);
}

TEST_F(BuildTest, CommandNotFoundAndTimeoutsAreFailuresThatSaySo) {
  recipe.command = "no-such-compiler-anywhere --version";
  auto missing = make_builder().build(c1, "").value();
  EXPECT_EQ(missing.status, build::BuildStatus::failed);
  EXPECT_THAT(missing.message, HasSubstr("command not found"));

  recipe.command = "sleep 30";
  recipe.timeout = std::chrono::seconds(1);
  auto hung = make_builder().build(c2, "").value();
  EXPECT_EQ(hung.status, build::BuildStatus::failed);
  EXPECT_THAT(hung.message, HasSubstr("timed out"));
}

TEST_F(BuildTest, ArtifactGlobsThatMatchNothingFailTheBuildAndNameTheGlob) {
  recipe.artifacts = {"bench", "lib/*.so"};
  auto result = make_builder().build(c1, "").value();
  EXPECT_EQ(result.status, build::BuildStatus::failed);
  EXPECT_THAT(result.message, HasSubstr("artifact glob 'lib/*.so' matched nothing"));
  EXPECT_EQ(entries_in(temp / "cache" / "artifacts"), 0U);
}

TEST_F(BuildTest, GlobsReachSubdirectoriesAndInSourceOutputsButNeverOutside) {
  recipe.command = "mkdir -p {build}/out/deep && touch {build}/out/a.bin {build}/out/deep/b.bin "
                   "{build}/skip.txt && cp bench.sh bench.in-source";
  recipe.artifacts = {"out/**.bin", "{src}/bench.in-source"};
  auto result = make_builder().build(c1, "").value();
  ASSERT_EQ(result.status, build::BuildStatus::built) << result.message;
  EXPECT_TRUE(std::filesystem::exists(result.artifact_dir / "out/a.bin"));
  EXPECT_TRUE(std::filesystem::exists(result.artifact_dir / "out/deep/b.bin"));
  EXPECT_TRUE(std::filesystem::exists(result.artifact_dir / "bench.in-source"));
  EXPECT_FALSE(std::filesystem::exists(result.artifact_dir / "skip.txt"));

  recipe.artifacts = {"../../../etc/passwd"};
  auto escape = make_builder().build(c2, "").value();
  EXPECT_EQ(escape.status, build::BuildStatus::failed);
  EXPECT_THAT(escape.message, HasSubstr("must stay inside"));
}

TEST_F(BuildTest, SymlinksInTheBuildAreKeptAsLinksNotFollowed) {
  recipe.command = "ln -s /etc/hostname {build}/outside && cp bench.sh {build}/bench";
  recipe.artifacts = {};
  auto result = make_builder().build(c1, "").value();
  ASSERT_EQ(result.status, build::BuildStatus::built) << result.message;
  EXPECT_TRUE(std::filesystem::is_symlink(result.artifact_dir / "outside"));
  EXPECT_EQ(std::filesystem::read_symlink(result.artifact_dir / "outside"), "/etc/hostname");
}

TEST_F(BuildTest, ADiskThatFillsUpLeavesNoPartialCacheEntry) {
  recipe.command = "head -c 3000000 /dev/zero > {build}/big && cp bench.sh {build}/bench";
  recipe.artifacts = {};
  // A child process plays a full disk: culprit cannot write a file past 1 MB, while the build
  // command raises its own soft limit and writes freely.
  int status = 0;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    exec::LocalExecutor local;
    recipe::BuildRecipe limited = recipe;
    limited.command = "ulimit -S -f unlimited; " + recipe.command;
    build::Builder builder(repo, limited, temp / "cache2", local);
    rlimit limit{1'000'000, RLIM_INFINITY};
    setrlimit(RLIMIT_FSIZE, &limit);
    auto result = builder.build(c1, "");
    _exit(!result && result.error().message.find("free some disk space") != std::string::npos ? 0
                                                                                              : 1);
  }
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the copy must fail with a message about disk space";
  EXPECT_EQ(entries_in(temp / "cache2" / "artifacts"), 0U);
  EXPECT_FALSE(std::filesystem::exists(temp / "cache2" / "builds"))
      << "no build record for a build whose artifacts could not be stored";
  for (auto it = std::filesystem::recursive_directory_iterator(temp / "cache2" / "objects");
       it != std::filesystem::recursive_directory_iterator(); ++it)
    EXPECT_FALSE(it->path().filename().string().starts_with(".tmp-")) << it->path();
}

// A later commit adds a program to the build. Built after it in the same slot, an earlier commit's
// artifacts hold what its own build made and not the later program that the slot kept: the ends
// of a range would otherwise share an artifact id, and be called identical without a run.
class LeftoversTest : public BuildTest {
protected:
  void SetUp() override {
    BuildTest::SetUp();
    scratch.write("tool.sh", "#!/bin/sh\necho tool\n", true);
    c4 = scratch.commit("add a tool");
  }
  // The artifact id of `commit` built alone, in a cache and slot of its own.
  std::string clean_artifact_id(const std::string& commit) {
    auto built = build::Builder(repo, recipe, temp / "clean-cache", executor).build(commit, "");
    EXPECT_TRUE(built && built->ok());
    return built ? built->artifact_id : std::string();
  }
  std::string c4;
};

TEST_F(LeftoversTest, TheWholeBuildDirectoryHoldsOnlyWhatThisCommitBuilt) {
  recipe.command = "cp {src}/bench.sh {build}/bench && if [ -f {src}/tool.sh ]; then "
                   "cp {src}/tool.sh {build}/tool; fi";
  recipe.artifacts = {};
  auto builder = make_builder();
  const auto later = builder.build(c4, "").value();
  const auto earlier = builder.build(c3, "").value();
  ASSERT_TRUE(later.ok() && earlier.ok()) << later.message << earlier.message;
  EXPECT_TRUE(std::filesystem::exists(later.artifact_dir / "tool"));
  EXPECT_FALSE(std::filesystem::exists(earlier.artifact_dir / "tool"));
  EXPECT_NE(earlier.artifact_id, later.artifact_id);
  EXPECT_EQ(earlier.artifact_id, clean_artifact_id(c3));
}

TEST_F(LeftoversTest, NamedArtifactsAreMadeAnewWhileTheRestOfTheBuildDirectoryPersists) {
  recipe.command = "mkdir -p {build}/bin && echo built >> {build}/objects && "
                   "cp {src}/bench.sh {build}/bin/bench && if [ -f {src}/tool.sh ]; then "
                   "cp {src}/tool.sh {build}/bin/tool; fi";
  recipe.artifacts = {"bin"};
  auto builder = make_builder();
  const auto later = builder.build(c4, "").value();
  const auto earlier = builder.build(c3, "").value();
  ASSERT_TRUE(later.ok() && earlier.ok()) << later.message << earlier.message;
  EXPECT_TRUE(std::filesystem::exists(later.artifact_dir / "bin/tool"));
  EXPECT_FALSE(std::filesystem::exists(earlier.artifact_dir / "bin/tool"));
  EXPECT_NE(earlier.artifact_id, later.artifact_id);
  EXPECT_EQ(earlier.artifact_id, clean_artifact_id(c3));
  EXPECT_EQ(contents(temp / "cache/slots/0/build/objects"), "built\nbuilt\n")
      << "the build directory persists: builds stay incremental";
}

TEST_F(LeftoversTest, InSourceArtifactsLoseWhatTheCommitDoesNotTrackAndKeepWhatItDoes) {
  scratch.write("out/README", "tracked\n");
  const auto c5 = scratch.commit("a tracked file among the outputs");
  recipe.command = "cp bench.sh out/bench && if [ -f tool.sh ]; then cp tool.sh out/tool; fi";
  recipe.artifacts = {"{src}/out"};
  auto builder = make_builder();
  const auto later = builder.build(c5, "").value();
  ASSERT_TRUE(later.ok()) << later.message;
  EXPECT_TRUE(std::filesystem::exists(later.artifact_dir / "out/tool"));
  // The earlier commit without the tool, with out/README still tracked: rebased onto c5's tree.
  scratch.remove("tool.sh");
  const auto without_tool = scratch.commit("drop the tool");
  const auto earlier = builder.build(without_tool, "").value();
  ASSERT_TRUE(earlier.ok()) << earlier.message;
  EXPECT_FALSE(std::filesystem::exists(earlier.artifact_dir / "out/tool"));
  EXPECT_EQ(contents(earlier.artifact_dir / "out/README"), "tracked\n");
  EXPECT_EQ(earlier.artifact_id, clean_artifact_id(without_tool));
}

} // namespace
} // namespace culprit
