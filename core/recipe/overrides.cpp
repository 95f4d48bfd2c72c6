// The flags over a recipe (culprit(1), RECIPE OPTIONS; culprit.toml(5)): each flag replaces its
// key, then the whole recipe is checked, the way the file alone is not (the flags may fill what it
// leaves out). Reading culprit.toml is recipe.cpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <string_view>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/parsers/ncu_csv.hpp"
#include "core/parsers/perf_stat.hpp"
#include "core/parsers/valgrind_counts.hpp"
#include "core/recipe/checks.hpp"
#include "core/recipe/recipe.hpp"
#include "core/util/escape.hpp"
#include "stats/run_statistic.hpp"

namespace culprit::recipe {
namespace detail {

Status check_statistic(std::string_view name) {
  if (name == "auto")
    return {};
  if (auto statistic = stats::parse_run_statistic(name); !statistic)
    return usage_error("{}", statistic.error().message);
  return {};
}

} // namespace detail

using detail::check_statistic;
using detail::one_line;

namespace {

// Peaks are positive, finite and below what any device reaches; compute names a peak.
Status check_roofline(const RooflineRecipe& roofline) {
  const auto check = [](const std::optional<double>& value, std::string_view key,
                        std::string_view flag, double most, std::string_view unit) -> Status {
    if (!value)
      return {};
    if (!std::isfinite(*value) || *value <= 0 || *value > most)
      return usage_error("{} (--{}) is {}: give the peak in {}, more than 0 and at most {:g} ({} "
                         "is more than any device reaches)",
                         key, flag, *value, unit, most, most);
    return {};
  };
  CULPRIT_TRY(check(roofline.peak_gflops, "[roofline] peak_gflops", "peak-gflops",
                    k_max_peak_gflops, "GFLOP/s"));
  CULPRIT_TRY(check(roofline.peak_tensor_gflops, "[roofline] peak_tensor_gflops",
                    "peak-tensor-gflops", k_max_peak_gflops, "GFLOP/s"));
  CULPRIT_TRY(
      check(roofline.peak_gbps, "[roofline] peak_gbps", "peak-gbps", k_max_peak_gbps, "GB/s"));
  if (roofline.compute != "vector" && roofline.compute != "tensor")
    return usage_error(
        R"([roofline] compute '{}' must be "vector" or "tensor" (which peak bounds the cases))",
        excerpt(roofline.compute));
  if (roofline.compute == "tensor" && !roofline.peak_tensor_gflops && roofline.device == "cpu")
    return usage_error("[roofline] compute = \"tensor\" on the CPU needs peak_tensor_gflops: a "
                       "CPU has no tensor-core peak to measure");
  return {};
}

// The deciding flags over decide; parse errors only (check_decide bounds the result).
Status apply_decide_flags(DecideOptions& decide, const RecipeOverrides& o) {
  if (o.threshold) {
    CULPRIT_TRY_ASSIGN(decide.threshold, parse_threshold(*o.threshold));
  }
  if (o.confidence)
    decide.confidence = *o.confidence;
  if (o.min_runs)
    decide.min_runs = *o.min_runs;
  if (o.max_runs)
    decide.max_runs = *o.max_runs;
  if (o.warmup)
    decide.warmup = *o.warmup;
  if (o.budget)
    decide.budget = std::chrono::duration<double>(*o.budget);
  if (o.seed)
    decide.seed = *o.seed;
  if (o.statistic) {
    CULPRIT_TRY(check_statistic(*o.statistic));
    decide.statistic = *o.statistic;
  }
  return {};
}

// Every flag but the deciding ones over the recipe.
void apply_other_flags(Recipe& recipe, const RecipeOverrides& o) {
  if (o.build_command)
    recipe.build.command = *o.build_command;
  if (o.artifacts)
    recipe.build.artifacts = *o.artifacts;
  if (o.run_command)
    recipe.run.command = *o.run_command;
  if (o.format)
    recipe.run.format = *o.format;
  if (o.metric)
    recipe.run.metric = *o.metric;
  if (o.cases)
    recipe.run.cases = *o.cases;
  if (o.timeout)
    recipe.run.timeout = std::chrono::duration<double>(*o.timeout);
  if (o.cpus)
    recipe.run.cpus = *o.cpus;
  if (o.duet)
    recipe.run.duet = *o.duet;
  if (o.cwd)
    recipe.run.cwd = *o.cwd;
  if (o.instrument)
    recipe.run.instrument = *o.instrument;
  if (o.parallel)
    recipe.executor.parallel = *o.parallel;
  if (o.parallel_runs)
    recipe.executor.parallel_runs = *o.parallel_runs;
  if (o.peak_gflops)
    recipe.roofline.peak_gflops = o.peak_gflops;
  if (o.peak_tensor_gflops)
    recipe.roofline.peak_tensor_gflops = o.peak_tensor_gflops;
  if (o.peak_gbps)
    recipe.roofline.peak_gbps = o.peak_gbps;
  if (o.peak_device)
    recipe.roofline.device = *o.peak_device;
}

// Whether a share lies in (low, 1) (or (low, 1] when one is allowed): NaN never does.
bool within(double value, double low, bool one_allowed) {
  return value > low && (value < 1 || (one_allowed && value == 1));
}

Status check_decide(const DecideOptions& decide) {
  if (!within(decide.confidence, 0.5, false))
    return usage_error("confidence {} must lie between 0.5 and 1, e.g. 0.95", decide.confidence);
  if (!within(decide.classify_confidence, 0.5, false))
    return usage_error("[decide] classify_confidence {} must lie between 0.5 and 1, e.g. 0.99",
                       decide.classify_confidence);
  if (!within(decide.explained_share, 0, true))
    return usage_error("[decide] explained_share {} must lie in (0, 1], e.g. 0.75",
                       decide.explained_share);
  if (decide.min_runs < 2)
    return usage_error("min_runs is {}; at least 2 runs per revision are needed for an interval",
                       decide.min_runs);
  if (decide.max_runs < decide.min_runs)
    return usage_error("max_runs ({}) is below min_runs ({}); raise max_runs", decide.max_runs,
                       decide.min_runs);
  if (decide.warmup < 0)
    return usage_error("warmup is {}; it counts warm-up runs, so give 0 or more", decide.warmup);
  if (decide.budget && (!(decide.budget->count() > 0) || decide.budget->count() > k_max_seconds))
    return usage_error("the budget must be more than 0 and at most {:g} seconds (a week); give "
                       "--budget or [decide] budget in seconds",
                       k_max_seconds);
  return {};
}

bool blank(std::string_view text) {
  return text.find_first_not_of(" \t\n") == std::string::npos;
}

Status check_commands(const Recipe& recipe) {
  const auto where = recipe.source.empty() ? std::string("culprit.toml") : recipe.source.string();
  if (blank(recipe.build.command))
    return usage_error("no build command: set [build] command in {} or pass --build CMD", where);
  const bool no_run = std::visit(
      [](const auto& c) {
        if constexpr (std::is_same_v<std::decay_t<decltype(c)>, std::string>)
          return blank(c);
        else
          return c.empty() || c.front().empty();
      },
      recipe.run.command);
  if (no_run)
    return usage_error("no run command: set [run] command in {} or pass --run CMD", where);
  for (const auto& glob : recipe.build.artifacts) {
    const std::filesystem::path path(glob);
    if (glob.starts_with('/'))
      return usage_error("artifact glob '{}' is an absolute path; [build] artifacts are globs "
                         "inside the build directory ('{{src}}/...' for the source tree)",
                         glob);
    if (std::ranges::any_of(path, [](const std::filesystem::path& part) { return part == ".."; }))
      return usage_error("artifact glob '{}' climbs out with '..'; [build] artifacts are globs "
                         "inside the build directory ('{{src}}/...' for the source tree)",
                         glob);
  }
  return {};
}

Status check_run(const RunRecipe& run) {
  // A count is measured by the instruments that count it: Valgrind's simulated CPU, perf's
  // hardware counters, or both (instructions, branches).
  const bool simulated = parsers::is_valgrind_metric(run.metric);
  const bool hardware = parsers::is_perf_metric(run.metric);
  const bool measured = (simulated && run.instrument == Instrument::valgrind) ||
                        (hardware && run.instrument == Instrument::perf);
  if (parsers::is_ncu_metric(run.metric) && run.instrument != Instrument::ncu)
    return usage_error("metric '{}' is a CUDA kernel's count, which only --instrument ncu ([run] "
                       "instrument) measures",
                       run.metric);
  if ((simulated || hardware) && !measured)
    return usage_error("metric '{}' is a count, which only {} ([run] instrument) measures",
                       run.metric,
                       simulated && hardware ? "--instrument valgrind (a simulated CPU) or "
                                               "--instrument perf (hardware counters)"
                       : simulated           ? "--instrument valgrind (a simulated CPU)"
                                             : "--instrument perf (hardware counters)");
  if (std::find(std::begin(k_formats), std::end(k_formats), run.format) == std::end(k_formats))
    return usage_error("unknown format '{}'; use one of {}", excerpt(run.format),
                       fmt::join(k_formats, ", "));
  if (!(run.timeout.count() > 0) || run.timeout.count() > k_max_seconds)
    return usage_error("the run timeout must be more than 0 and at most {:g} seconds (a week); "
                       "give --timeout or [run] timeout in seconds",
                       k_max_seconds);
  if (!run.direction.empty() && run.direction != "lower" && run.direction != "higher")
    return usage_error(R"(direction '{}' must be "lower" or "higher" (which way is better))",
                       excerpt(run.direction));
  return {};
}

Status check_executor(const Recipe& recipe) {
  const auto& executor = recipe.executor;
  if (executor.parallel < 1 || executor.parallel > k_max_parallel)
    return usage_error("--parallel {} is out of range: give a whole number from 1 to {}",
                       executor.parallel, k_max_parallel);
  if (recipe.run.instrument != Instrument::time) {
    const auto name = to_string(recipe.run.instrument);
    if (recipe.run.duet == DuetMode::on)
      return usage_error("counts need no duet (a duet would share the CPU's counters and caches "
                         "between two revisions): turn off --duet ([run] duet) or use "
                         "--instrument time");
    if (executor.kind == ExecutorKind::slurm)
      return usage_error("--instrument {} runs on this machine only for now: use the local "
                         "executor (--executor local), or --instrument time",
                         name);
  }
  if (recipe.run.duet == DuetMode::on) {
    if (executor.kind == ExecutorKind::slurm || executor.parallel_runs)
      return usage_error("duets run on this machine only: turn off --duet ([run] duet) or use "
                         "the local executor without --parallel-runs");
    if (recipe.run.format == "nvbench" || recipe.run.metric.find("gpu") != std::string::npos)
      return usage_error("a duet runs two revisions at once, and these runs time a GPU, which "
                         "both would share: turn off --duet ([run] duet)");
  }
  return {};
}

// The flags over the recipe, then the whole recipe checked, the way the file alone is not (the
// flags may fill what it leaves out).
Result<Recipe> check_overrides(Recipe recipe, const RecipeOverrides& o) {
  CULPRIT_TRY(apply_decide_flags(recipe.decide, o));
  apply_other_flags(recipe, o);
  if (o.executor) {
    const auto kind = parse_executor_kind(*o.executor);
    if (!kind)
      return usage_error(R"(unknown executor '{}'; use "local" or "slurm")", excerpt(*o.executor));
    recipe.executor.kind = *kind;
  }
  // What a counting instrument is for: its counts decide unless another metric is named, and two
  // runs a side whose counts agree decide exactly, so the first look comes after two unless
  // --min-runs or the recipe asks for another.
  recipe.run.metric = instrument_metric(recipe.run, o);
  if (recipe.run.instrument == Instrument::valgrind) {
    if (!o.min_runs && recipe.decide.min_runs == DecideOptions{}.min_runs)
      recipe.decide.min_runs = 2;
  }
  CULPRIT_TRY(check_roofline(recipe.roofline));
  CULPRIT_TRY(check_commands(recipe));
  CULPRIT_TRY(check_run(recipe.run));
  CULPRIT_TRY(check_decide(recipe.decide));
  CULPRIT_TRY(check_executor(recipe));
  return recipe;
}

Result<DecideOptions> check_decide_overrides(DecideOptions decide, const RecipeOverrides& o) {
  CULPRIT_TRY(apply_decide_flags(decide, o));
  CULPRIT_TRY(check_decide(decide));
  return decide;
}

} // namespace

std::string instrument_metric(const RunRecipe& run, const RecipeOverrides& o) {
  // A time the recipe decides on gives way to a counting instrument named on the command line:
  // the times of an instrumented run are the instrument's (a simulated CPU 20 to 100 times
  // slower, kernels replayed under ncu), not the program's.
  constexpr std::array<std::string_view, 5> k_times = {"gpu_time", "time", "real_time", "wall_time",
                                                       "cpu_time"};
  auto metric = run.metric;
  if (o.instrument && *o.instrument != Instrument::time && !o.metric &&
      std::ranges::find(k_times, metric) != k_times.end())
    metric.clear();
  if (run.instrument != Instrument::time && metric.empty())
    metric = run.instrument == Instrument::ncu ? "gpu_instructions" : "instructions";
  return metric;
}

Result<Recipe> apply_overrides(Recipe recipe, const RecipeOverrides& o) {
  return one_line(check_overrides(std::move(recipe), o));
}

Result<DecideOptions> apply_decide_overrides(DecideOptions decide, const RecipeOverrides& o) {
  return one_line(check_decide_overrides(std::move(decide), o));
}

} // namespace culprit::recipe
