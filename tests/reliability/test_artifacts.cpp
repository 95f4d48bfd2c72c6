// What a run sees of its build cannot change what the cache holds: a run that writes into {build}
// (appends to an artifact, adds a file, removes one) is stopped, and the build is made again
// before anything measures it, with every object restored to the content its name says.

#include <fstream>
#include <sstream>

#include <gmock/gmock.h>

#include "core/build/cache.hpp"
#include "core/util/tree_state.hpp"
#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;

// The artifact directory `culprit build` printed last on its line.
std::filesystem::path artifact_dir_of(const std::string& build_output) {
  const auto line = build_output.substr(0, build_output.find('\n'));
  return line.substr(line.rfind(' ') + 1);
}

struct Tampering {
  const char* name;
  const char* run; // writes into {build} before it prints its samples
};

class ArtifactTampering : public ::testing::TestWithParam<Tampering> {};

TEST_P(ArtifactTampering, StopsTheRunAndBuildsAgainBeforeAnyReuse) {
  TempDir temp("culprit-artifacts");
  StepProject project(temp / "project", {.commits = 2, .step_at = 1});
  const auto cache = temp / "cache";
  const auto built = run_culprit({"--cache-dir", cache.string(), "build", "HEAD"}, project.dir());
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const auto dir = artifact_dir_of(built.out);
  const auto value = read_all(dir / "value");
  ASSERT_FALSE(value.empty());

  const auto ran = run_culprit({"--cache-dir", cache.string(), "run", "HEAD", "--run",
                                GetParam().run, "--min-runs", "2", "--max-runs", "2"},
                               project.dir());
  EXPECT_EQ(ran.exit_code, 4) << ran.out << ran.err;
  EXPECT_THAT(one_error_line(ran), HasSubstr("the benchmark changed its artifacts"));

  const auto again = run_culprit({"--cache-dir", cache.string(), "build", "HEAD"}, project.dir());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr(" built ")) << again.out;
  EXPECT_THAT(again.out, ::testing::Not(HasSubstr("cached")));
  EXPECT_EQ(artifact_dir_of(again.out), dir) << "the same contents, the same artifact id";
  EXPECT_EQ(read_all(dir / "value"), value);
  EXPECT_FALSE(std::filesystem::exists(dir / "x"));
  const auto cached = run_culprit({"--cache-dir", cache.string(), "build", "HEAD"}, project.dir());
  EXPECT_THAT(cached.out, HasSubstr("cached"));
}

INSTANTIATE_TEST_SUITE_P(
    Runs, ArtifactTampering,
    ::testing::Values(
        Tampering{"AppendsToAnArtifact", "sh -c 'echo 99 >> {build}/value; sh {build}/bench.sh "
                                         "{build}/value'"},
        Tampering{"AddsAFile", "sh -c 'echo x > {build}/x; sh {build}/bench.sh {build}/value'"},
        Tampering{"RemovesAFile", "sh -c 'cp {build}/value v; rm -f {build}/value; sh "
                                  "{build}/bench.sh v'"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// A change made behind culprit's back, between two commands, is found before the build is reused.
TEST(ArtifactCheck, AChangedArtifactIsNotReusedAndItsObjectIsReplaced) {
  TempDir temp("culprit-artifact-check");
  StepProject project(temp / "project", {.commits = 2, .step_at = 1});
  const auto cache = temp / "cache";
  const auto built = run_culprit({"--cache-dir", cache.string(), "build", "HEAD"}, project.dir());
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const auto dir = artifact_dir_of(built.out);
  const auto value = read_all(dir / "value");
  std::filesystem::permissions(dir / "value", std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  std::ofstream(dir / "value", std::ios::app) << "tampered\n";

  const auto again = run_culprit({"--cache-dir", cache.string(), "build", "HEAD"}, project.dir());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr(" built "));
  EXPECT_EQ(read_all(dir / "value"), value);
}

TEST(TreeState, TellsAddedRemovedAndChangedEntriesAndReadsItsText) {
  TempDir temp("culprit-tree-state");
  std::filesystem::create_directories(temp / "d" / "sub");
  std::ofstream(temp / "d" / "a") << "a";
  std::ofstream(temp / "d" / "sub" / "b") << "b";
  const auto before = tree_state(temp / "d");
  ASSERT_TRUE(before);
  EXPECT_EQ(tree_state_from_text(to_text(*before)), before);
  EXPECT_FALSE(first_difference(*before, *tree_state(temp / "d")));
  std::ofstream(temp / "d" / "sub" / "b", std::ios::app) << "more";
  EXPECT_EQ(first_difference(*before, *tree_state(temp / "d")), "sub/b");
  std::filesystem::remove(temp / "d" / "a");
  EXPECT_EQ(first_difference(*before, *tree_state(temp / "d")), "a");
  EXPECT_FALSE(tree_state(temp / "nowhere"));
  EXPECT_FALSE(tree_state_from_text("[1]"));
}

// A later commit adds a program to the build; an earlier one built after it, in the same slot,
// holds none of it: the two have artifacts of their own, not one id for both.
TEST(ArtifactLeftovers, AnEarlierCommitBuiltAfterALaterOneHoldsNoneOfItsPrograms) {
  TempDir temp("culprit-artifact-leftovers");
  ScratchRepo repo(temp / "project");
  repo.write("culprit.toml", R"([build]
command = "cp {src}/bench.sh {build}/bench && if [ -f {src}/tool.sh ]; then cp {src}/tool.sh {build}/tool; fi"
[run]
command = "sh {build}/bench"
format = "culprit"
)");
  repo.write("bench.sh", "echo bench\n");
  const auto early = repo.commit("a benchmark");
  repo.write("tool.sh", "echo tool\n");
  const auto late = repo.commit("a tool beside it");
  const auto built =
      run_culprit({"--cache-dir", (temp / "cache").string(), "build", late, early}, repo.dir());
  ASSERT_EQ(built.exit_code, 0) << built.err;
  std::istringstream lines(built.out);
  std::string late_line;
  std::string early_line;
  ASSERT_TRUE(std::getline(lines, late_line) && std::getline(lines, early_line)) << built.out;
  const auto late_dir = artifact_dir_of(late_line);
  const auto early_dir = artifact_dir_of(early_line);
  EXPECT_NE(late_dir, early_dir) << "the builds differ, and so do their artifact ids";
  EXPECT_TRUE(std::filesystem::exists(late_dir / "tool"));
  EXPECT_FALSE(std::filesystem::exists(early_dir / "tool")) << "the later commit's program";
}

} // namespace
} // namespace culprit::testing
