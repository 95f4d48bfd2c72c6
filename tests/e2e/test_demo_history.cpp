// The demo history (examples/demo/make_history.sh): the repository it makes has the shape the
// demo and the bisection tests rely on, its good and bad ends build with its own recipe while the
// broken commit does not, and making it twice gives the same commit ids.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/recipe/command_template.hpp"
#include "core/recipe/recipe.hpp"
#include "tests/support/process.hpp"
#include "tests/support/source_tree.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ProcessOutput;
using testing::run_process;
using testing::TempDir;

fs::path generator() {
  return culprit::testing::source_dir() / "examples/demo/make_history.sh";
}

ProcessOutput make_history(const fs::path& dir) {
  return run_process({"bash", generator().string(), dir.string()}, fs::current_path());
}

std::string text(const nlohmann::json& value) {
  return value.get<std::string>();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    result.push_back(line);
  return result;
}

// One demo repository for the whole suite: making it is the slow part.
class DemoHistory : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    s_temp = new TempDir("culprit-demo");
    const ProcessOutput made = make_history(s_temp->path() / "demo");
    ASSERT_EQ(made.exit_code, 0) << made.err;
    s_planted = new nlohmann::json(nlohmann::json::parse(made.out));
  }
  static void TearDownTestSuite() {
    delete s_planted;
    s_planted = nullptr;
    delete s_temp;
    s_temp = nullptr;
  }

  static fs::path repo() { return s_temp->path() / "demo"; }
  static const nlohmann::json& planted() { return *s_planted; }

  // git in the demo repository; fails the test when git does.
  static std::string git(std::vector<std::string> args) {
    args.insert(args.begin(), {"git", "-C", repo().string()});
    const ProcessOutput out = run_process(args, repo(), {{"GIT_CONFIG_GLOBAL", "/dev/null"}});
    EXPECT_EQ(out.exit_code, 0) << out.err;
    std::string text = out.out;
    while (!text.empty() && text.back() == '\n')
      text.pop_back();
    return text;
  }
  static bool is_ancestor(const std::string& ancestor, const std::string& descendant) {
    return run_process(
               {"git", "-C", repo().string(), "merge-base", "--is-ancestor", ancestor, descendant},
               repo())
               .exit_code == 0;
  }

  // Checks `commit` out into the source directory (first a new worktree, then only the files
  // that differ, as culprit's slots do) and runs the recipe's build command there with /bin/sh,
  // {src} and {build} expanded. The build directory persists, so later builds are incremental.
  static ProcessOutput build(const std::string& commit, const recipe::Recipe& recipe) {
    const fs::path src = s_temp->path() / "src";
    if (fs::exists(src))
      git({"-C", src.string(), "checkout", "-q", "--detach", commit});
    else
      git({"worktree", "add", "-q", "--detach", src.string(), commit});
    fs::create_directories(build_dir());
    const auto command = recipe::expand_template(
        recipe.build.command,
        recipe::TemplateValues{src.string(), build_dir().string(), commit, commit},
        recipe::Quoting::shell);
    EXPECT_TRUE(command.has_value());
    return run_process({"/bin/sh", "-c", command.value_or("false")}, src);
  }
  static fs::path build_dir() { return s_temp->path() / "build"; }

  static TempDir* s_temp;
  static nlohmann::json* s_planted;
};

TempDir* DemoHistory::s_temp = nullptr;
nlohmann::json* DemoHistory::s_planted = nullptr;

// The commit graph, and the planted commits as the JSON reports them. One test, because each
// test process makes the repository anew.
TEST_F(DemoHistory, HasAboutSixtyCommitsAMergeAndThePlantedCommitsItReports) {
  const int first_parent = std::stoi(git({"rev-list", "--count", "--first-parent", "main"}));
  EXPECT_GE(first_parent, 55);
  EXPECT_LE(first_parent, 65);
  EXPECT_EQ(git({"rev-parse", "main"}), text(planted()["bad"]));
  EXPECT_EQ(git({"rev-parse", "v0.1"}), text(planted()["good"]));

  const auto merges = lines(git({"rev-list", "--first-parent", "--merges", "main"}));
  ASSERT_EQ(merges.size(), 1U);
  const auto& merge = planted()["merge"];
  EXPECT_EQ(merges[0], text(merge["commit"]));
  EXPECT_NE(git({"log", "-1", "--format=%P", merges[0]}).find(' '), std::string::npos)
      << "a merge has two parents";
  const auto side =
      lines(git({"rev-list", "--reverse", merges[0] + "^2", "--not", merges[0] + "^1"}));
  EXPECT_EQ(side, merge["branch_commits"].get<std::vector<std::string>>());
  EXPECT_GE(side.size(), 2U);
  EXPECT_EQ(std::stoi(git({"rev-list", "--count", "v0.1..main"})),
            planted()["commits_in_range"].get<int>());

  const std::string good = planted()["good"];
  const std::string bad = planted()["bad"];
  const auto& regressions = planted()["regressions"];
  ASSERT_EQ(regressions.size(), 2U);
  std::set<std::string> kernels;
  const std::string toml = git({"show", "main:culprit.toml"});
  for (const auto& regression : regressions) {
    const std::string commit = regression["commit"];
    const std::string kernel = regression["kernel"];
    kernels.insert(kernel);
    EXPECT_EQ(git({"log", "-1", "--format=%s", commit}), text(regression["subject"]));
    EXPECT_TRUE(is_ancestor(good, commit + "^") && is_ancestor(commit, bad)) << commit;
    // The change is a kernel's source and nothing else, and the recipe runs its case.
    EXPECT_EQ(git({"diff-tree", "--no-commit-id", "--name-only", "-r", commit}),
              "kernels/cpu/" + kernel + ".cpp");
    EXPECT_THAT(toml, HasSubstr("\"" + regression["case"].get<std::string>() + "\""));
  }
  EXPECT_EQ(kernels.size(), 2U) << "the regressions are in different kernels";

  const auto& broken = planted()["broken"];
  const std::string fix = broken["fixed_by"]["commit"];
  EXPECT_EQ(git({"log", "-1", "--format=%s", text(broken["commit"])}), text(broken["subject"]));
  EXPECT_EQ(git({"log", "-1", "--format=%s", fix}), text(broken["fixed_by"]["subject"]));
  EXPECT_TRUE(is_ancestor(good, text(broken["commit"])) && is_ancestor(fix, bad));
  const auto unbuildable = broken["unbuildable"].get<std::vector<std::string>>();
  EXPECT_EQ(unbuildable, lines(git({"rev-list", "--reverse",
                                    broken["commit"].get<std::string>() + "^.." + fix + "^"})));
  for (const auto& regression : regressions) {
    const std::string commit = regression["commit"];
    EXPECT_EQ(std::count(unbuildable.begin(), unbuildable.end(), commit), 0);
    EXPECT_NE(fix, commit);
  }
  // A bisection's first probe, the middle of the first-parent range, does not build.
  const auto range = lines(git({"rev-list", "--reverse", "--first-parent", good + ".." + bad}));
  EXPECT_EQ(std::count(unbuildable.begin(), unbuildable.end(), range.at(range.size() / 2)), 1);
}

TEST_F(DemoHistory, TheEndsBuildWithTheRecipeAndTheBrokenCommitDoesNot) {
  // The recipe as culprit reads it from a checkout of the bad end.
  const fs::path toml = s_temp->path() / "culprit.toml";
  std::ofstream(toml) << git({"show", "main:culprit.toml"}) << "\n";
  const auto recipe = recipe::load_recipe(toml);
  ASSERT_TRUE(recipe.has_value()) << recipe.error().message;
  EXPECT_EQ(recipe->run.format, "culprit");

  ASSERT_EQ(recipe->build.artifacts.size(), 1U);
  const fs::path program = build_dir() / recipe->build.artifacts[0];
  for (const char* end : {"good", "bad"}) {
    const ProcessOutput built = build(text(planted()[end]), *recipe);
    ASSERT_EQ(built.exit_code, 0) << end << ":\n" << built.err;
    ASSERT_TRUE(fs::is_regular_file(program)) << end;
    // The program knows every case the recipe runs: --list with the same --case flags.
    const auto argv =
        recipe::expand_template(std::get<std::vector<std::string>>(recipe->run.command),
                                recipe::TemplateValues{"", build_dir().string(), "", ""});
    ASSERT_TRUE(argv.has_value());
    auto list = *argv;
    list.emplace_back("--list");
    const ProcessOutput listed = run_process(list, build_dir());
    EXPECT_EQ(listed.exit_code, 0) << end << ": " << listed.err;
    for (const auto& regression : planted()["regressions"])
      EXPECT_THAT(listed.out, HasSubstr(regression["case"].get<std::string>() + "\n")) << end;
  }

  const ProcessOutput broken = build(text(planted()["broken"]["commit"]), *recipe);
  EXPECT_NE(broken.exit_code, 0);
  EXPECT_THAT(broken.err, HasSubstr("error"));
}

TEST_F(DemoHistory, MakingItAgainGivesTheSameCommits) {
  const fs::path again = s_temp->path() / "again";
  const ProcessOutput made = make_history(again);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  auto second = nlohmann::json::parse(made.out);
  EXPECT_EQ(text(second["repo"]), again.string());
  second["repo"] = planted()["repo"];
  EXPECT_EQ(second, planted());
  const auto refs = [](const fs::path& dir) {
    return run_process(
               {"git", "-C", dir.string(), "for-each-ref", "--format=%(objectname) %(refname)"},
               dir)
        .out;
  };
  EXPECT_EQ(refs(again), refs(repo()));
}

TEST(DemoHistoryArguments, RefusesADirectoryThatIsNotEmptyAndBadArguments) {
  const TempDir temp("culprit-demo");
  const fs::path occupied = temp / "occupied";
  fs::create_directories(occupied / "something");
  const ProcessOutput into_occupied = make_history(occupied);
  EXPECT_EQ(into_occupied.exit_code, 1);
  EXPECT_THAT(into_occupied.err, HasSubstr("is not empty"));
  EXPECT_TRUE(fs::is_empty(occupied / "something"));
  const ProcessOutput no_dir = run_process({"bash", generator().string()}, temp.path());
  EXPECT_EQ(no_dir.exit_code, 2);
  EXPECT_THAT(no_dir.err, HasSubstr("usage:"));
}

} // namespace
} // namespace culprit
