#include "cli/recipe_flags.hpp"

#include <fmt/format.h>

#include "cli/flag_checks.hpp"

namespace culprit::cli {

void add_recipe_flags(CLI::App& app, recipe::RecipeOverrides& o, FlagSet set) {
  app.add_option("--build", o.build_command,
                 "build command (a shell string; {src} {build} {commit} {rev} expand)")
      ->group("Recipe");
  app.add_option("--artifacts", o.artifacts, "globs of build outputs to keep (default: all)")
      ->allow_extra_args(false)
      ->delimiter(',')
      ->group("Recipe");
  if (set == FlagSet::build)
    return;
  app.add_option("--run", o.run_command, "run command ({build} names the cached artifacts)")
      ->group("Recipe");
  app.add_option("--format", o.format,
                 "benchmark output format: auto, culprit, gbench, nvbench, csv, regex, time")
      ->group("Recipe");
  app.add_option("--metric", o.metric, "the metric to decide on (default: the format's primary)")
      ->group("Recipe");
  app.add_option("--case", o.cases, "only cases matching this glob (repeatable)")
      ->allow_extra_args(false)
      ->group("Recipe");
  const recipe::DecideOptions decide;
  app.add_option("--threshold", o.threshold,
                 fmt::format("the smallest change that matters: 2% or 0.02 (default {:g}%)",
                             decide.threshold * 100))
      ->group("Decision");
  app.add_option("--confidence", o.confidence,
                 fmt::format("confidence level of intervals (default {:g})", decide.confidence))
      ->check(number_between(0.5, 1, "0.95"))
      ->group("Decision");
  app.add_option("--min-runs", o.min_runs,
                 fmt::format("runs per revision before deciding (default {})", decide.min_runs))
      ->check(whole_number(2, recipe::k_max_run_count))
      ->group("Decision");
  app.add_option("--max-runs", o.max_runs,
                 fmt::format("most runs per revision (default {})", decide.max_runs))
      ->check(whole_number(2, recipe::k_max_run_count))
      ->group("Decision");
  app.add_option("--warmup", o.warmup, "warm-up runs per revision, recorded, not counted")
      ->check(whole_number(0, recipe::k_max_run_count))
      ->group("Decision");
  app.add_option("--timeout", o.timeout,
                 fmt::format("seconds one run may take (default {:g})",
                             recipe::RunRecipe{}.timeout.count()))
      ->check(seconds_up_to(recipe::k_max_seconds))
      ->group("Decision");
  app.add_option("--budget", o.budget, "seconds of measuring at most, across revisions")
      ->check(seconds_up_to(recipe::k_max_seconds))
      ->group("Decision");
  app.add_option("--seed", o.seed,
                 fmt::format("seed for run order and resampling (default {})", decide.seed))
      ->check(whole_number(0, recipe::k_max_seed))
      ->group("Decision");
  app.add_option("--statistic", o.statistic,
                 "what of each run is compared: auto (default), median, mean, min, max, p1..p99")
      ->group("Decision");
  app.add_flag_callback(
         "--duet", [&o] { o.duet = recipe::DuetMode::on; },
         "run both revisions of a block at once, each on CPUs of its own (default: auto)")
      ->group("Decision");
  app.add_flag_callback(
         "--no-duet", [&o] { o.duet = recipe::DuetMode::off; },
         "never run the two revisions at once")
      ->group("Decision");
  app.add_option_function<std::string>(
         "--cwd", [&o](const std::string& text) { o.cwd = recipe::parse_run_cwd(text); },
         "where runs start: scratch (a directory of their own, the default) or artifacts (the "
         "cached build, for benchmarks that read data files by relative paths)")
      ->check(CLI::IsMember({"scratch", "artifacts"}))
      ->group("Recipe");
  app.add_option_function<std::string>(
         "--instrument",
         [&o](const std::string& text) { o.instrument = recipe::parse_instrument(text); },
         "what runs measure beside their output: time (the default), valgrind (instructions, "
         "cache misses and branch mispredictions on a simulated CPU, which do not wobble) or "
         "perf (the CPU's hardware counters) or ncu (Nsight Compute's metrics per CUDA kernel)")
      ->check(CLI::IsMember(recipe::instrument_names()))
      ->group("Recipe");
  app.add_option("--cpus", o.cpus, "pin runs to these CPUs (comma-separated)")
      ->allow_extra_args(false)
      ->delimiter(',')
      ->check(whole_number(0, recipe::k_max_cpu))
      ->group("Recipe");
  app.add_option("--executor", o.executor,
                 "where builds and runs happen: local (default) or slurm ([executor] in "
                 "culprit.toml)")
      ->group("Executor");
  app.add_option("--parallel", o.parallel,
                 "K: probes per bisection round, Slurm jobs at once, local build slots (default 1)")
      ->check(whole_number(1, recipe::k_max_parallel))
      ->group("Executor");
  app.add_flag("--parallel-runs", o.parallel_runs,
               "with the local executor, measure the K probes of a round at once (they disturb "
               "each other)")
      ->group("Executor");
  app.add_option("--peak-gflops", o.peak_gflops,
                 "the device's FP32 peak in GFLOP/s, for the roofline (default: measured or "
                 "from the device)")
      ->group("Roofline");
  app.add_option("--peak-tensor-gflops", o.peak_tensor_gflops,
                 "the device's tensor-core peak in GFLOP/s ([roofline] compute = \"tensor\")")
      ->group("Roofline");
  app.add_option("--peak-gbps", o.peak_gbps,
                 "the device's memory bandwidth in GB/s, for the roofline")
      ->group("Roofline");
  app.add_option("--peak-device", o.peak_device,
                 "whose peaks: a GPU of the datasheet table (\"A100 SXM4 80GB\") or cpu")
      ->group("Roofline");
}

} // namespace culprit::cli
