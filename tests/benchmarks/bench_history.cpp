// Accuracy of change points and triage on simulated histories (the fake executor: no builds, no
// timing noise of this machine). Series of 50 to 300 commits hold 0 to 3 steps of 3% to 15%
// (a quarter of them improvements) under lognormal noise of 1% to 4% with outliers (1% of the
// samples three times too slow). Each commit is tracked with 5 runs of 5 samples.
//   located   true steps with a change point within one commit (tracking every commit)
//   false     series with a change point farther than one commit from every true step
//   sparse    true steps with a change point around them when tracking every N-th commit (2 by
//             default, so that triage has to bisect; steps closer than 3 N commits cannot be
//             told apart there, as a segment needs 3 points)
//   exact     true steps whose culprit triage named exactly, on that sparse history
//   wrong     culprits named that are no true step
//   dismiss   change points triage did not confirm; open: left inconclusive (the runs ran out)
// Targets: located >= 90%, false <= 5% of series, exact >= 90%.
// Usage: bench_history [trials per configuration, default 8] [every N-th commit for triage, 2]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>

#include "core/history/series.hpp"
#include "core/history/track.hpp"
#include "core/history/triage.hpp"
#include "tests/support/fake_measure.hpp"
#include "tests/support/simulated_history.hpp"

using namespace culprit;
using namespace culprit::history;
using testing::ChainGraph;
using testing::FakeBuildProvider;
using testing::FakeRig;
using testing::SimulatedHistory;
using testing::TempDir;

namespace {

struct Step {
  std::size_t at;
  double factor;
};

struct Tally {
  int series = 0;
  int steps = 0;
  int located = 0;
  int false_series = 0;
  int exact = 0;
  int wrong = 0;
  int sparse_found = 0; // steps with a change point around them in the sparse history
  int dismissed = 0;    // change points triage did not confirm
  int open = 0;         // change points left inconclusive
  double seconds = 0;
};

std::vector<Step> plan_steps(std::mt19937_64& rng, std::size_t commits, int count) {
  std::vector<Step> steps;
  std::uniform_real_distribution<double> size(0.03, 0.15);
  std::uniform_int_distribution<std::size_t> where(6, commits - 7);
  std::bernoulli_distribution improvement(0.25);
  while (static_cast<int>(steps.size()) < count) {
    const std::size_t at = where(rng);
    bool apart = true;
    for (const auto& s : steps)
      apart = apart && (at > s.at ? at - s.at : s.at - at) >= 8;
    if (!apart)
      continue;
    const double change = size(rng);
    steps.push_back({at, improvement(rng) ? 1 / (1 + change) : 1 + change});
  }
  return steps;
}

SimulatedHistory simulate(std::size_t commits, double noise, const std::vector<Step>& steps) {
  FakeCase c;
  c.name = "kernel";
  c.median = 1e-3;
  c.sigma = noise;
  c.run_sigma = noise / 2;
  c.outlier_rate = 0.01;
  c.outlier_factor = 3;
  SimulatedHistory simulated(commits, {c});
  for (const auto& step : steps)
    simulated.plant("kernel", step.at, step.factor);
  return simulated;
}

History tracked_history(FakeRig& rig, Ledger& ledger, const SimulatedHistory& simulated,
                        std::size_t every) {
  FakeBuildProvider builds;
  simulated.install(rig.executor());
  auto tracked = track_commits(select_commits(simulated.range(), {.every = every}), builds,
                               rig.sampler(), ledger, {.runs = 5, .chunk = 32});
  if (!tracked) {
    std::fprintf(stderr, "track: %s\n", tracked.error().message.c_str());
    std::exit(1);
  }
  auto points = choose_points(ledger.tracked().value(), {}).value();
  auto history = load_history(rig.store(), points, {});
  if (!history) {
    std::fprintf(stderr, "history: %s\n", history.error().message.c_str());
    std::exit(1);
  }
  return *history;
}

void detection(Tally& tally, const SimulatedHistory& simulated, const std::vector<Step>& steps,
               std::uint64_t seed) {
  FakeRig rig(seed);
  TempDir dir("culprit-bench-history");
  auto ledger = Ledger::open_in(dir.path()).value();
  const auto history = tracked_history(rig, ledger, simulated, 1);
  std::set<std::size_t> found;
  bool false_found = false;
  for (const auto& change : history.change_points) {
    bool near = false;
    for (const auto& step : steps)
      if ((change.index > step.at ? change.index - step.at : step.at - change.index) <= 1) {
        near = true;
        found.insert(step.at);
      }
    false_found = false_found || !near;
  }
  tally.located += static_cast<int>(found.size());
  tally.false_series += false_found ? 1 : 0;
}

void triage(Tally& tally, const SimulatedHistory& simulated, const std::vector<Step>& steps,
            std::uint64_t seed, std::size_t every) {
  FakeRig rig(seed);
  TempDir dir("culprit-bench-triage");
  auto ledger = Ledger::open_in(dir.path()).value();
  const auto history = tracked_history(rig, ledger, simulated, every);
  FakeBuildProvider builds;
  ChainGraph graph(simulated.commits());
  TriageSettings settings;
  settings.host_id = "fake-host";
  settings.bisect.compare.threshold = 0.02;
  auto outcome = run_triage(history, builds, rig.sampler(), graph, ledger, settings);
  if (!outcome) {
    std::fprintf(stderr, "triage: %s\n", outcome.error().message.c_str());
    std::exit(1);
  }
  std::set<std::string> truth;
  for (const auto& step : steps) {
    truth.insert(simulated.commit(step.at));
    for (const auto& change : history.change_points)
      if (step.at > std::stoul(change.before.substr(1)) &&
          step.at <= std::stoul(change.commit.substr(1))) {
        ++tally.sparse_found;
        break;
      }
  }
  tally.dismissed += static_cast<int>(outcome->count("not_confirmed"));
  tally.open += static_cast<int>(outcome->count("inconclusive"));
  for (const auto& finding : outcome->findings) {
    if (truth.contains(finding.commit))
      ++tally.exact;
    else
      ++tally.wrong;
  }
}

} // namespace

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 8;
  const auto every = static_cast<std::size_t>(argc > 2 ? std::atoi(argv[2]) : 2);
  std::printf("%8s %6s %7s %6s %9s %7s %7s %7s %7s %7s %6s %8s\n", "commits", "noise", "series",
              "steps", "located", "false", "sparse", "exact", "wrong", "dismiss", "open",
              "s/trial");
  Tally total;
  std::uint64_t seed = 1;
  for (const std::size_t commits : {50, 150, 300}) {
    for (const double noise : {0.01, 0.025, 0.04}) {
      Tally tally;
      std::mt19937_64 rng(commits * 1000 + static_cast<std::uint64_t>(noise * 1000));
      for (int t = 0; t < trials; ++t) {
        const auto start = std::chrono::steady_clock::now();
        const auto steps = plan_steps(rng, commits, t % 4);
        const auto simulated = simulate(commits, noise, steps);
        ++seed;
        detection(tally, simulated, steps, seed);
        triage(tally, simulated, steps, seed, every);
        ++tally.series;
        tally.steps += static_cast<int>(steps.size());
        tally.seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
      const auto share = [](int n, int of) { return of == 0 ? 100.0 : 100.0 * n / of; };
      std::printf("%8zu %5.1f%% %7d %6d %8.0f%% %6.0f%% %6.0f%% %6.0f%% %7d %7d %6d %8.2f\n",
                  commits, noise * 100, tally.series, tally.steps,
                  share(tally.located, tally.steps), share(tally.false_series, tally.series),
                  share(tally.sparse_found, tally.steps), share(tally.exact, tally.steps),
                  tally.wrong, tally.dismissed, tally.open, tally.seconds / tally.series);
      std::fflush(stdout);
      total.series += tally.series;
      total.steps += tally.steps;
      total.located += tally.located;
      total.false_series += tally.false_series;
      total.exact += tally.exact;
      total.wrong += tally.wrong;
    }
  }
  std::printf("all: %d series, %d steps: located %.1f%% (target >= 90%%), false %.1f%% of series "
              "(target <= 5%%), exact culprits %.1f%% (target >= 90%%), %d wrong\n",
              total.series, total.steps, 100.0 * total.located / total.steps,
              100.0 * total.false_series / total.series, 100.0 * total.exact / total.steps,
              total.wrong);
  return 0;
}
