#pragma once
// What `culprit init` learns from a CMake project without running CMake: the executables that
// are Google Benchmark or nvbench programs, where their binaries land, and the options that must
// be switched on for them to be built at all (benchmarks are off by default in most projects).
//
// It reads CMakeLists.txt files as CMake would reach them (the top one, then each
// add_subdirectory), tracks the if() blocks around each command, and understands option(),
// set() and project() well enough to name targets. It does not evaluate CMake: what it cannot
// see (a benchmark target made by a function of the project's own, a name built from a variable
// computed at configure time) it leaves out, and init then writes the generic recipe.

#include <filesystem>
#include <string>
#include <vector>

namespace culprit::recipe {

struct BenchmarkTarget {
  std::string name;                 // the CMake target
  std::string directory;            // of its CMakeLists.txt, relative to the top ("" for the top)
  std::string library;              // "gbench" or "nvbench"
  std::vector<std::string> options; // options to switch on (-DNAME=ON) for it to be built
};

// One CMake command: its name in lower case and its arguments, quotes removed.
struct CMakeCommand {
  std::string name;
  std::vector<std::string> args;
};

// The commands of a CMakeLists.txt text, comments left out. Never fails: text that is not
// CMake gives fewer commands.
std::vector<CMakeCommand> parse_cmake_commands(std::string_view text);

// The benchmark programs of the CMake project at `top`, in the order CMake would define them.
std::vector<BenchmarkTarget> find_benchmark_targets(const std::filesystem::path& top);

} // namespace culprit::recipe
