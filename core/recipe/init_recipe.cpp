#include "core/recipe/init_recipe.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/recipe/recipe.hpp"
#include "core/util/fs.hpp"

namespace culprit::recipe {

namespace {

constexpr std::array k_data_dir_names = {"testdata",   "test_data",      "data",  "benchdata",
                                         "bench_data", "benchmark_data", "corpus"};
constexpr std::array k_source_extensions = {".c", ".cc", ".cpp", ".cxx", ".cu", ".h", ".hpp"};
// Enough for a large project's sources, and a bound on what init reads.
constexpr std::size_t k_most_sources = 5000;
constexpr std::uintmax_t k_largest_source = 1 << 20;

bool is_source(const std::filesystem::path& path) {
  return std::ranges::find(k_source_extensions, path.extension().string()) !=
         k_source_extensions.end();
}

} // namespace

std::vector<std::string> find_data_dirs(const std::filesystem::path& top) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> candidates;
  for (const char* name : k_data_dir_names)
    if (fs::is_directory(top / name, ec) && !fs::is_empty(top / name, ec))
      candidates.emplace_back(name);
  if (candidates.empty())
    return {};
  std::vector<std::string> named;
  std::size_t read = 0;
  fs::recursive_directory_iterator it(top, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator() && read < k_most_sources &&
         named.size() < candidates.size();
       it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (it->is_directory(ec)) {
      if (name.starts_with(".") || name == "build" ||
          std::ranges::find(candidates, name) != candidates.end())
        it.disable_recursion_pending();
      continue;
    }
    if (!is_source(it->path()) || it->file_size(ec) > k_largest_source)
      continue;
    ++read;
    const auto text = read_file(it->path()).value_or("");
    for (const auto& dir : candidates)
      if (std::ranges::find(named, dir) == named.end() &&
          (text.find("\"" + dir + "/") != std::string::npos ||
           text.find("\"./" + dir + "/") != std::string::npos))
        named.push_back(dir);
  }
  std::ranges::sort(named);
  return named;
}

ProjectGuess guess_project(const std::filesystem::path& top) {
  ProjectGuess guess{"unknown", "auto", {}, find_data_dirs(top)};
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
  std::string cwd =
      "# cwd = \"scratch\"          # where runs start: \"scratch\" (a directory of "
      "their own)\n#                          # or \"artifacts\" (beside the program)";
  if (!guess.data_dirs.empty()) {
    std::vector<std::string> globs;
    std::vector<std::string> dirs;
    for (const auto& dir : guess.data_dirs) {
      globs.push_back(fmt::format("\"{{src}}/{}\"", dir));
      dirs.push_back(dir + "/");
    }
    const bool listed = artifacts.starts_with("artifacts = [");
    if (listed) {
      // The program's entry, then the data: the run reads them by relative paths.
      const auto close = artifacts.find(']');
      artifacts = fmt::format("{}, {}]  # the benchmark program and what it reads: all the run "
                              "needs{}",
                              artifacts.substr(0, close), fmt::join(globs, ", "),
                              artifacts.substr(artifacts.find('\n') == std::string::npos
                                                   ? artifacts.size()
                                                   : artifacts.find('\n')));
      cwd = fmt::format("cwd = \"artifacts\"         # runs start beside the program and {}, "
                        "which the sources name by relative paths",
                        fmt::join(dirs, " and "));
    } else {
      artifacts += fmt::format("\n# The sources read {} by relative paths: keep it beside the "
                               "program,\n# artifacts = [\"bench\", {}], and start runs there:",
                               fmt::join(dirs, " and "), fmt::join(globs, ", "));
      cwd = "# cwd = \"artifacts\"";
    }
  }
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
# cases = ["BM_Sgemm/*"]   # globs; default: every case (a long suite: name the cases you need)
timeout = {timeout:<17g}# seconds per run
{cwd}

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
      fmt::arg("cwd", cwd), fmt::arg("format", guess.format),
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

} // namespace culprit::recipe
