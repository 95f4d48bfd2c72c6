#include "core/host/noise_probe.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/host/cpus.hpp"
#include "core/recipe/recipe.hpp"
#include "stats/run_statistic.hpp"
#include "stats/summary.hpp"

namespace culprit::host {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double k_iteration_target = 100e-6;
constexpr double k_run_seconds = 10e-3;
constexpr std::size_t k_buffer_floats = 4096; // 16 KiB

struct Timing {
  double start = 0.0; // seconds since the probe began
  double seconds = 0.0;
};

// The calibration loop: a dependent chain through a buffer in L1; its result is kept so that the
// compiler cannot drop the work.
float calibration_loop(const std::vector<float>& buffer, int passes) {
  float acc = 1.0F;
  for (int pass = 0; pass < passes; ++pass)
    for (const float value : buffer)
      acc = (acc * 0.999F) + value;
  return acc;
}

bool pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

std::vector<Timing> time_loop(const std::vector<float>& buffer, int passes, Clock::time_point begin,
                              double until, std::atomic<float>& sink) {
  std::vector<Timing> timings;
  for (;;) {
    const auto before = Clock::now();
    sink.store(calibration_loop(buffer, passes), std::memory_order_relaxed);
    const auto after = Clock::now();
    const double start = std::chrono::duration<double>(before - begin).count();
    timings.push_back({start, std::chrono::duration<double>(after - before).count()});
    if (start >= until)
      return timings;
  }
}

// Consecutive iterations cut into runs of about k_run_seconds.
stats::Runs as_runs(const std::vector<Timing>& timings, double fastest) {
  const auto per_run =
      std::max<std::size_t>(5, static_cast<std::size_t>(k_run_seconds / std::max(fastest, 1e-9)));
  stats::Runs runs;
  for (std::size_t i = 0; i + per_run <= timings.size(); i += per_run) {
    std::vector<double> run;
    for (std::size_t k = i; k < i + per_run; ++k)
      run.push_back(timings[k].seconds);
    runs.push_back(std::move(run));
  }
  return runs;
}

double spread(std::vector<double> values) {
  if (values.size() < 2)
    return 0.0;
  std::ranges::sort(values);
  return stats::quantile_of_sorted(values, 0.9) / stats::quantile_of_sorted(values, 0.1) - 1.0;
}

// Whether the loop is in the slow state at time t, from one CPU's iterations.
bool slow_at(const std::vector<Timing>& timings, double t, double threshold) {
  const auto it = std::ranges::upper_bound(timings, t, {}, &Timing::start);
  if (it == timings.begin())
    return timings.front().seconds > threshold;
  return std::prev(it)->seconds > threshold;
}

DuetProfile profile_duet(const std::array<std::vector<Timing>, 2>& sides,
                         const std::vector<int>& cpus, double threshold, double fastest) {
  DuetProfile duet;
  duet.cpus = cpus;
  std::size_t same = 0;
  for (const auto& timing : sides[0])
    same += (timing.seconds > threshold) == slow_at(sides[1], timing.start, threshold) ? 1 : 0;
  duet.same_state =
      sides[0].empty() ? 0.0 : static_cast<double>(same) / static_cast<double>(sides[0].size());
  const auto a = as_runs(sides[0], fastest);
  const auto b = as_runs(sides[1], fastest);
  const std::size_t n = std::min(a.size(), b.size());
  std::vector<double> side_by_side;
  std::vector<double> apart;
  for (std::size_t i = 0; i < n; ++i) {
    const double mine = stats::evaluate(stats::RunStatistic::minimum(), a[i]);
    side_by_side.push_back(mine / stats::evaluate(stats::RunStatistic::minimum(), b[i]));
    // One after the other: the next run of the same CPU, which saw other moments.
    if (i + 1 < a.size())
      apart.push_back(stats::evaluate(stats::RunStatistic::minimum(), a[i + 1]) / mine);
  }
  duet.spread_duet = spread(side_by_side);
  duet.spread_apart = spread(apart);
  return duet;
}

} // namespace

std::vector<std::string> noise_advice(const NoiseProfile& profile) {
  std::vector<std::string> advice;
  const auto& i = profile.interference;
  if (!stats::fast_side_decides(i)) {
    advice.emplace_back("quiet enough: each run's median decides (statistic = auto picks it); "
                        "nothing to change");
  } else {
    advice.emplace_back("one-sided interference: culprit judges cases by each run's minimum "
                        "(statistic = auto does) and pairs interleaved runs");
    if (profile.switch_seconds > 0)
      advice.push_back(fmt::format(
          "slow stretches last about {:.2g} ms: give each run of the benchmark enough samples "
          "to span several of them, so that every run catches the fast state",
          profile.switch_seconds * 1e3));
  }
  if (const auto& d = profile.duet) {
    // Either way, only a difference that a verdict would feel: twice (or half again) as wide,
    // and by more than a quarter of the default threshold.
    const double gap = std::abs(d->spread_duet - d->spread_apart);
    const bool felt = gap > recipe::DecideOptions{}.threshold / 4;
    if (felt && d->spread_duet < d->spread_apart * 0.5 && stats::fast_side_decides(i))
      advice.push_back(fmt::format("duets help here: two runs side by side on CPUs {} and {} "
                                   "differ by {:.2g}% where runs one after the other differ by "
                                   "{:.2g}% (duet = auto uses them)",
                                   d->cpus[0], d->cpus[1], d->spread_duet * 100,
                                   d->spread_apart * 100));
    else if (felt && d->spread_duet > d->spread_apart * 1.5)
      advice.push_back(fmt::format("runs side by side on CPUs {} and {} disturb each other "
                                   "({:.2g}% apart, against {:.2g}% one after the other): "
                                   "prefer duet = false",
                                   d->cpus[0], d->cpus[1], d->spread_duet * 100,
                                   d->spread_apart * 100));
  }
  if (i.drift)
    advice.push_back(fmt::format("the machine drifted {:+.1f}% in {:.0f} s: compare only runs "
                                 "made side by side (culprit pairs them), never across hours",
                                 i.drift->change * 100, profile.seconds / 2));
  return advice;
}

Result<NoiseProfile> probe_noise(const NoiseProbeOptions& options) {
  const double seconds = options.seconds.count();
  if (!(seconds >= 0.5) || seconds > 3600)
    return usage_error("--noise {} s: give between 0.5 and 3600 seconds (default 5)", seconds);
  std::vector<int> cpus = options.cpus;
  if (cpus.empty()) {
    const auto allowed = allowed_cpus();
    if (auto pair = duet_cpus({}, allowed))
      cpus = {(*pair)[0].front(), (*pair)[1].front()};
    else if (!allowed.empty())
      cpus = {allowed.front()};
  }
  std::vector<float> buffer(k_buffer_floats);
  // A fixed seed: the calibration workload is the same data on every machine and every run.
  std::mt19937 random(1); // NOLINT(bugprone-random-generator-seed)
  for (auto& value : buffer)
    value = std::uniform_real_distribution<float>(-1e-3F, 1e-3F)(random);
  std::atomic<float> sink{0.0F};

  NoiseProfile profile;
  profile.seconds = seconds;
  std::optional<std::string> pin_error;
  // Alone: calibrate the passes for about k_iteration_target an iteration, then time.
  std::vector<Timing> alone;
  int passes = 1;
  {
    std::jthread worker([&] {
      if (!cpus.empty() && !pin_to(cpus.front())) {
        pin_error =
            fmt::format("cannot run on CPU {}; give CPUs this process may use", cpus.front());
        return;
      }
      for (int tries = 0; tries < 20; ++tries) {
        double best = 1e9;
        for (int k = 0; k < 20; ++k) {
          const auto before = Clock::now();
          sink.store(calibration_loop(buffer, passes), std::memory_order_relaxed);
          best = std::min(best, std::chrono::duration<double>(Clock::now() - before).count());
        }
        if (best >= k_iteration_target * 0.8)
          break;
        passes = std::max(passes + 1, static_cast<int>(passes * k_iteration_target / best));
      }
      alone = time_loop(buffer, passes, Clock::now(), seconds / 2, sink);
    });
  }
  if (pin_error)
    return usage_error("{}", *pin_error);
  if (!cpus.empty())
    profile.cpu = cpus.front();
  profile.iterations = alone.size();
  double fastest = 1e9;
  for (const auto& timing : alone)
    fastest = std::min(fastest, timing.seconds);
  profile.iteration_seconds = fastest;
  auto diagnosis =
      stats::diagnose_interference(as_runs(alone, fastest), stats::Direction::lower_is_better);
  if (!diagnosis)
    return infra_error("the calibration loop ran too few times to say anything: {}",
                       diagnosis.error().message);
  profile.interference = *diagnosis;
  double threshold = fastest * 1.25;
  if (const auto& states = profile.interference.states) {
    threshold = states->threshold;
    // Mean stretch in iterations, as time: a slow iteration lasts about the slow state's value.
    profile.switch_seconds = states->slow_stretch * states->slow;
  }

  if (cpus.size() >= 2) {
    std::array<std::vector<Timing>, 2> sides;
    const auto begin = Clock::now();
    {
      std::array<std::jthread, 2> workers;
      for (std::size_t side = 0; side < 2; ++side)
        workers[side] = std::jthread([&, side] {
          if (pin_to(cpus[side]))
            sides[side] = time_loop(buffer, passes, begin, seconds / 2, sink);
        });
    }
    if (!sides[0].empty() && !sides[1].empty())
      profile.duet = profile_duet(sides, {cpus[0], cpus[1]}, threshold, fastest);
  }
  profile.advice = noise_advice(profile);
  return profile;
}

} // namespace culprit::host
