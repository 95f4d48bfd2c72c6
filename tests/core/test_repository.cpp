#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/git/repository.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit::git {
namespace {

using culprit::testing::ScratchRepo;
using culprit::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class RepositoryTest : public ::testing::Test {
protected:
  TempDir temp{"culprit-repo"};
  ScratchRepo scratch{temp / "project"};
};

TEST_F(RepositoryTest, OpensFromAnyDirectoryInsideTheWorkingTree) {
  scratch.write("src/deep/file.txt", "x");
  scratch.commit("first");
  auto repo = Repository::open(scratch.dir() / "src" / "deep");
  ASSERT_TRUE(repo) << repo.error().message;
  EXPECT_EQ(std::filesystem::canonical(repo->workdir()), std::filesystem::canonical(scratch.dir()));
  EXPECT_FALSE(repo->is_bare());
}

TEST_F(RepositoryTest, OpensBareRepositoriesAndLinkedWorktrees) {
  scratch.write("a.txt", "a");
  const auto first = scratch.commit("first");
  scratch.git({"clone", "-q", "--bare", scratch.dir().string(), (temp / "bare.git").string()});
  auto bare = Repository::open(temp / "bare.git");
  ASSERT_TRUE(bare) << bare.error().message;
  EXPECT_TRUE(bare->is_bare());
  EXPECT_EQ(bare->resolve("main").value(), first);

  scratch.git({"worktree", "add", "-q", "-b", "side", (temp / "linked").string()});
  auto linked = Repository::open(temp / "linked");
  ASSERT_TRUE(linked) << linked.error().message;
  EXPECT_EQ(linked->resolve("HEAD").value(), first);
  auto main_repo = Repository::open(scratch.dir());
  EXPECT_EQ(linked->id(), main_repo->id()) << "worktrees of one repository share its cache";
}

TEST_F(RepositoryTest, NotARepositoryIsAUsageErrorThatSaysWhatToDo) {
  auto repo = Repository::open(temp.path());
  ASSERT_FALSE(repo);
  EXPECT_EQ(repo.error().code, ExitCode::usage);
  EXPECT_THAT(repo.error().message, HasSubstr("not inside a git repository"));
  EXPECT_THAT(repo.error().message, HasSubstr("--repo"));
  auto missing = Repository::open(temp / "nowhere");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ExitCode::usage);
}

TEST_F(RepositoryTest, ResolvesBranchesTagsShortIdsAndExpressions) {
  scratch.write("a.txt", "1");
  const auto c1 = scratch.commit("one");
  scratch.git({"tag", "-a", "v1.2", "-m", "release"});
  scratch.write("a.txt", "2");
  const auto c2 = scratch.commit("two");
  scratch.write("a.txt", "3");
  const auto c3 = scratch.commit("three");
  auto repo = Repository::open(scratch.dir()).value();
  EXPECT_EQ(repo.resolve("main").value(), c3);
  EXPECT_EQ(repo.resolve("HEAD~2").value(), c1);
  EXPECT_EQ(repo.resolve("HEAD^").value(), c2);
  EXPECT_EQ(repo.resolve(c2.substr(0, 8)).value(), c2);
  EXPECT_EQ(repo.resolve("v1.2").value(), c1) << "annotated tags peel to their commit";
  EXPECT_EQ(repo.resolve("v1.2^{commit}").value(), c1);
}

TEST_F(RepositoryTest, UnknownInvalidAndNonCommitRevisionsAreUsageErrors) {
  scratch.write("a.txt", "1");
  scratch.commit("one");
  scratch.git({"tag", "treetag", "HEAD^{tree}"});
  auto repo = Repository::open(scratch.dir()).value();
  auto unknown = repo.resolve("no-such-branch");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ExitCode::usage);
  EXPECT_THAT(unknown.error().message, HasSubstr("unknown revision 'no-such-branch'"));
  auto tree = repo.resolve("treetag");
  ASSERT_FALSE(tree);
  EXPECT_THAT(tree.error().message, HasSubstr("not a commit"));
  auto too_far = repo.resolve("HEAD~5");
  ASSERT_FALSE(too_far);
  EXPECT_EQ(too_far.error().code, ExitCode::usage);
  auto empty = repo.resolve("");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, ExitCode::usage);
}

TEST_F(RepositoryTest, AmbiguousShortIdsAreReportedAsAmbiguous) {
  // Write enough blobs that two share a four-digit prefix (certain with these contents).
  std::vector<std::string> args{"hash-object", "-w"};
  for (int i = 0; i < 1500; ++i) {
    const std::string name = "blob" + std::to_string(i);
    scratch.write(name, "content " + std::to_string(i) + "\n");
    args.push_back(name);
  }
  const std::string ids = scratch.git(args);
  std::map<std::string, int> prefixes;
  std::string ambiguous;
  for (std::size_t at = 0; at + 40 <= ids.size(); at += 41) {
    const auto prefix = ids.substr(at, 4);
    if (++prefixes[prefix] == 2)
      ambiguous = prefix;
  }
  ASSERT_FALSE(ambiguous.empty());
  auto repo = Repository::open(scratch.dir()).value();
  auto result = repo.resolve(ambiguous);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ExitCode::usage);
  EXPECT_THAT(result.error().message, HasSubstr("ambiguous"));
}

TEST_F(RepositoryTest, CommitMetadataAndChangedPaths) {
  scratch.write("keep.txt", "keep\n");
  scratch.write("old_name.txt", "a file that will be renamed, long enough to be similar\n");
  scratch.write("gone.txt", "bye\n");
  const auto root = scratch.commit("Root commit\n\nWith a body.", "Grace Hopper");
  scratch.write("keep.txt", "kept and changed\n");
  scratch.remove("old_name.txt");
  scratch.write("new_name.txt", "a file that will be renamed, long enough to be similar\n");
  scratch.remove("gone.txt");
  scratch.write("added.txt", "new\n");
  const auto second = scratch.commit("Second: <b>bold</b> subject", "Alan Turing");

  auto repo = Repository::open(scratch.dir()).value();
  auto info = repo.commit_info(second).value();
  EXPECT_EQ(info.id, second);
  EXPECT_THAT(info.parents, ElementsAre(root));
  EXPECT_EQ(info.author.name, "Alan Turing");
  EXPECT_EQ(info.author.email, "alan.turing@example.com");
  EXPECT_EQ(info.subject, "Second: <b>bold</b> subject");
  EXPECT_EQ(info.author.iso8601(), "2026-01-01T01:00:00+00:00");
  EXPECT_EQ(repo.commit_info(root).value().subject, "Root commit");

  auto paths = repo.changed_paths(second).value();
  std::map<std::string, ChangedPath> by_path;
  for (const auto& p : paths)
    by_path[p.path] = p;
  ASSERT_EQ(by_path.size(), 4U);
  EXPECT_EQ(by_path["keep.txt"].kind, ChangedPath::Kind::modified);
  EXPECT_EQ(by_path["added.txt"].kind, ChangedPath::Kind::added);
  EXPECT_EQ(by_path["gone.txt"].kind, ChangedPath::Kind::deleted);
  EXPECT_EQ(by_path["new_name.txt"].kind, ChangedPath::Kind::renamed);
  EXPECT_EQ(by_path["new_name.txt"].old_path, "old_name.txt");
  EXPECT_EQ(repo.changed_paths(root).value().size(), 3U) << "a root commit adds everything";
}

TEST_F(RepositoryTest, SignatureFormatsTimeZones) {
  Signature sig{"a", "b", 1767225600, -330};
  EXPECT_EQ(sig.iso8601(), "2025-12-31T18:30:00-05:30");
}

TEST_F(RepositoryTest, RangesFollowFirstParentsByDefaultAndTheWholeDagOnRequest) {
  scratch.write("f", "a");
  const auto a = scratch.commit("A");
  scratch.write("f", "b");
  const auto b = scratch.commit("B");
  scratch.git({"checkout", "-q", "-b", "feature"});
  scratch.write("g", "1");
  const auto f1 = scratch.commit("F1");
  scratch.write("g", "2");
  const auto f2 = scratch.commit("F2");
  scratch.git({"checkout", "-q", "main"});
  scratch.write("f", "c");
  const auto c = scratch.commit("C");
  scratch.git({"merge", "-q", "--no-ff", "-m", "Merge feature", "feature"});
  const auto m = scratch.git({"rev-parse", "HEAD"}).substr(0, 40);
  scratch.write("f", "d");
  const auto d = scratch.commit("D");

  auto repo = Repository::open(scratch.dir()).value();
  EXPECT_THAT(repo.range(a, d, History::first_parent).value(), ElementsAre(b, c, m, d));
  const auto dag = repo.range(a, d, History::full_dag).value();
  EXPECT_EQ(dag.size(), 6U);
  EXPECT_EQ(dag.back(), d);
  EXPECT_NE(std::find(dag.begin(), dag.end(), f1), dag.end());
  EXPECT_LT(std::find(dag.begin(), dag.end(), f1), std::find(dag.begin(), dag.end(), f2));
  EXPECT_TRUE(repo.range(d, d, History::first_parent).value().empty());
  EXPECT_TRUE(repo.is_ancestor(a, d).value());
  EXPECT_TRUE(repo.is_ancestor(f1, d).value());
  EXPECT_FALSE(repo.is_ancestor(d, a).value());
  EXPECT_TRUE(repo.is_ancestor(a, a).value());
}

// What most CI jobs fetch: `git clone --depth N`. The commits at the boundary are there, their
// parents are not.
TEST_F(RepositoryTest, AShallowCloneWalksTheHistoryItHolds) {
  std::vector<std::string> ids;
  for (const char* name : {"A", "B", "C", "D", "E"}) {
    scratch.write("f", name);
    ids.push_back(scratch.commit(name));
  }
  scratch.git({"checkout", "-q", "-b", "side"});
  scratch.write("g", "1");
  const auto s1 = scratch.commit("S1");
  scratch.git({"checkout", "-q", "main"});
  scratch.git({"merge", "-q", "--no-ff", "-m", "Merge side", "side"});
  const auto merge = scratch.git({"rev-parse", "HEAD"}).substr(0, 40);
  scratch.git({"branch", "old", ids[0]});
  const auto shallow = temp / "shallow";
  scratch.git({"clone", "-q", "--depth", "3", "--no-single-branch",
               "file://" + scratch.dir().string(), shallow.string()});

  auto repo = Repository::open(shallow).value();
  ASSERT_TRUE(repo.is_shallow());
  // HEAD~1 (E) is at the boundary or inside it: its range to HEAD needs no parent of the boundary.
  EXPECT_THAT(repo.range("HEAD~1", "HEAD", History::first_parent).value(), ElementsAre(merge));
  EXPECT_THAT(repo.range(ids[3], "HEAD", History::first_parent).value(),
              ElementsAre(ids[4], merge));
  EXPECT_THAT(repo.range(ids[4], "HEAD", History::full_dag).value(), ElementsAre(s1, merge));
  EXPECT_TRUE(repo.is_ancestor("HEAD~1", "HEAD").value());
  EXPECT_FALSE(repo.is_ancestor("HEAD", "HEAD~1").value());
  // The root is there (the branch `old`), but not the history between it and HEAD.
  EXPECT_FALSE(repo.is_ancestor("origin/old", "HEAD").value());
  const auto missing = repo.range("origin/old", "HEAD", History::first_parent);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ExitCode::usage);
  EXPECT_THAT(missing.error().message, HasSubstr("git fetch --unshallow"));
}

TEST_F(RepositoryTest, ReadsFilesAtACommit) {
  scratch.write("dir/CODEOWNERS", "* @team\n");
  const auto c = scratch.commit("owners");
  scratch.remove("dir");
  scratch.commit("gone");
  auto repo = Repository::open(scratch.dir()).value();
  EXPECT_EQ(repo.read_file_at(c, "dir/CODEOWNERS").value(), "* @team\n");
  EXPECT_FALSE(repo.read_file_at("HEAD", "dir/CODEOWNERS"));
  EXPECT_FALSE(repo.read_file_at(c, "dir"));
}

} // namespace
} // namespace culprit::git
