#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/git/codeowners.hpp"
#include "core/git/repository.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

bool github(std::string_view pattern, std::string_view path) {
  return git::codeowners_pattern_matches(pattern, path, git::CodeownersDialect::github);
}
bool gitlab(std::string_view pattern, std::string_view path) {
  return git::codeowners_pattern_matches(pattern, path, git::CodeownersDialect::gitlab);
}

TEST(CodeownersPattern, FollowsTheGitignoreRulesThatGithubDocuments) {
  EXPECT_TRUE(github("*", "any/file.cu"));
  EXPECT_TRUE(github("*.js", "a/b/c.js"));
  EXPECT_FALSE(github("*.js", "a/b/c.jsx"));
  // A trailing slash: a directory anywhere, and everything in it.
  EXPECT_TRUE(github("apps/", "apps/x.c"));
  EXPECT_TRUE(github("apps/", "deep/in/apps/x/y.c"));
  EXPECT_FALSE(github("apps/", "apps")); // a file named apps is not a directory
  // A leading slash anchors at the top.
  EXPECT_TRUE(github("/docs/", "docs/a/b.md"));
  EXPECT_FALSE(github("/docs/", "src/docs/b.md"));
  // "dir/*" is the files directly in dir.
  EXPECT_TRUE(github("docs/*", "docs/getting-started.md"));
  EXPECT_FALSE(github("docs/*", "docs/build-app/troubleshooting.md"));
  // A slash in the middle anchors for GitHub, not for GitLab.
  EXPECT_FALSE(github("docs/*", "src/docs/x.md"));
  EXPECT_TRUE(gitlab("docs/*", "src/docs/x.md"));
  // A pattern without slashes matches a file or a directory at any depth.
  EXPECT_TRUE(github("logs", "a/logs/today.txt"));
  EXPECT_TRUE(github("Makefile", "sub/Makefile"));
  // "**" spans directories.
  EXPECT_TRUE(github("**/logs", "build/logs/x"));
  EXPECT_TRUE(github("/build/logs/", "build/logs/deep/x"));
  EXPECT_TRUE(github("docs/**/*.md", "docs/a/b/c.md"));
  EXPECT_TRUE(github("docs/**/*.md", "docs/c.md"));
  EXPECT_FALSE(github("docs/**/*.md", "docs/c.txt"));
  EXPECT_TRUE(github("/src/**", "src/a/b"));
  EXPECT_TRUE(github("a/**/b", "a/x/y/b"));
  // "*" and "?" stop at "/", and match dotfiles.
  EXPECT_FALSE(github("/src/*.c", "src/a/b.c"));
  EXPECT_TRUE(github("?.c", "x/a.c"));
  EXPECT_FALSE(github("?.c", "x/ab.c"));
  EXPECT_TRUE(github("*", ".gitignore"));
  // Escapes.
  EXPECT_TRUE(github("path with spaces/", "path with spaces/f"));
  EXPECT_TRUE(github("\\*.c", "*.c"));
  EXPECT_FALSE(github("\\*.c", "x.c"));
}

TEST(CodeownersPattern, IsLinearOnPathologicalPatternsAndNeverLeavesTheRepository) {
  const std::string path(200, 'a');
  EXPECT_FALSE(github("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", path));
  EXPECT_FALSE(github("**/**/**/**/**/**/**/**/**/**/x", "a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/y"));
  EXPECT_FALSE(github("../../etc/passwd", "etc/passwd"));
  EXPECT_FALSE(github("/", "anything"));
}

TEST(Codeowners, TheLastMatchingRuleWins) {
  const auto owners = git::Codeowners::parse(R"(# comment
*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
/build/logs/ @doctocat
docs/*  docs@example.com
apps/   @octocat
/apps/github
path\ with\ spaces/ @space-owner
\#hash.txt @hash-owner
)",
                                             git::CodeownersDialect::github);
  EXPECT_THAT(owners.owners_of("README.md"), ElementsAre("@global-owner1", "@global-owner2"));
  EXPECT_THAT(owners.owners_of("src/app.js"), ElementsAre("@js-owner"));
  EXPECT_THAT(owners.owners_of("build/logs/out.log"), ElementsAre("@doctocat"));
  EXPECT_THAT(owners.owners_of("docs/intro.md"), ElementsAre("docs@example.com"));
  EXPECT_THAT(owners.owners_of("apps/web/index.html"), ElementsAre("@octocat"));
  EXPECT_THAT(owners.owners_of("apps/github/x.c"), IsEmpty()); // a rule without owners
  EXPECT_THAT(owners.owners_of("path with spaces/f.txt"), ElementsAre("@space-owner"));
  EXPECT_THAT(owners.owners_of("#hash.txt"), ElementsAre("@hash-owner"));
  EXPECT_THAT(owners.owners_of(std::vector<std::string>{"a.js", "README", "b.js"}),
              ElementsAre("@js-owner", "@global-owner1", "@global-owner2"));
  EXPECT_THAT(owners.warnings(), IsEmpty());
}

TEST(Codeowners, GitlabSectionsUniteAndGiveDefaultOwners) {
  const auto owners = git::Codeowners::parse(R"(* @general-approvers

[Documentation] @docs-team
docs/
README.md
*.txt

^[Database][2] @database-team
model/db/
config/db/database-setup.md @docs-team

[documentation]
ee/docs/ @product-team

[Kernels] @gpu
kernels/
!kernels/generated/
)",
                                             git::CodeownersDialect::gitlab);
  ASSERT_EQ(owners.sections().size(), 4U);
  EXPECT_TRUE(owners.sections()[2].optional);
  EXPECT_THAT(owners.owners_of("docs/a.md"), ElementsAre("@general-approvers", "@docs-team"));
  EXPECT_THAT(owners.owners_of("model/db/x.rb"),
              ElementsAre("@general-approvers", "@database-team"));
  EXPECT_THAT(owners.owners_of("config/db/database-setup.md"),
              ElementsAre("@general-approvers", "@docs-team"));
  // The second [documentation] is the same section: its rule wins there.
  EXPECT_THAT(owners.owners_of("ee/docs/x.md"), ElementsAre("@general-approvers", "@product-team"));
  EXPECT_THAT(owners.owners_of("kernels/sgemm.cu"), ElementsAre("@general-approvers", "@gpu"));
  EXPECT_THAT(owners.owners_of("kernels/generated/t.cu"), ElementsAre("@general-approvers"));
}

TEST(Codeowners, BadLinesAreSkippedWithAWarning) {
  const auto owners = git::Codeowners::parse("[Unclosed\n*.c not-an-owner @c\n!x @y\n",
                                             git::CodeownersDialect::github);
  EXPECT_THAT(owners.owners_of("a.c"), ElementsAre("@c"));
  ASSERT_EQ(owners.warnings().size(), 3U);
  EXPECT_THAT(owners.warnings()[0], HasSubstr("line 1"));
  EXPECT_THAT(owners.warnings()[1], HasSubstr("'not-an-owner' is not an owner"));
  EXPECT_THAT(owners.warnings()[2], HasSubstr("'!'"));
}

TEST(Codeowners, IsReadFromTheCulpritCommitNotTheWorkingTree) {
  testing::TempDir temp;
  testing::ScratchRepo scratch(temp / "repo");
  scratch.write("docs/CODEOWNERS", "* @docs-fallback\n");
  scratch.write("src/a.c", "int a;\n");
  const auto first = scratch.commit("first");
  scratch.write(".github/CODEOWNERS", "/src/ @src-team\n");
  const auto second = scratch.commit("second");
  scratch.write(".github/CODEOWNERS", "/src/ @someone-else\n"); // uncommitted
  auto repo = git::Repository::open(scratch.dir());
  ASSERT_TRUE(repo) << repo.error().message;

  auto at_first = find_codeowners(*repo, first);
  ASSERT_TRUE(at_first && *at_first);
  EXPECT_EQ((*at_first)->path, "docs/CODEOWNERS");
  EXPECT_THAT((*at_first)->owners.owners_of("src/a.c"), ElementsAre("@docs-fallback"));

  auto at_second = find_codeowners(*repo, second);
  ASSERT_TRUE(at_second && *at_second);
  EXPECT_EQ((*at_second)->path, ".github/CODEOWNERS");
  EXPECT_THAT((*at_second)->owners.owners_of("src/a.c"), ElementsAre("@src-team"));
}

TEST(Codeowners, AGitlabFileIsReadTheGitlabWay) {
  testing::TempDir temp;
  testing::ScratchRepo scratch(temp / "repo");
  scratch.write(".gitlab/CODEOWNERS", "docs/* @docs\n");
  const auto commit = scratch.commit("gitlab");
  auto repo = git::Repository::open(scratch.dir());
  ASSERT_TRUE(repo);
  auto found = find_codeowners(*repo, commit);
  ASSERT_TRUE(found && *found);
  EXPECT_EQ((*found)->owners.dialect(), git::CodeownersDialect::gitlab);
  EXPECT_THAT((*found)->owners.owners_of("a/docs/x.md"), ElementsAre("@docs"));

  scratch.remove(".gitlab/CODEOWNERS");
  const auto none = scratch.commit("no owners");
  auto missing = find_codeowners(*repo, none);
  ASSERT_TRUE(missing);
  EXPECT_FALSE(*missing);
}

} // namespace
} // namespace culprit
