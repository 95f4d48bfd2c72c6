// Parallel bisection through a real Slurm: one simulated history of 256 commits (a 10% step at a
// random commit under 1% noise; the benchmark is a shell script whose level depends on the commit
// it is given and each run lasts 50 ms), bisected with the local executor, and through the loopback
// cluster of tests/support/slurm_cluster.hpp with K = 1 and K = 2 lanes. Prints rounds, probes,
// runs, batches and wall time side by side, and the cost of one measurement batch on the cluster
// (an empty batch: an srun step, the worker's start and the files' round trip). Asserts nothing.
// Needs root and Debian's slurm-wlm and munge; says why and measures only the local executor
// without them.
//
// Usage: bench_cluster [COMMITS] [SEED]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/bisect/bisect.hpp"
#include "core/exec/local_executor.hpp"
#include "core/exec/slurm_executor.hpp"
#include "core/measure/parse_options.hpp"
#include "core/util/fs.hpp"
#include "tests/support/fake_measure.hpp"
#include "tests/support/slurm_cluster.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using culprit::testing::TempDir;
using Clock = std::chrono::steady_clock;

// Five samples of the case "kernel": 1 ms before the step, 1.1 ms from it on, times lognormal
// noise of 1% (awk's generator, seeded by the process id and the clock). Each run also takes 50 ms
// of wall time, as a benchmark process with its set-up does.
constexpr const char* k_benchmark = R"(#!/bin/sh
sleep 0.05
index=${CULPRIT_COMMIT#c}
case "$index" in g) index=-1 ;; esac
awk -v i="$index" -v step="$STEP" -v seed="$$" 'BEGIN {
  srand(seed + systime());
  level = (i >= step) ? 0.0011 : 0.001;
  for (s = 0; s < 5; s++) {
    z = sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand());
    printf "{\"type\":\"sample\",\"case\":\"kernel\",\"metric\":\"time\",\"unit\":\"s\",\"direction\":\"lower\",\"value\":%.9f}\n", level * exp(0.01 * z);
  }
}'
)";

struct Figures {
  std::string name;
  bool exact = false;
  std::size_t rounds = 0;
  std::size_t probes = 0;
  int runs = 0;
  int batches = 0;
  double seconds = 0;
};

struct Setup {
  std::filesystem::path script;
  std::string step;
  culprit::bisect::BisectRange range;
};

culprit::measure::SamplerOptions sampler_options(const Setup& setup,
                                                 const std::filesystem::path& dir) {
  culprit::recipe::RunRecipe run;
  run.command = "sh " + setup.script.string();
  run.format = "culprit";
  run.env = {{"STEP", setup.step}};
  culprit::measure::SamplerOptions options;
  options.run = run;
  options.parse = culprit::measure::parse_options_for(run).value();
  options.recipe_hash = "bench-recipe";
  options.host_id = "bench-host";
  options.warmup = 0;
  options.scratch_dir = dir;
  return options;
}

Figures bisect_with(const std::string& name, const Setup& setup,
                    std::vector<culprit::exec::Executor*> executors) {
  TempDir dir("culprit-bench-cluster");
  auto store = culprit::store::Store::open_in(dir.path()).value();
  const auto now = culprit::store::now();
  (void)store.record_host({"bench-host", "{}", now, now});
  std::vector<std::unique_ptr<culprit::measure::Sampler>> samplers;
  std::vector<culprit::measure::Sampler*> lanes;
  for (auto* executor : executors) {
    samplers.push_back(std::make_unique<culprit::measure::Sampler>(
        *executor, store, sampler_options(setup, dir.path())));
    lanes.push_back(samplers.back().get());
  }
  culprit::testing::FakeBuildProvider builds;
  const auto start = Clock::now();
  auto outcome =
      culprit::bisect::run_bisect(setup.range, builds, lanes, culprit::bisect::BisectSettings{});
  Figures figures{name};
  figures.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!outcome) {
    fmt::print(stderr, "{}: {}\n", name, outcome.error().message);
    return figures;
  }
  figures.exact = outcome->culprits.size() == 1 && outcome->culprits[0].commit == "c" + setup.step;
  figures.rounds = outcome->rounds;
  figures.probes = outcome->steps.size();
  for (const auto* sampler : lanes)
    figures.runs += sampler->runs_made();
  for (auto* executor : executors) {
    if (auto* slurm = dynamic_cast<culprit::exec::SlurmExecutor*>(executor)) {
      for (const auto& job : slurm->jobs())
        figures.batches += job.batches;
      slurm->release();
    }
  }
  return figures;
}

} // namespace

int main(int argc, char** argv) {
  const int commits = argc > 1 ? std::atoi(argv[1]) : 256;
  const unsigned seed = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 7U;
  TempDir work("culprit-bench-cluster-work");
  Setup setup;
  setup.script = work.path() / "bench.sh";
  if (!culprit::write_file_atomic(setup.script, k_benchmark)) {
    fmt::print(stderr, "cannot write {}\n", setup.script.string());
    return 1;
  }
  std::mt19937 rng(seed);
  setup.step = fmt::format("{:03}", std::uniform_int_distribution<int>(1, commits - 1)(rng));
  setup.range.good = setup.range.good_rev = "cg";
  for (int i = 0; i < commits; ++i)
    setup.range.commits.push_back(fmt::format("c{:03}", i));
  setup.range.bad = setup.range.bad_rev = setup.range.commits.back();
  fmt::print("a history of {} commits, a 10% step at c{}, 1% noise\n\n", commits, setup.step);

  std::vector<Figures> table;
  culprit::exec::LocalExecutor local;
  table.push_back(bisect_with("local executor", setup, {&local}));

  std::string why_not;
  auto cluster = culprit::testing::SlurmCluster::start(&why_not);
  double batch_ms = 0;
  if (!cluster) {
    fmt::print("slurm: no cluster ({}); only the local executor measured\n", why_not);
  } else {
    culprit::exec::SlurmOptions options;
    options.alloc_args = {"-p", cluster->partition(), "-N1"};
    options.worker = CULPRIT_EXE;
    options.batch_root = work.path() / "batches";
    options.env = cluster->env();
    for (const int k : {1, 2}) {
      std::vector<std::unique_ptr<culprit::exec::SlurmExecutor>> lanes;
      std::vector<culprit::exec::Executor*> executors;
      for (int lane = 0; lane < k; ++lane) {
        lanes.push_back(
            std::make_unique<culprit::exec::SlurmExecutor>(options, fmt::format("lane{}", lane)));
        executors.push_back(lanes.back().get());
      }
      table.push_back(bisect_with(fmt::format("slurm, K = {}", k), setup, executors));
    }
    // One measurement batch's own cost: an empty batch, after the allocation is held.
    culprit::exec::SlurmExecutor lane(options, "overhead");
    if (auto device = lane.device(); !device) {
      fmt::print(stderr, "slurm: {}\n", device.error().message);
      return 1;
    }
    std::vector<double> walls;
    for (int i = 0; i < 20; ++i) {
      const auto start = Clock::now();
      (void)lane.run_batch({});
      walls.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    std::ranges::sort(walls);
    batch_ms = walls[walls.size() / 2];
  }

  fmt::print("{:<16} {:>6} {:>7} {:>7} {:>6} {:>8} {:>8}\n", "executor", "exact", "rounds",
             "probes", "runs", "batches", "wall s");
  for (const auto& f : table)
    fmt::print("{:<16} {:>6} {:>7} {:>7} {:>6} {:>8} {:>8.1f}\n", f.name, f.exact ? "yes" : "NO",
               f.rounds, f.probes, f.runs, f.batches, f.seconds);
  if (batch_ms > 0) {
    fmt::print("\nper measurement batch on the cluster (srun step, worker start, files): median "
               "{:.0f} ms over 20 empty batches\n",
               batch_ms);
    if (table.size() == 3 && table[1].seconds > 0)
      fmt::print("K = 2 against K = 1: {:.2f}x the rounds, {:.2f}x the wall time\n",
                 static_cast<double>(table[2].rounds) / static_cast<double>(table[1].rounds),
                 table[2].seconds / table[1].seconds);
  }
  return 0;
}
