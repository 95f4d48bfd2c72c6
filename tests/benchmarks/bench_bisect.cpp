// Accuracy and cost of bisection on simulated histories (the fake executor: no builds, no timing
// noise of this machine). Histories of 64 to 1,024 commits hold one step of 3% to 20% under
// lognormal noise of 1% to 5% with occasional outliers. For each configuration:
//   exact   the culprit named is the planted commit
//   wrong   a culprit was named and it is not the planted one ("inconclusive" is neither)
//   probes  distinct commits probed, against the bound ceil(log2 N) + 2
//   runs    benchmark runs per bisection
// and the same for the baseline people use today: `git bisect run` with a script that runs the
// benchmark once and calls a commit bad when its median exceeds a fixed threshold halfway
// between one run of good and one run of bad.
// Targets: exact >= 95%, wrong <= 2%, probes <= ceil(log2 N) + 2.
// Usage: bench_bisect [trials per configuration, default 12]

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "core/bisect/bisect.hpp"
#include "tests/support/fake_measure.hpp"

using namespace culprit;
using testing::FakeBuildProvider;
using testing::FakeRig;

namespace {

struct Config {
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
};

FakeCommit level(double median, double noise) {
  FakeCommit commit;
  commit.samples_per_run = 5;
  FakeCase c;
  c.name = "kernel";
  c.median = median;
  c.sigma = noise;
  c.run_sigma = noise / 2;
  c.outlier_rate = 0.01;
  c.outlier_factor = 3;
  commit.cases.push_back(c);
  return commit;
}

// One run of the baseline's script: the median of one process's samples.
double one_run(std::mt19937_64& rng, double median, double noise) {
  std::normal_distribution<double> z;
  const double run_level = median * std::exp(noise / 2 * z(rng));
  std::vector<double> samples;
  for (int i = 0; i < 5; ++i) {
    double s = run_level * std::exp(noise * z(rng));
    if (std::uniform_real_distribution<double>()(rng) < 0.01)
      s *= 3;
    samples.push_back(s);
  }
  std::nth_element(samples.begin(), samples.begin() + 2, samples.end());
  return samples[2];
}

int baseline_bisect(std::mt19937_64& rng, const Config& config, int culprit) {
  const double good = 1e-3;
  const double bad = good * (1 + config.step);
  const double threshold =
      std::sqrt(one_run(rng, good, config.noise) * one_run(rng, bad, config.noise));
  int lo = -1;
  int hi = config.commits - 1;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    const double level_here = mid >= culprit ? bad : good;
    if (one_run(rng, level_here, config.noise) > threshold)
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

} // namespace

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 12;
  const std::vector<Config> configs = {
      {64, 0.03, 0.01},   {64, 0.05, 0.02},   {64, 0.10, 0.05},  {64, 0.20, 0.05},
      {256, 0.03, 0.01},  {256, 0.10, 0.02},  {256, 0.20, 0.05}, {1024, 0.05, 0.01},
      {1024, 0.10, 0.03}, {1024, 0.20, 0.05},
  };
  std::printf("%6s %6s %6s | %6s %6s %6s %8s %6s %7s | %14s %14s\n", "N", "step", "noise", "exact",
              "wrong", "incon", "probes", "bound", "runs", "baseline exact", "baseline wrong");
  Tally all;
  std::mt19937_64 rng(2026);
  for (const auto& config : configs) {
    Tally tally;
    const int bound = static_cast<int>(std::ceil(std::log2(config.commits))) + 2;
    for (int trial = 0; trial < trials; ++trial) {
      const int culprit = std::uniform_int_distribution<int>(0, config.commits - 1)(rng);
      FakeRig rig(static_cast<std::uint64_t>(trial) * 7919 + 17);
      BisectRange range;
      range.good = range.good_rev = "good";
      for (int i = 0; i < config.commits; ++i)
        range.commits.push_back("c" + std::to_string(i));
      range.bad = range.bad_rev = range.commits.back();
      rig.executor().set_default(level(1e-3, config.noise));
      for (int i = culprit; i < config.commits; ++i)
        rig.executor().set_commit(range.commits[static_cast<std::size_t>(i)],
                                  level(1e-3 * (1 + config.step), config.noise));
      FakeBuildProvider builds;
      BisectSettings settings;
      settings.compare.seed = static_cast<std::uint64_t>(trial) + 1;
      auto outcome = run_bisect(range, builds, rig.sampler(), settings);
      ++tally.trials;
      if (!outcome) {
        std::printf("error: %s\n", outcome.error().message.c_str());
        continue;
      }
      std::set<std::string> probed;
      for (const auto& step : outcome->steps)
        probed.insert(step.commit);
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
      const int baseline = baseline_bisect(rng, config, culprit);
      if (baseline == culprit)
        ++tally.baseline_exact;
      else
        ++tally.baseline_wrong;
    }
    std::printf(
        "%6d %5.0f%% %5.0f%% | %5.0f%% %5.0f%% %5.0f%% %4.1f/%-3d %6d %7.0f | %13.0f%% "
        "%13.0f%%\n",
        config.commits, config.step * 100, config.noise * 100, 100.0 * tally.exact / tally.trials,
        100.0 * tally.wrong / tally.trials, 100.0 * tally.inconclusive / tally.trials,
        tally.probes / tally.trials, tally.max_probes, bound, tally.runs / tally.trials,
        100.0 * tally.baseline_exact / tally.trials, 100.0 * tally.baseline_wrong / tally.trials);
    std::fflush(stdout);
    all.trials += tally.trials;
    all.exact += tally.exact;
    all.wrong += tally.wrong;
    all.inconclusive += tally.inconclusive;
    all.baseline_exact += tally.baseline_exact;
    all.baseline_wrong += tally.baseline_wrong;
  }
  std::printf("all: exact %.1f%% (target >= 95%%), wrong %.1f%% (target <= 2%%), inconclusive "
              "%.1f%%; baseline exact %.1f%%, wrong %.1f%%\n",
              100.0 * all.exact / all.trials, 100.0 * all.wrong / all.trials,
              100.0 * all.inconclusive / all.trials, 100.0 * all.baseline_exact / all.trials,
              100.0 * all.baseline_wrong / all.trials);
  return 0;
}
