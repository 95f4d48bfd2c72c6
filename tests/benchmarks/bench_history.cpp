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
//   cover     located steps (at their exact commit) whose interval holds the planted factor
// Targets: located >= 90%, false <= 5% of series, exact >= 90%, cover >= 90%.
//
// Then two nights of tracking (60 commits, 2% noise): the first 30 commits, then all 60 on a
// machine 1, 1.08 or 1.25 times as slow, with no step, a 6% step at the first commit of the
// second night (where the sessions meet) or one inside it, with one anchor or none.
//   false     series with a change point where nothing was planted
//   found     planted steps with a change point within one commit
//   cover     found steps whose interval holds the planted factor
// Targets with an anchor: false <= 5%, found >= 90%, cover >= 90%.
// Usage: bench_history [trials per configuration, default 8] [every N-th commit for triage, 2]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <tuple>

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
  int sparse_found = 0;  // steps with a change point around them in the sparse history
  int dismissed = 0;     // change points triage did not confirm
  int open = 0;          // change points left inconclusive
  int exact_located = 0; // located at the exact commit of the step
  int covered = 0;       // of those, with the planted factor inside the interval
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
        if (change.index == step.at) {
          ++tally.exact_located;
          tally.covered += change.ci[0] <= step.factor && step.factor <= change.ci[1] ? 1 : 0;
        }
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
  settings.bisect.compare.decide.threshold = 0.02;
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
  tally.dismissed += static_cast<int>(outcome->count(TriageStatus::not_confirmed));
  tally.open += static_cast<int>(outcome->count(TriageStatus::inconclusive));
  for (const auto& finding : outcome->findings) {
    if (truth.contains(finding.commit))
      ++tally.exact;
    else
      ++tally.wrong;
  }
}

struct NightTally {
  int series = 0;
  int steps = 0;
  int false_series = 0;
  int found = 0;
  int covered = 0;
};

// Two nights: commits [0, 30) tracked first, then all 60 on a machine `speed` times as slow; a
// step of `factor` at `at` (none when factor is 1).
void two_nights(NightTally& tally, double speed, std::size_t at, double factor, std::size_t anchors,
                std::uint64_t seed) {
  FakeCase c;
  c.name = "kernel";
  c.median = 1e-3;
  c.sigma = 0.02;
  c.run_sigma = 0.01;
  SimulatedHistory first(60, {c});
  SimulatedHistory second(60, {c});
  if (factor != 1)
    second.plant("kernel", at, factor);
  FakeRig rig(seed);
  TempDir dir("culprit-bench-nights");
  auto ledger = Ledger::open_in(dir.path()).value();
  FakeBuildProvider builds;
  const auto range = first.range();
  first.install(rig.executor());
  const std::vector<RangeCommit> first_half(range.begin(), range.begin() + 30);
  const TrackSettings settings{.runs = 5, .chunk = 32, .anchors = anchors, .remeasure = false};
  auto one =
      track_commits(first_half, builds, rig.new_session_sampler("track:1"), ledger, settings);
  second.install(rig.executor(), speed);
  auto two = track_commits(range, builds, rig.new_session_sampler("track:2"), ledger, settings);
  if (!one || !two) {
    std::fprintf(stderr, "track: %s\n", (one ? two : one).error().message.c_str());
    std::exit(1);
  }
  auto history = load_history(rig.store(), choose_points(ledger.tracked().value(), {}).value(), {});
  if (!history) {
    std::fprintf(stderr, "history: %s\n", history.error().message.c_str());
    std::exit(1);
  }
  ++tally.series;
  bool wrong = false;
  bool found = false;
  for (const auto& change : history->change_points) {
    const auto distance = change.index > at ? change.index - at : at - change.index;
    if (factor != 1 && distance <= 1) {
      found = true;
      tally.covered += change.ci[0] <= factor && factor <= change.ci[1] ? 1 : 0;
    } else {
      wrong = true;
    }
  }
  tally.false_series += wrong ? 1 : 0;
  if (factor != 1) {
    ++tally.steps;
    tally.found += found ? 1 : 0;
  }
}

void nights_table(int trials) {
  std::printf("\ntwo nights of tracking, 60 commits, 2%% noise\n%8s %10s %8s %7s %7s %7s %7s\n",
              "machine", "step", "anchors", "series", "false", "found", "cover");
  std::uint64_t seed = 1000;
  for (const std::size_t anchors : {1, 0})
    for (const double speed : {1.0, 1.08, 1.25})
      for (const auto& [at, factor, where] :
           {std::tuple{std::size_t{30}, 1.0, "none"}, std::tuple{std::size_t{30}, 1.06, "6% @30"},
            std::tuple{std::size_t{45}, 1.06, "6% @45"}}) {
        NightTally tally;
        for (int t = 0; t < 2 * trials; ++t)
          two_nights(tally, speed, at, factor, anchors, ++seed);
        const auto share = [](int n, int of) { return of == 0 ? 0.0 : 100.0 * n / of; };
        std::printf("%7.2fx %10s %8zu %7d %6.0f%% %6.0f%% %6.0f%%\n", speed, where, anchors,
                    tally.series, share(tally.false_series, tally.series),
                    share(tally.found, tally.steps), share(tally.covered, tally.found));
        std::fflush(stdout);
      }
}

} // namespace

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 8;
  const auto every = static_cast<std::size_t>(argc > 2 ? std::atoi(argv[2]) : 2);
  std::printf("%8s %6s %7s %6s %9s %7s %7s %7s %7s %7s %6s %6s %8s\n", "commits", "noise", "series",
              "steps", "located", "false", "sparse", "exact", "wrong", "dismiss", "open", "cover",
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
      std::printf(
          "%8zu %5.1f%% %7d %6d %8.0f%% %6.0f%% %6.0f%% %6.0f%% %7d %7d %6d %5.0f%% %8.2f\n",
          commits, noise * 100, tally.series, tally.steps, share(tally.located, tally.steps),
          share(tally.false_series, tally.series), share(tally.sparse_found, tally.steps),
          share(tally.exact, tally.steps), tally.wrong, tally.dismissed, tally.open,
          share(tally.covered, tally.exact_located), tally.seconds / tally.series);
      std::fflush(stdout);
      total.series += tally.series;
      total.steps += tally.steps;
      total.located += tally.located;
      total.false_series += tally.false_series;
      total.exact += tally.exact;
      total.wrong += tally.wrong;
      total.exact_located += tally.exact_located;
      total.covered += tally.covered;
    }
  }
  std::printf("all: %d series, %d steps: located %.1f%% (target >= 90%%), false %.1f%% of series "
              "(target <= 5%%), exact culprits %.1f%% (target >= 90%%), %d wrong; intervals hold "
              "the planted step %.1f%% of the time (target >= 90%%)\n",
              total.series, total.steps, 100.0 * total.located / total.steps,
              100.0 * total.false_series / total.series, 100.0 * total.exact / total.steps,
              total.wrong, 100.0 * total.covered / std::max(total.exact_located, 1));
  nights_table(trials);
  return 0;
}
