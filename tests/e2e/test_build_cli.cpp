// End to end: the culprit binary on real repositories. The user's repository must come out of
// every command byte-identical, however it was left (dirty tree, a bisect of its own in progress).

#include <algorithm>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/git_repo.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using testing::run_culprit;
using testing::ScratchRepo;
using testing::snapshot;
using ::testing::StartsWith;
using testing::TempDir;

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class BuildCli : public ::testing::Test {
protected:
  void SetUp() override {
    scratch.write("Makefile", "bench: main.c\n\tcc -O1 -o bench main.c\n");
    scratch.write("main.c", "int main(void) { return 0; }\n");
    scratch.write("sub/dir/data.txt", "data\n");
    scratch.symlink("main.c", "link.c");
    first = scratch.commit("first");
    scratch.write("main.c", "int main(void) { return 0; } /* two */\n");
    second = scratch.commit("second");
    scratch.git({"tag", "v2"});
    scratch.write("main.c", "this does not compile\n");
    broken = scratch.commit("broken");
  }

  testing::ProcessOutput culprit(std::vector<std::string> args) {
    args.insert(args.begin(), {"--cache-dir", (temp / "cache").string()});
    return run_culprit(args, scratch.dir());
  }

  TempDir temp{"culprit-e2e"};
  ScratchRepo scratch{temp / "project"};
  std::string first, second, broken;
  const std::vector<std::string> make_flags{"--build", "make -C {src} && cp {src}/bench {build}/",
                                            "--artifacts", "bench"};
};

TEST_F(BuildCli, VersionAndHelpListEveryCommand) {
  auto version = run_culprit({"--version"}, temp.path());
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.out, StartsWith("culprit "));
  auto help = run_culprit({"--help"}, temp.path());
  EXPECT_EQ(help.exit_code, 0);
  for (const auto* command : {"init", "build", "run", "compare", "bisect", "report", "env", "track",
                              "history", "triage", "import", "store", "worker"})
    EXPECT_THAT(help.out, HasSubstr(std::string("\n  ") + command + " ")) << command;
}

TEST_F(BuildCli, BuildsRevisionsAndLeavesTheUsersRepositoryUntouched) {
  // The user is mid-way through their own bisect, with a dirty tree and something staged.
  scratch.git({"bisect", "start", broken, first});
  scratch.write("main.c", "uncommitted work\n");
  scratch.write("staged.txt", "staged\n");
  scratch.git({"add", "staged.txt"});
  scratch.write("untracked.txt", "untracked\n");
  const auto before = snapshot(scratch.dir());

  auto args = make_flags;
  args.insert(args.begin(), "build");
  for (const auto* rev : {"v2", "main~2"})
    args.emplace_back(rev);
  auto built = culprit(args);
  EXPECT_EQ(built.exit_code, 0) << built.err;
  EXPECT_EQ(line_count(built.out), 2U) << built.out;
  EXPECT_THAT(built.out, HasSubstr(second.substr(0, 12)));
  EXPECT_THAT(built.out, HasSubstr(" built "));

  auto again = culprit(args);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(std::count(again.out.begin(), again.out.end(), '\n'), 2);
  EXPECT_THAT(again.out, HasSubstr(" cached "));
  EXPECT_THAT(again.out, ::testing::Not(HasSubstr(" built ")));

  EXPECT_EQ(snapshot(scratch.dir()), before) << "the user's repository changed";
}

TEST_F(BuildCli, GlobalOptionsAreTakenAfterTheCommandToo) {
  // Run from outside the repository: only --repo, given after the command, can find it.
  const auto cache = temp / "cache-after";
  std::vector<std::string> args{"build"};
  args.insert(args.end(), make_flags.begin(), make_flags.end());
  args.insert(args.end(), {"v2", "--repo", scratch.dir().string(), "--cache-dir", cache.string(),
                           "-q", "--color", "never"});
  auto built = run_culprit(args, temp.path());
  EXPECT_EQ(built.exit_code, 0) << built.err;
  EXPECT_THAT(built.out, HasSubstr(second.substr(0, 12)));
  EXPECT_TRUE(std::filesystem::is_directory(cache)) << "--cache-dir after the command was ignored";

  // An option that neither the command nor culprit knows is still one line and exit 2.
  args.emplace_back("--no-such-option");
  auto refused = run_culprit(args, temp.path());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(line_count(refused.err), 1U) << refused.err;
}

TEST_F(BuildCli, AFailingBuildExitsFourWithOneLineSayingWhereTheLogIs) {
  auto args = make_flags;
  args.insert(args.begin(), "build");
  args.push_back(broken);
  auto failed = culprit(args);
  EXPECT_EQ(failed.exit_code, 4);
  EXPECT_EQ(line_count(failed.err), 1U) << failed.err;
  EXPECT_THAT(failed.err, HasSubstr("failed"));
  EXPECT_THAT(failed.err, HasSubstr(".log"));
  auto cached = culprit(args);
  EXPECT_EQ(cached.exit_code, 4);
  EXPECT_THAT(cached.err, HasSubstr("--rebuild"));
}

TEST_F(BuildCli, BadInputGetsOneLineAndTheDocumentedExitCode) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    std::filesystem::path cwd;
    int exit_code;
    const char* says;
  };
  std::ofstream(temp / "a-file") << "not a directory";
  const std::vector<Case> cases = {
      {"not a repository", {"build", "HEAD"}, temp.path(), 2, "not inside a git repository"},
      {"unknown revision",
       {"build", "--build", "true", "nope"},
       scratch.dir(),
       2,
       "unknown revision 'nope'"},
      {"empty build command",
       {"build", "--build", " ", "HEAD"},
       scratch.dir(),
       2,
       "no build command"},
      {"no recipe at all", {"build", "HEAD"}, scratch.dir(), 2, "culprit init"},
      {"unwritable cache",
       {"--cache-dir", (temp / "a-file").string(), "build", "--build", "true", "HEAD"},
       scratch.dir(),
       2,
       "--cache-dir"},
      {"unknown flag", {"build", "--frobnicate", "HEAD"}, scratch.dir(), 2, "--frobnicate"},
      {"glob matches nothing",
       {"build", "--build", "true", "--artifacts", "missing", "HEAD"},
       scratch.dir(),
       4,
       "artifact glob 'missing' matched nothing"},
      {"build command not found",
       {"build", "--build", "no-such-tool-xyz", "HEAD"},
       scratch.dir(),
       4,
       "command not found"},
      {"missing config file",
       {"--config", (temp / "nope.toml").string(), "build", "HEAD"},
       scratch.dir(),
       2,
       "no recipe at"},
  };
  for (const auto& c : cases) {
    auto args = c.args;
    if (std::find(args.begin(), args.end(), "--cache-dir") == args.end())
      args.insert(args.begin(), {"--cache-dir", (temp / "cache").string()});
    const auto before = snapshot(scratch.dir());
    auto output = run_culprit(args, c.cwd);
    EXPECT_EQ(output.exit_code, c.exit_code) << c.name << ": " << output.err;
    EXPECT_EQ(line_count(output.err), 1U) << c.name << ": " << output.err;
    EXPECT_THAT(output.err, HasSubstr(c.says)) << c.name;
    EXPECT_THAT(output.err, StartsWith("culprit: error: ")) << c.name;
    EXPECT_EQ(snapshot(scratch.dir()), before) << c.name;
  }
}

TEST_F(BuildCli, InitWritesACommentedRecipeOnceAndTheRecipeBuilds) {
  auto init = culprit({"init"});
  EXPECT_EQ(init.exit_code, 0) << init.err;
  EXPECT_THAT(init.out, HasSubstr("Makefile project"));
  auto again = culprit({"init"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_THAT(again.err, HasSubstr("--force"));
  auto built = culprit({"build", "HEAD~1"});
  EXPECT_EQ(built.exit_code, 0) << built.err;
}

// A CMake project whose Google Benchmark program is behind an option that is off by default, as
// most libraries have it: init must write a recipe that turns it on, builds that target and runs
// it with JSON output, so that the first `culprit run` works.
TEST(InitCli, AGoogleBenchmarkProgramBehindAnOptionRunsOnTheFirstTry) {
  TempDir temp{"culprit-init-gbench"};
  ScratchRepo scratch{temp / "project"};
  scratch.write("CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.16)
project(tiny CXX)
option(TINY_BUILD_BENCHMARKS "Build the benchmarks" OFF)
add_library(tiny tiny.cpp)
if(TINY_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
  add_executable(tiny_bench bench/tiny_bench.cpp)
  target_link_libraries(tiny_bench tiny benchmark::benchmark)
endif()
)");
  scratch.write("tiny.cpp", "long tiny_sum(const int* v, long n) {\n  long s = 0;\n  for (long i = "
                            "0; i < n; ++i)\n    s += v[i];\n  return s;\n}\n");
  scratch.write("bench/tiny_bench.cpp", R"(#include <benchmark/benchmark.h>
#include <vector>
long tiny_sum(const int* v, long n);
static void BM_Sum(benchmark::State& state) {
  std::vector<int> v(static_cast<std::size_t>(state.range(0)), 1);
  for (auto _ : state)
    benchmark::DoNotOptimize(tiny_sum(v.data(), state.range(0)));
}
BENCHMARK(BM_Sum)->Arg(1024);
BENCHMARK_MAIN();
)");
  scratch.commit("a library and its benchmark");
  const std::vector<std::string> cache{"--cache-dir", (temp / "cache").string()};
  const auto culprit = [&](std::vector<std::string> args) {
    args.insert(args.begin(), cache.begin(), cache.end());
    return run_culprit(args, scratch.dir());
  };
  auto init = culprit({"init"});
  ASSERT_EQ(init.exit_code, 0) << init.err;
  EXPECT_THAT(init.out, HasSubstr("tiny_bench, a Google Benchmark program"));
  std::ifstream in(scratch.dir() / "culprit.toml");
  const std::string recipe{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_THAT(recipe, HasSubstr("-DTINY_BUILD_BENCHMARKS=ON"));
  EXPECT_THAT(recipe, HasSubstr("--target tiny_bench"));
  EXPECT_THAT(recipe, HasSubstr("--benchmark_format=json"));
  EXPECT_THAT(recipe, HasSubstr("--benchmark_repetitions="));
  auto run = culprit({"run", "HEAD", "--min-runs", "2", "--max-runs", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("BM_Sum/1024"));
}

} // namespace
} // namespace culprit
