#pragma once
// `culprit init`: a commented culprit.toml for the project in hand, with the build command
// guessed from what the top of the tree holds (CMake, Makefile) and the output format guessed
// from the benchmark library the build mentions (Google Benchmark, nvbench). In a CMake project
// whose benchmark programs it can find (core/recipe/cmake_scan.hpp), the recipe builds the first of
// them with the options it needs and runs it with the flags that make it print JSON.

#include <filesystem>
#include <string>
#include <vector>

#include "core/recipe/cmake_scan.hpp"

namespace culprit::recipe {

struct ProjectGuess {
  std::string kind;   // "CMake", "Makefile" or "unknown"
  std::string format; // "gbench", "nvbench" or "auto"
  // A CMake project's Google Benchmark and nvbench programs; the recipe builds and runs the
  // first, with the options it needs.
  std::vector<BenchmarkTarget> targets;
  // Directories at the top of the tree, named as test inputs usually are (testdata/, data/, ...),
  // that a source file names by a relative path ("testdata/..."): a benchmark that reads them
  // needs them beside it at run time, so the recipe keeps them among the artifacts and starts
  // runs there ([run] cwd = "artifacts").
  std::vector<std::string> data_dirs;
};

ProjectGuess guess_project(const std::filesystem::path& top);
std::vector<std::string> find_data_dirs(const std::filesystem::path& top);
std::string initial_recipe(const ProjectGuess& guess);

} // namespace culprit::recipe
