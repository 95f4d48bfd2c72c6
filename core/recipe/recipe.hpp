#pragma once
// The recipe: how to build and how to run, from culprit.toml in the current tree (never from the
// revision being measured: the yardstick must not change while we measure with it) or --config,
// with command-line flags overriding it.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/util/error.hpp"

namespace culprit::recipe {

// A command is a shell string (run by /bin/sh -c) or an argument vector (run as is).
using CommandSpec = std::variant<std::string, std::vector<std::string>>;

struct BuildRecipe {
  std::string command; // a shell string; {src}, {build}, {commit}, {rev} expand
  // Globs of what to keep from a build; relative to {build}, or starting with {src}/. Empty:
  // the whole build directory.
  std::vector<std::string> artifacts;
  std::map<std::string, std::string> env;
  std::chrono::seconds timeout{7200};
  // Add `-Xptxas -v` to nvcc through NVCC_APPEND_FLAGS so the build log holds per-kernel
  // register, spill and shared-memory figures.
  bool ptxas_report = true;
};

// Whether the two revisions of a comparison run at the same time, each on CPUs of its own (a
// duet): off, always, or automatically when their samples show one-sided interference.
enum class DuetMode : std::uint8_t { off, on, automatic };
std::string_view to_string(DuetMode mode);

// Where a run starts: a scratch directory of its own, emptied between commands (the default),
// or the directory of the cached artifacts, for benchmarks that read data files by relative
// paths (kept there with [build] artifacts = [..., "{src}/testdata"]).
enum class RunCwd : std::uint8_t { scratch, artifacts };
std::string_view to_string(RunCwd cwd);
std::optional<RunCwd> parse_run_cwd(std::string_view text);

// What a run measures beside the benchmark's own output: nothing more (time, the default), what
// the program executes on a simulated CPU (valgrind), the CPU's hardware counters (perf), or
// Nsight Compute's metrics of each CUDA kernel (ncu); see
// core/measure/instrument.hpp.
enum class Instrument : std::uint8_t { time, valgrind, perf, ncu };
std::string_view to_string(Instrument instrument);
std::optional<Instrument> parse_instrument(std::string_view text);
// Every instrument's name, in the order of the enumeration: what --instrument accepts.
std::vector<std::string> instrument_names();

struct RunRecipe {
  CommandSpec command;            // {build} names the cached artifacts
  std::string format = "auto";    // auto | culprit | gbench | nvbench | csv | regex | time
  std::string metric;             // empty: the format's primary metric
  std::vector<std::string> cases; // globs; empty: every case
  std::chrono::duration<double> timeout{60.0};
  std::map<std::string, std::string> env;
  std::vector<int> cpus;                    // pin runs to these CPUs; empty: no pinning
  DuetMode duet = DuetMode::automatic;      // [run] duet = true | false | "auto"
  RunCwd cwd = RunCwd::scratch;             // [run] cwd = "scratch" | "artifacts"
  Instrument instrument = Instrument::time; // [run] instrument: time | valgrind | perf | ncu
  // Options of the csv and regex formats.
  std::string column;                    // csv: the value column
  std::vector<std::string> case_columns; // csv: columns that name the case
  std::string pattern;                   // regex: with one capture group, or named groups
  std::string unit;                      // csv/regex: the unit of the values
  std::string direction;                 // csv/regex: "lower" or "higher" (default lower)
};

// Everything that shapes a verdict, each default written here and nowhere else: [decide] and the
// flags fill it, compare, bisect, run, track and history read it (CompareSettings carries it),
// the evidence records it, and core/measure/stats_bridge.hpp turns it into the statistics'
// options.
struct DecideOptions {
  double threshold = 0.02; // the smallest change that matters, as a fraction
  double confidence = 0.95;
  int min_runs = 5;
  int max_runs = 40;
  int warmup = 1;
  std::optional<std::chrono::duration<double>> budget; // wall-time budget for measuring
  std::uint64_t seed = 1;
  // The statistic of each run that verdicts compare: "auto", "median", "mean", "min", "max" or a
  // percentile "p1".."p99" (stats/run_statistic.hpp; auto: core/measure/estimator.hpp).
  std::string statistic = "auto";
  // The level of a bisection probe's interval between the ends: high, because one probe placed
  // on the wrong side sends the search into the wrong half.
  double classify_confidence = 0.99;
  // When the culprits a bisection names explain less than this share of a case's whole change,
  // it says so: a smaller culprit may hide behind a probe that looked like one end.
  double explained_share = 0.75;
};

// Where builds and runs happen (an executor: local or Slurm). Not part of any hash: the
// same build and run on a cluster measure the same thing, and runs are keyed by device anyway.
// Where builds or runs happen: this machine, or allocations of a Slurm cluster.
enum class ExecutorKind : std::uint8_t { local, slurm };
std::string_view to_string(ExecutorKind kind);
std::optional<ExecutorKind> parse_executor_kind(std::string_view text);

struct ExecutorRecipe {
  ExecutorKind kind = ExecutorKind::local;
  std::vector<std::string> srun_args;          // for each Slurm step (a string is split at spaces)
  std::vector<std::string> sbatch_args;        // for each allocation, e.g. -p gpu --gres=gpu:1
  ExecutorKind build_on = ExecutorKind::local; // where builds run with kind = slurm
  int parallel = 1;                            // probes per bisection round; lanes; build slots
  bool parallel_runs = false; // local: measure the lanes at once (they disturb each other)
  int max_attempts = 3;       // allocations tried for one batch
  std::chrono::duration<double> queue_timeout{600.0}; // for an allocation to be granted
};

// The work of the cases a glob matches, as expressions over their axes, for outputs that carry
// none ([roofline.cases]: "sgemm/*" = { flops = "2*M*N*K", bytes = "4*(M*K+K*N+M*N)" }).
struct RooflineCaseWork {
  std::string glob;
  std::string flops; // an expression (core/recipe/work_expression.hpp); empty: not given
  std::string bytes;
};

// How the roofline model (core/roofline/roofline.hpp) reads the cases: the device's peaks (each
// also a flag; those not given come from the device: measured on the CPU, from a GPU's properties
// or datasheet), which compute units bound the cases, and work the output does not carry. Not part
// of any hash: it changes what is said about runs, never a run.
struct RooflineRecipe {
  std::optional<double> peak_gflops;        // vector FP32 peak, GFLOP/s
  std::optional<double> peak_tensor_gflops; // tensor-core peak, GFLOP/s
  std::optional<double> peak_gbps;          // memory bandwidth, GB/s
  std::string device;                       // a datasheet GPU ("A100 SXM4 80GB") or "cpu"
  std::string compute = "vector";           // vector | tensor: which peak bounds the cases
  // Threads the cases run on, when the CPU's peaks are measured: a single-threaded benchmark is
  // bounded by one core. Default: one per CPU of [run] cpus, else every hardware thread.
  std::optional<int> threads;
  std::vector<RooflineCaseWork> cases;
};

// [store]: where results live when not in the cache dir's SQLite files (core/store/location.hpp).
struct StoreRecipe {
  std::string url; // postgresql://...; empty for the default
};

struct Recipe {
  BuildRecipe build;
  RunRecipe run;
  DecideOptions decide;
  ExecutorRecipe executor;
  RooflineRecipe roofline;
  StoreRecipe store;
  std::filesystem::path source; // the file it came from; empty when from flags only
};

// Flags that override the file. Unset fields leave the file's value.
struct RecipeOverrides {
  std::optional<std::string> build_command;
  std::optional<std::vector<std::string>> artifacts;
  std::optional<std::string> run_command;
  std::optional<std::string> format;
  std::optional<std::string> metric;
  std::optional<std::vector<std::string>> cases;
  std::optional<std::string> threshold; // "2%" or "0.02"
  std::optional<double> confidence;
  std::optional<int> min_runs;
  std::optional<int> max_runs;
  std::optional<int> warmup;
  std::optional<double> timeout;
  std::optional<double> budget;
  std::optional<std::uint64_t> seed;
  std::optional<std::vector<int>> cpus;
  std::optional<std::string> executor;
  std::optional<int> parallel;
  std::optional<bool> parallel_runs;
  std::optional<std::string> statistic;
  std::optional<DuetMode> duet;
  std::optional<RunCwd> cwd;
  std::optional<Instrument> instrument;
  std::optional<double> peak_gflops;
  std::optional<double> peak_tensor_gflops;
  std::optional<double> peak_gbps;
  std::optional<std::string> peak_device;
};

// Bounds that culprit.toml and the flags share. A timeout or budget past a week is a typo (and
// past a few centuries a deadline no longer fits the clock).
inline constexpr double k_max_seconds = 7 * 24 * 3600.0;
inline constexpr std::int64_t k_max_run_count = 1'000'000; // min_runs, max_runs, warmup, runs
inline constexpr std::uint64_t k_max_seed = 9'223'372'036'854'775'807; // TOML's largest integer
inline constexpr int k_max_parallel = 64;
inline constexpr int k_max_cpu = 1023; // CPU_SETSIZE - 1
// Peaks past these are typos: no device comes near 10 PFLOP/s of FP32 or 100 TB/s.
inline constexpr double k_max_peak_gflops = 1e7;
inline constexpr double k_max_peak_gbps = 1e5;

inline constexpr std::string_view k_config_file_name = "culprit.toml";
inline constexpr std::string_view k_formats[] = {"auto", "culprit", "gbench", "nvbench",
                                                 "csv",  "regex",   "time"};

// Parses culprit.toml text. An unknown key, a wrong type or an impossible value is a usage error
// naming the key and its line: "culprit.toml:7: unknown key 'comand' in [build] ...".
Result<Recipe> parse_recipe(std::string_view text, const std::filesystem::path& source);
Result<Recipe> load_recipe(const std::filesystem::path& file);

// Applies the flags, then checks the whole recipe (a build and a run command are required, runs
// are positive and ordered, and so on).
Result<Recipe> apply_overrides(Recipe recipe, const RecipeOverrides& overrides);

// The metric that runs of `run` (`overrides` already applied to it) decide on, and that a history
// of them shows: a counting instrument's count (instructions; under ncu, gpu_instructions) where
// no metric is named, or where the recipe names a time and the flags name the instrument but no
// metric (an instrumented run's times are the instrument's, not the program's); else the metric
// named ("": each case's primary one).
std::string instrument_metric(const RunRecipe& run, const RecipeOverrides& overrides);

// The deciding part alone, for commands that decide without building or running (history): the
// same flags, the same bounds as apply_overrides.
Result<DecideOptions> apply_decide_overrides(DecideOptions decide,
                                             const RecipeOverrides& overrides);

// "2%", "0.02" or "2" (as a percentage only with %): the threshold as a fraction in (0, 1).
Result<double> parse_threshold(std::string_view text);

// Hashes of the parts of the recipe that change what a build or a run produces.
std::string build_recipe_hash(const BuildRecipe& build);
std::string run_recipe_hash(const RunRecipe& run);

} // namespace culprit::recipe
