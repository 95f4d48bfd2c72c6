#include "core/recipe/init_recipe.hpp"

#include <fmt/format.h>

#include "core/recipe/recipe.hpp"
#include "core/util/fs.hpp"

namespace culprit {

ProjectGuess guess_project(const std::filesystem::path& top) {
  ProjectGuess guess{"unknown", "auto", {}};
  std::error_code ec;
  std::string build_text;
  if (std::filesystem::is_regular_file(top / "CMakeLists.txt", ec)) {
    guess.kind = "CMake";
    build_text = read_file(top / "CMakeLists.txt").value_or("");
  } else {
    for (const char* name : {"GNUmakefile", "makefile", "Makefile"}) {
      if (std::filesystem::is_regular_file(top / name, ec)) {
        guess.kind = "Makefile";
        build_text = read_file(top / name).value_or("");
      }
    }
  }
  if (guess.kind == "CMake") {
    guess.targets = find_benchmark_targets(top);
    if (!guess.targets.empty()) {
      guess.format = guess.targets.front().library;
      return guess;
    }
  }
  if (build_text.find("nvbench") != std::string::npos)
    guess.format = "nvbench";
  else if (build_text.find("benchmark::benchmark") != std::string::npos ||
           build_text.find("-lbenchmark") != std::string::npos)
    guess.format = "gbench";
  return guess;
}

namespace {

// Each repetition is one sample of a run: three let culprit see the interference within a run.
constexpr std::string_view k_gbench_flags = " --benchmark_format=json --benchmark_repetitions=3";
// JSON alone on standard output; the markdown tables go to the run's log.
constexpr std::string_view k_nvbench_flags = " --json stdout --md stderr";

std::string program_path(const BenchmarkTarget& target) {
  return target.directory.empty() ? target.name : target.directory + "/" + target.name;
}

} // namespace

std::string initial_recipe(const ProjectGuess& guess) {
  std::string build;
  std::string artifacts;
  std::string run = "{build}/bench";
  if (guess.kind == "CMake" && !guess.targets.empty()) {
    const auto& target = guess.targets.front();
    std::string options;
    for (const auto& option : target.options)
      options += fmt::format(" -D{}=ON", option);
    build = fmt::format("cmake -S {{src}} -B {{build}} -G Ninja -DCMAKE_BUILD_TYPE=Release{} && "
                        "cmake --build {{build}} --target {}",
                        options, target.name);
    artifacts = fmt::format("artifacts = [\"{}\"]  # the benchmark program, all the run needs",
                            program_path(target));
    for (std::size_t i = 1; i < guess.targets.size(); ++i)
      artifacts += fmt::format("{}{} ({})", i == 1 ? "\n# Other benchmark programs: " : ", ",
                               guess.targets[i].name, program_path(guess.targets[i]));
    run = "{build}/" + program_path(target);
  } else if (guess.kind == "CMake") {
    build = "cmake -S {src} -B {build} -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build "
            "{build}";
    artifacts = "# artifacts = [\"bench\"]  # keep only what the run command needs (faster)";
  } else if (guess.kind == "Makefile") {
    build = "make -C {src} -j$(nproc)";
    artifacts = "artifacts = [\"{src}/bench\"]  # in-source build: name what the run needs";
  } else {
    build = "./build.sh {build}";
    artifacts = "# artifacts = [\"bench\"]";
  }
  if (guess.format == "gbench")
    run += k_gbench_flags;
  else if (guess.format == "nvbench")
    run += k_nvbench_flags;
  const DecideOptions decide;
  return fmt::format(
      R"(# culprit.toml: how culprit builds and runs this project's benchmarks.
# culprit reads this file from your current checkout (never from the revision it measures), so
# every revision is measured with the same yardstick. Flags override every key.
# Placeholders: {{src}} (the checked-out source), {{build}} (a build directory that persists across
# revisions; at run time, the cached artifacts), {{commit}} and {{rev}}.

[build]
# A shell command; it runs in {{src}}. Detected project: {kind}{found}.{edit}
command = "{build}"
{artifacts}
# env = {{ CC = "gcc-12" }}
# timeout = 7200           # seconds
# ptxas_report = true      # add -Xptxas -v to nvcc for per-kernel register/spill tables

[run]
# EDIT: the benchmark program and its flags. A string runs under /bin/sh -c; an array runs as is.
command = "{run}"
format = "{format}"           # auto | culprit | gbench | nvbench | csv | regex | time
# metric = "real_time"     # default: the format's primary time metric
# cases = ["BM_Sgemm/*"]   # globs; default: every case
timeout = {timeout:<17g}# seconds per run

[decide]
threshold = {threshold:<15g}# the smallest change that matters (or "2%")
confidence = {confidence:g}
min_runs = {min_runs}
max_runs = {max_runs}
# warmup = 1               # runs per revision that are recorded but not counted
# classify_confidence = {classify:<5g}# level at which a bisection places a probe
# explained_share = {explained:<9g}# below it, a bisection says a culprit may remain
)",
      fmt::arg("timeout", RunRecipe{}.timeout.count()), fmt::arg("threshold", decide.threshold),
      fmt::arg("confidence", decide.confidence), fmt::arg("min_runs", decide.min_runs),
      fmt::arg("max_runs", decide.max_runs), fmt::arg("classify", decide.classify_confidence),
      fmt::arg("explained", decide.explained_share), fmt::arg("kind", guess.kind),
      fmt::arg("build", build), fmt::arg("artifacts", artifacts), fmt::arg("run", run),
      fmt::arg("format", guess.format),
      fmt::arg("found",
               guess.targets.empty()
                   ? std::string()
                   : fmt::format(", benchmark program {} ({})", guess.targets.front().name,
                                 guess.targets.front().library == "gbench" ? "Google Benchmark"
                                                                           : "nvbench")),
      fmt::arg("edit", guess.kind == "unknown"
                           ? "\n# EDIT: whatever builds your benchmarks into {build}."
                           : ""));
}

} // namespace culprit
