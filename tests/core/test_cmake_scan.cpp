// `culprit init` on CMake projects: the command parser, and the benchmark programs and options
// found in trees laid out the way Google Benchmark and nvbench projects usually are.

#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/recipe/cmake_scan.hpp"
#include "core/recipe/init_recipe.hpp"
#include "core/recipe/recipe.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

void write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(CMakeCommands, ArgumentsQuotesBracketsCommentsAndNestedParentheses) {
  const auto commands = recipe::parse_cmake_commands(R"(# a comment with add_executable(no)
Project(demo LANGUAGES CXX)   #[[ a bracket
comment add_executable(no) ]]
add_executable (tool "a file.cpp" [=[b]]c.cpp]=] # trailing comment
  d.cpp)
if((A OR B) AND NOT C)
set(MSG "say \"hi\"")
endif()
)");
  ASSERT_EQ(commands.size(), 5U);
  EXPECT_EQ(commands[0].name, "project");
  EXPECT_THAT(commands[0].args, ElementsAre("demo", "LANGUAGES", "CXX"));
  EXPECT_EQ(commands[1].name, "add_executable");
  EXPECT_THAT(commands[1].args, ElementsAre("tool", "a file.cpp", "b]]c.cpp", "d.cpp"));
  EXPECT_EQ(commands[2].name, "if");
  EXPECT_THAT(commands[2].args, ElementsAre("(", "A", "OR", "B", ")", "AND", "NOT", "C"));
  EXPECT_THAT(commands[3].args, ElementsAre("MSG", "say \"hi\""));
  EXPECT_EQ(commands[4].name, "endif");
  // Unbalanced text ends without a crash.
  EXPECT_EQ(recipe::parse_cmake_commands("add_executable(a b").size(), 1U);
  EXPECT_TRUE(recipe::parse_cmake_commands("\"unterminated").empty());
}

class CMakeProject : public ::testing::Test {
protected:
  testing::TempDir top{"culprit-cmake"};
};

TEST_F(CMakeProject, FindsTheBenchmarkProgramsAndTheOptionsThatBuildThem) {
  write(top / "CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.16)
project(mylib CXX)
option(MYLIB_BUILD_TESTS "Build the tests" ON)
option(MYLIB_BUILD_BENCHMARKS "Build the benchmarks" OFF)
add_subdirectory(third_party/benchmark)
add_library(mylib src/mylib.cpp)
if(MYLIB_BUILD_TESTS)
  add_subdirectory(tests)
endif()
if(MYLIB_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
  add_subdirectory(bench)
endif()
)");
  // Google Benchmark's own tree, vendored: its programs are not the project's.
  write(top / "third_party/benchmark/CMakeLists.txt", R"(project(benchmark)
add_executable(benchmark_test benchmark_test.cc)
target_link_libraries(benchmark_test benchmark::benchmark))");
  write(top / "tests/CMakeLists.txt", "add_executable(unit unit.cpp)\n");
  write(top / "bench/CMakeLists.txt", R"(set(BENCH_LIBS benchmark::benchmark mylib)
add_executable(${PROJECT_NAME}_bench bench.cpp)
target_link_libraries(${PROJECT_NAME}_bench PRIVATE benchmark::benchmark_main mylib)
add_executable(by_source by_source.cpp)
target_link_libraries(by_source ${BENCH_LIBS})
add_executable(tool tool.cpp)
)");
  write(top / "bench/by_source.cpp", "#include <benchmark/benchmark.h>\nBENCHMARK(BM_X);\n");
  write(top / "bench/tool.cpp", "int main() {}\n");

  const auto targets = recipe::find_benchmark_targets(top.path());
  ASSERT_EQ(targets.size(), 2U);
  EXPECT_EQ(targets[0].name, "mylib_bench");
  EXPECT_EQ(targets[0].directory, "bench");
  EXPECT_EQ(targets[0].library, "gbench");
  EXPECT_THAT(targets[0].options, ElementsAre("MYLIB_BUILD_BENCHMARKS"));
  EXPECT_EQ(targets[1].name, "by_source");
  EXPECT_EQ(targets[1].library, "gbench");

  // The recipe builds the first with its option and runs it with the flags that give JSON.
  const auto guess = recipe::guess_project(top.path());
  EXPECT_EQ(guess.format, "gbench");
  const auto text = recipe::initial_recipe(guess);
  EXPECT_THAT(text, HasSubstr("-DMYLIB_BUILD_BENCHMARKS=ON"));
  EXPECT_THAT(text, HasSubstr("Other benchmark programs: by_source (bench/by_source)"));
  const auto recipe = recipe::parse_recipe(text, "culprit.toml");
  ASSERT_TRUE(recipe) << recipe.error().message;
  EXPECT_THAT(recipe->build.command, HasSubstr("cmake --build {build} --target mylib_bench"));
  EXPECT_THAT(recipe->build.artifacts, ElementsAre("bench/mylib_bench"));
  EXPECT_EQ(std::get<std::string>(recipe->run.command),
            "{build}/bench/mylib_bench --benchmark_format=json --benchmark_repetitions=3");
  EXPECT_EQ(recipe->run.format, "gbench");
}

TEST_F(CMakeProject, NvbenchProgramsRunWithJsonOnStandardOutput) {
  write(top / "CMakeLists.txt", R"(project(kern CUDA CXX)
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
option(KERN_ENABLE_BENCH "benchmarks" NO)
if(KERN_ENABLE_BENCH OR KERN_ENABLE_ALL)
  add_executable(copy_bench benches/copy.cu)
  target_link_libraries(copy_bench PRIVATE nvbench::main)
endif()
)");
  const auto targets = recipe::find_benchmark_targets(top.path());
  ASSERT_EQ(targets.size(), 1U);
  EXPECT_EQ(targets[0].directory, "bin");
  EXPECT_EQ(targets[0].library, "nvbench");
  EXPECT_THAT(targets[0].options, ElementsAre("KERN_ENABLE_BENCH"));
  const auto recipe = recipe::parse_recipe(
      recipe::initial_recipe(recipe::guess_project(top.path())), "culprit.toml");
  ASSERT_TRUE(recipe) << recipe.error().message;
  EXPECT_EQ(std::get<std::string>(recipe->run.command),
            "{build}/bin/copy_bench --json stdout --md stderr");
  EXPECT_EQ(recipe->run.format, "nvbench");
}

TEST_F(CMakeProject, WithoutABenchmarkProgramTheRecipeIsTheGenericOne) {
  write(top / "CMakeLists.txt",
        "project(p)\nadd_subdirectory(../outside)\nadd_executable(a a.c)\n");
  EXPECT_TRUE(recipe::find_benchmark_targets(top.path()).empty());
  const auto guess = recipe::guess_project(top.path());
  EXPECT_EQ(guess.kind, "CMake");
  EXPECT_EQ(guess.format, "auto");
  EXPECT_THAT(recipe::initial_recipe(guess), HasSubstr("cmake --build {build}\""));
}

} // namespace
} // namespace culprit
