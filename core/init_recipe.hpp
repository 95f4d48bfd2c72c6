#pragma once
// `culprit init`: a commented culprit.toml for the project in hand, with the build command
// guessed from what the top of the tree holds (CMake, Makefile) and the output format guessed
// from the benchmark library the build mentions (Google Benchmark, nvbench).

#include <filesystem>
#include <string>

namespace culprit {

struct ProjectGuess {
  std::string kind;   // "CMake", "Makefile" or "unknown"
  std::string format; // "gbench", "nvbench" or "auto"
};

ProjectGuess guess_project(const std::filesystem::path& top);
std::string initial_recipe(const ProjectGuess& guess);

} // namespace culprit
