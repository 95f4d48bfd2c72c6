// Accuracy and cost of bisection on simulated histories (the fake executor: no builds, no timing
// noise of this machine). Histories of 64 to 1,024 commits hold one step of 3% to 20% under two
// noise models:
//   lognormal  each sample lognormal around its level (1% to 5%), half that from run to run, 1% of
//              samples 3x slower; 5 samples a run
//   shared     a shared machine: the whole guest flips between a fast state and one 1.5-2x slower,
//              slow half of the time, in stretches of 4 ms on average, so that the state changes
//              within a run; 1% lognormal noise in the fast state, 0.5% from run to run; 10 samples
//              of about 1 ms a run. One-sided: nothing runs faster than the fast state.
//   runs       shared, with stretches of 20 ms on average and 5 samples a run: the stretches
//              outlast runs, and about 40% of the runs are slow from their first sample to their
//              last (stats/slow_runs.hpp)
// For each configuration:
//   exact   the culprit named is the planted commit
//   wrong   a culprit was named and it is not the planted one ("inconclusive" is neither)
//   probes  distinct commits probed, against the bound ceil(log2 N) + 2
//   runs    benchmark runs per bisection
//   quick   the share of probes classified at a quick look (stats/quick_look.hpp)
// and the same for the baseline people use today: `git bisect run` with a script that runs the
// benchmark once and calls a commit bad when its median exceeds a fixed threshold halfway
// between one run of good and one run of bad ("its runs": the runs it made).
// The large rows (20% and 50% steps, 3% and 5% noise) show what a step that dwarfs the noise
// costs. Targets: lognormal exact >= 95%; shared exact >= 95% for 5% and 10% steps, >= 80% for 3%;
// wrong <= 2%; the same for runs; probes <= ceil(log2 N) + 2.
// Usage: bench_bisect [trials per configuration, default 12] [lognormal|large|shared|runs|all]
//                     [STATISTIC] [no-quick]
// (STATISTIC: the [decide] statistic setting, default auto; median shows what auto buys.
// no-quick: every probe waits for the ordinary looks, to show what the quick look saves.)

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>

#include "core/bisect/bisect.hpp"
#include "tests/support/fake_measure.hpp"

using namespace culprit;
using testing::FakeBuildProvider;
using testing::FakeRig;

namespace {

enum class Model { lognormal, shared, runs };

struct Config {
  Model model;
  int commits;
  double step;
  double noise;
};

struct Tally {
  int trials = 0;
  int exact = 0;
  int wrong = 0;
  int inconclusive = 0;
  double probes = 0;
  int max_probes = 0;
  double runs = 0;
  int baseline_exact = 0;
  int baseline_wrong = 0;
  int quick = 0; // probes classified at a quick look
  double baseline_runs = 0;
};

const FakeMachine k_shared_machine{.slow_share = 0.5,
                                   .mean_slow_seconds = 4e-3,
                                   .slow_min = 1.5,
                                   .slow_max = 2.0,
                                   .run_overhead_seconds = 5e-3,
                                   .drift_per_second = 0.0};
const FakeMachine k_long_stretches{.slow_share = 0.5,
                                   .mean_slow_seconds = 20e-3,
                                   .slow_min = 1.5,
                                   .slow_max = 2.0,
                                   .run_overhead_seconds = 5e-3,
                                   .drift_per_second = 0.0};

double mean_stretch(Model model) {
  return model == Model::runs ? 20e-3 : 4e-3;
}

int samples_per_run(Model model) {
  return model == Model::shared ? 10 : 5;
}

FakeCommit level(const Config& config, double median) {
  FakeCommit commit;
  commit.samples_per_run = samples_per_run(config.model);
  FakeCase c;
  c.name = "kernel";
  c.median = median;
  c.sigma = config.noise;
  c.run_sigma = config.noise / 2;
  c.outlier_rate = config.model == Model::lognormal ? 0.01 : 0.0;
  c.outlier_factor = 3;
  commit.cases.push_back(c);
  return commit;
}

// One run of the baseline's script: the median of one process's samples.
double one_run(std::mt19937_64& rng, const Config& config, double median) {
  std::normal_distribution<double> z;
  std::uniform_real_distribution<double> u;
  const double run_level = median * std::exp(config.noise / 2 * z(rng));
  std::vector<double> samples;
  const int count = samples_per_run(config.model);
  bool slow = u(rng) < 0.5;
  double slowdown = 1.5 + (0.5 * u(rng));
  for (int i = 0; i < count; ++i) {
    double s = run_level * std::exp(config.noise * z(rng));
    if (config.model == Model::lognormal && u(rng) < 0.01)
      s *= 3;
    if (config.model != Model::lognormal) {
      s *= slow ? slowdown : 1.0;
      if (u(rng) < s / mean_stretch(config.model)) {
        slow = !slow;
        slowdown = 1.5 + (0.5 * u(rng));
      }
    }
    samples.push_back(s);
  }
  std::nth_element(samples.begin(), samples.begin() + (count / 2), samples.end());
  return samples[static_cast<std::size_t>(count / 2)];
}

int baseline_bisect(std::mt19937_64& rng, const Config& config, int culprit, int& runs) {
  const double good = 1e-3;
  const double bad = good * (1 + config.step);
  const double threshold = std::sqrt(one_run(rng, config, good) * one_run(rng, config, bad));
  runs = 2;
  int lo = -1;
  int hi = config.commits - 1;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    const double level_here = mid >= culprit ? bad : good;
    ++runs;
    if (one_run(rng, config, level_here) > threshold)
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

const char* name_of(Model model) {
  switch (model) {
  case Model::shared:
    return "shared";
  case Model::runs:
    return "runs";
  case Model::lognormal:
    break;
  }
  return "lognormal";
}

} // namespace

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 12;
  const std::string which = argc > 2 ? argv[2] : "all";
  const std::string statistic_name = argc > 3 ? argv[3] : "auto";
  const bool quick_look = argc <= 4 || std::string(argv[4]) != "no-quick";
  const auto statistic = measure::StatisticSetting::parse(statistic_name);
  if (!statistic) {
    std::fprintf(stderr, "bench_bisect: %s\n", statistic.error().message.c_str());
    return 2;
  }
  std::vector<Config> configs;
  if (which == "all" || which == "lognormal")
    configs.insert(configs.end(), {
                                      {Model::lognormal, 64, 0.03, 0.01},
                                      {Model::lognormal, 64, 0.05, 0.02},
                                      {Model::lognormal, 64, 0.10, 0.05},
                                      {Model::lognormal, 64, 0.20, 0.05},
                                      {Model::lognormal, 256, 0.03, 0.01},
                                      {Model::lognormal, 256, 0.10, 0.02},
                                      {Model::lognormal, 256, 0.20, 0.05},
                                      {Model::lognormal, 1024, 0.05, 0.01},
                                      {Model::lognormal, 1024, 0.10, 0.03},
                                      {Model::lognormal, 1024, 0.20, 0.05},
                                  });
  if (which == "all" || which == "large")
    configs.insert(configs.end(), {
                                      {Model::lognormal, 64, 0.20, 0.03},
                                      {Model::lognormal, 256, 0.20, 0.03},
                                      {Model::lognormal, 1024, 0.20, 0.03},
                                      {Model::lognormal, 64, 0.50, 0.05},
                                  });
  if (which == "all" || which == "shared")
    configs.insert(configs.end(), {
                                      {Model::shared, 64, 0.03, 0.01},
                                      {Model::shared, 64, 0.05, 0.01},
                                      {Model::shared, 64, 0.10, 0.01},
                                      {Model::shared, 256, 0.03, 0.01},
                                      {Model::shared, 256, 0.05, 0.01},
                                      {Model::shared, 256, 0.10, 0.01},
                                      {Model::shared, 1024, 0.05, 0.01},
                                      {Model::shared, 1024, 0.10, 0.01},
                                  });
  if (which == "all" || which == "runs")
    configs.insert(configs.end(), {
                                      {Model::runs, 64, 0.03, 0.01},
                                      {Model::runs, 64, 0.05, 0.01},
                                      {Model::runs, 64, 0.10, 0.01},
                                      {Model::runs, 256, 0.03, 0.01},
                                      {Model::runs, 256, 0.05, 0.01},
                                      {Model::runs, 256, 0.10, 0.01},
                                  });
  std::printf("%9s %6s %6s %6s | %6s %6s %6s %8s %6s %7s %6s | %14s %14s %8s\n", "model", "N",
              "step", "noise", "exact", "wrong", "incon", "probes", "bound", "runs", "quick",
              "baseline exact", "baseline wrong", "its runs");
  std::map<std::string, Tally> all;
  std::mt19937_64 rng(2026);
  for (const auto& config : configs) {
    Tally tally;
    const int bound = static_cast<int>(std::ceil(std::log2(config.commits))) + 2;
    for (int trial = 0; trial < trials; ++trial) {
      const int culprit = std::uniform_int_distribution<int>(0, config.commits - 1)(rng);
      FakeRig rig(static_cast<std::uint64_t>(trial) * 7919 + 17);
      if (config.model == Model::shared)
        rig.executor().set_machine(k_shared_machine);
      if (config.model == Model::runs)
        rig.executor().set_machine(k_long_stretches);
      bisect::BisectRange range;
      range.good = range.good_rev = "good";
      for (int i = 0; i < config.commits; ++i)
        range.commits.push_back("c" + std::to_string(i));
      range.bad = range.bad_rev = range.commits.back();
      rig.executor().set_default(level(config, 1e-3));
      for (int i = culprit; i < config.commits; ++i)
        rig.executor().set_commit(range.commits[static_cast<std::size_t>(i)],
                                  level(config, 1e-3 * (1 + config.step)));
      FakeBuildProvider builds;
      bisect::BisectSettings settings;
      settings.compare.decide.seed = static_cast<std::uint64_t>(trial) + 1;
      settings.compare.decide.statistic = statistic_name;
      settings.quick_look = quick_look;
      auto outcome = bisect::run_bisect(range, builds, rig.sampler(), settings);
      ++tally.trials;
      if (!outcome) {
        std::printf("error: %s\n", outcome.error().message.c_str());
        continue;
      }
      std::set<std::string> probed;
      for (const auto& step : outcome->steps) {
        probed.insert(step.commit);
        tally.quick += step.note.starts_with("a quick look") ? 1 : 0;
      }
      tally.probes += static_cast<double>(probed.size());
      tally.max_probes = std::max(tally.max_probes, static_cast<int>(probed.size()));
      tally.runs += rig.executor().total_runs();
      if (outcome->culprits.size() == 1 &&
          outcome->culprits[0].commit == range.commits[static_cast<std::size_t>(culprit)])
        ++tally.exact;
      else if (!outcome->culprits.empty())
        ++tally.wrong;
      else
        ++tally.inconclusive;
      int baseline_runs = 0;
      const int baseline = baseline_bisect(rng, config, culprit, baseline_runs);
      tally.baseline_runs += baseline_runs;
      if (baseline == culprit)
        ++tally.baseline_exact;
      else
        ++tally.baseline_wrong;
    }
    std::printf("%9s %6d %5.0f%% %5.0f%% | %5.0f%% %5.0f%% %5.0f%% %4.1f/%-3d %6d %7.0f %5.0f%% | "
                "%13.0f%% %13.0f%% %8.0f\n",
                name_of(config.model), config.commits, config.step * 100, config.noise * 100,
                100.0 * tally.exact / tally.trials, 100.0 * tally.wrong / tally.trials,
                100.0 * tally.inconclusive / tally.trials, tally.probes / tally.trials,
                tally.max_probes, bound, tally.runs / tally.trials,
                100.0 * tally.quick / std::max(tally.probes, 1.0),
                100.0 * tally.baseline_exact / tally.trials,
                100.0 * tally.baseline_wrong / tally.trials, tally.baseline_runs / tally.trials);
    std::fflush(stdout);
    for (const char* key : {name_of(config.model), "all"}) {
      auto& sum = all[key];
      sum.trials += tally.trials;
      sum.exact += tally.exact;
      sum.wrong += tally.wrong;
      sum.inconclusive += tally.inconclusive;
      sum.baseline_exact += tally.baseline_exact;
      sum.baseline_wrong += tally.baseline_wrong;
    }
  }
  for (const auto& [key, sum] : all)
    std::printf("%s: exact %.1f%%, wrong %.1f%% (target <= 2%%), inconclusive %.1f%%; baseline "
                "exact %.1f%%, wrong %.1f%%\n",
                key.c_str(), 100.0 * sum.exact / sum.trials, 100.0 * sum.wrong / sum.trials,
                100.0 * sum.inconclusive / sum.trials, 100.0 * sum.baseline_exact / sum.trials,
                100.0 * sum.baseline_wrong / sum.trials);
  return 0;
}
