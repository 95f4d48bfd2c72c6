#include <fstream>
#include <set>

#include <fmt/core.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/build/pool.hpp"
#include "core/exec/local_executor.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using testing::ScratchRepo;
using testing::TempDir;

TEST(BuildPool, BuildsARoundsCommitsAtOnceInSlotsOfTheirOwn) {
  TempDir temp{"culprit-pool"};
  ScratchRepo scratch{temp.path() / "project"};
  std::vector<std::pair<std::string, std::string>> commits;
  for (int i = 0; i < 4; ++i) {
    scratch.write("bench.sh", "#!/bin/sh\necho " + std::to_string(i) + "\n", true);
    const auto id = scratch.commit("version " + std::to_string(i));
    commits.emplace_back(id, id);
  }
  const auto before = testing::snapshot(scratch.dir());
  // Each build notes when it started and ended and in which slot, and waits (up to 30 s) until
  // as many builds as the pool runs at once have started: builds that run at once all get there,
  // however late the machine starts one of them.
  const auto journal = temp.path() / "journal";
  recipe::BuildRecipe recipe;
  recipe.command = fmt::format(
      "echo \"start $(date +%s.%N) {{src}}\" >> {0} && i=0 && "
      "while [ $(grep -c start {0}) -lt {1} ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); "
      "done && cp {{src}}/bench.sh {{build}}/bench && echo \"end $(date +%s.%N)\" >> {0}",
      journal.string(), build::k_max_parallel_builds);
  recipe.artifacts = {"bench"};
  auto repo = git::Repository::open(scratch.dir()).value();
  exec::LocalExecutor executor;
  build::Builder main(repo, recipe, temp.path() / "cache", executor);
  build::BuildPool pool(main, {}, scratch.dir(), recipe, temp.path() / "cache", 8);
  EXPECT_EQ(pool.threads(), build::k_max_parallel_builds);
  ASSERT_TRUE(pool.prepare(commits));
  for (const auto& [commit, rev] : commits) {
    auto built = pool.build(commit, rev);
    ASSERT_TRUE(built) << built.error().message;
    EXPECT_EQ(built->status, build::BuildStatus::built) << built->message;
    EXPECT_EQ(built->commit, commit);
  }
  // Builds overlapped in time, in more than one slot.
  std::ifstream in(journal);
  std::vector<double> starts;
  std::vector<double> ends;
  std::set<std::string> slots;
  for (std::string word; in >> word;) {
    double when = 0;
    in >> when;
    if (word == "start") {
      starts.push_back(when);
      std::string slot;
      in >> slot;
      slots.insert(slot);
    } else {
      ends.push_back(when);
    }
  }
  ASSERT_EQ(starts.size(), 4U);
  ASSERT_EQ(ends.size(), 4U);
  // The first three builds had all started before any build ended.
  EXPECT_LT(std::max({starts[0], starts[1], starts[2]}), *std::ranges::min_element(ends));
  EXPECT_EQ(slots.size(), static_cast<std::size_t>(build::k_max_parallel_builds));
  // The user's checkout is untouched.
  EXPECT_EQ(testing::snapshot(scratch.dir()), before);
}

} // namespace
} // namespace culprit

namespace culprit {
namespace {

TEST(BuildPool, ACommitAskedForTwiceIsBuiltOnce) {
  TempDir temp{"culprit-pool-twice"};
  testing::ScratchRepo scratch{temp.path() / "project"};
  scratch.write("bench.sh", "#!/bin/sh\necho 1\n", true);
  const auto first = scratch.commit("one");
  scratch.write("bench.sh", "#!/bin/sh\necho 2\n", true);
  const auto second = scratch.commit("two");
  const auto journal = temp.path() / "journal";
  recipe::BuildRecipe recipe;
  recipe.command = "echo built >> " + journal.string() + " && cp {src}/bench.sh {build}/bench";
  recipe.artifacts = {"bench"};
  auto repo = git::Repository::open(scratch.dir()).value();
  exec::LocalExecutor executor;
  build::Builder main(repo, recipe, temp.path() / "cache", executor);
  build::BuildPool pool(main, {}, scratch.dir(), recipe, temp.path() / "cache", 2);
  // The commit that overlaps two lanes' blocks of a track comes twice.
  const std::vector<std::pair<std::string, std::string>> commits = {
      {first, first}, {second, second}, {second, second}};
  ASSERT_TRUE(pool.prepare(commits));
  ASSERT_TRUE(pool.prepare(commits)); // and prepared commits are not built again
  std::ifstream in(journal);
  int builds = 0;
  for (std::string line; std::getline(in, line);)
    ++builds;
  EXPECT_EQ(builds, 2);
}

} // namespace
} // namespace culprit
