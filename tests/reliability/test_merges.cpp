// bisect --all-commits through merges of two and more parents: the culprit on a merged branch is
// named, not the merge; a change that only the merge makes names the merge, and says why.

#include <gmock/gmock.h>

#include "core/evidence/evidence.hpp"
#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;

struct MergedHistory {
  std::string good;
  std::string bad;
  std::string culprit; // where the value steps, on the second branch
  std::string merge;
};

// base (good) -> main1 -> a merge of `branches` branches of two commits each -> main2 (bad). The
// second commit of the second branch multiplies the value by 1.3; `in_merge`: no branch does, and
// the merge itself writes the slower value.
MergedHistory merged_history(ScratchRepo& repo, int branches, bool in_merge = false) {
  MergedHistory history;
  repo.write("bench.sh", k_step_bench_script, true);
  repo.write("culprit.toml", k_step_recipe);
  repo.write("value", "10.000000\n");
  history.good = repo.commit("base");
  repo.write("NOTES", "main 1\n");
  repo.commit("main 1");
  std::vector<std::string> names;
  for (int b = 1; b <= branches; ++b) {
    const auto name = "b" + std::to_string(b);
    names.push_back(name);
    repo.git({"checkout", "-q", "-b", name, "main"});
    for (int c = 1; c <= 2; ++c) {
      repo.write(name + ".txt", name + " " + std::to_string(c) + "\n");
      if (b == 2 && c == 2 && !in_merge)
        repo.write("value", "13.000000\n");
      const auto id = repo.commit(name + "-" + std::to_string(c));
      if (b == 2 && c == 2)
        history.culprit = id;
    }
  }
  repo.git({"checkout", "-q", "main"});
  std::vector<std::string> merge = {"merge", "-q", "--no-ff", "-m", "merge the branches"};
  merge.insert(merge.end(), names.begin(), names.end());
  repo.git(merge);
  if (in_merge) {
    repo.write("value", "13.000000\n");
    repo.git({"add", "value"});
    repo.git({"commit", "-q", "--amend", "--no-edit"});
  }
  history.merge = repo.git({"rev-parse", "HEAD"});
  history.merge.erase(history.merge.find_last_not_of('\n') + 1);
  repo.write("NOTES", "main 2\n");
  history.bad = repo.commit("main 2");
  return history;
}

class MergeBisection : public ::testing::TestWithParam<int> {};

TEST_P(MergeBisection, NamesTheCommitOnTheMergedBranch) {
  TempDir temp("culprit-merges");
  ScratchRepo repo(temp / "project");
  const auto history = merged_history(repo, GetParam());
  const auto json = temp / "bisect.json";
  const auto result =
      run_culprit({"--cache-dir", (temp / "cache").string(), "bisect", "--good", history.good,
                   "--bad", history.bad, "--all-commits", "--json", json.string()},
                  repo.dir());
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U) << result.out;
  EXPECT_EQ(evidence->bisect->culprits[0].commit, history.culprit) << result.out;
  EXPECT_EQ(evidence->bisect->commits_in_range, 3 + (2 * GetParam()));
  ASSERT_EQ(evidence->bisect->culprits[0].cases.size(), 1U);
  ASSERT_TRUE(evidence->bisect->culprits[0].cases[0].share);
  EXPECT_NEAR(*evidence->bisect->culprits[0].cases[0].share, 1.0, 0.1);
}

INSTANTIATE_TEST_SUITE_P(Parents, MergeBisection, ::testing::Values(2, 3, 4),
                         [](const auto& param_info) {
                           return std::to_string(param_info.param) + "Branches";
                         });

TEST(MergeBisection, AChangeOnlyTheMergeMakesNamesTheMerge) {
  TempDir temp("culprit-evil-merge");
  ScratchRepo repo(temp / "project");
  const auto history = merged_history(repo, 3, true);
  const auto json = temp / "bisect.json";
  const auto result =
      run_culprit({"--cache-dir", (temp / "cache").string(), "bisect", "--good", history.good,
                   "--bad", history.bad, "--all-commits", "--json", json.string()},
                  repo.dir());
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U);
  EXPECT_EQ(evidence->bisect->culprits[0].commit, history.merge);
  EXPECT_THAT(result.out, HasSubstr("the merge itself made it"));
}

} // namespace
} // namespace culprit::testing
