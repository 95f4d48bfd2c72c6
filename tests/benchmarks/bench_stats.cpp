// Figures for stats/: the time of a BCa interval for the ratio of medians of two samples of 1000
// with 10,000 resamples (target: at most 50 ms on a 2-core machine), next to scipy.stats.bootstrap
// on the same data in the same run, and the times of what the drivers call most.

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "stats/bootstrap.hpp"
#include "stats/decision.hpp"
#include "stats/parallel.hpp"
#include "stats/rng.hpp"
#include "stats/sequential.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace culprit::stats;

constexpr int k_repeats = 7;

// The median of several timings of body, in milliseconds.
double time_ms(const std::function<void()>& body) {
  std::array<double, k_repeats> times{};
  for (double& time : times) {
    const auto start = std::chrono::steady_clock::now();
    body();
    time =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  std::ranges::sort(times);
  return times[k_repeats / 2];
}

std::vector<double> lognormal_sample(std::uint64_t seed, std::size_t count, double level) {
  Rng rng(seed, 0);
  std::vector<double> values(count);
  for (double& value : values)
    value = level * std::exp(0.25 * rng.normal());
  return values;
}

Runs lognormal_runs(std::uint64_t seed, std::size_t runs, std::size_t samples, double level) {
  Rng rng(seed, 0);
  Runs result(runs);
  for (auto& run : result) {
    const double run_level = level * std::exp(0.02 * rng.normal());
    for (std::size_t s = 0; s < samples; ++s)
      run.push_back(run_level * std::exp(0.01 * rng.normal()));
  }
  return result;
}

struct ScipyFigure {
  double milliseconds = 0.0;
  double lower = 0.0;
  double upper = 0.0;
  bool ok = false;
};

constexpr const char* k_scipy_script = R"(
import sys, time
import numpy as np
from scipy import stats
data = np.loadtxt(sys.argv[1])
base, head = data[0], data[1]
ratio = lambda x, y, axis: np.median(y, axis=axis) / np.median(x, axis=axis)
stats.bootstrap((base, head), ratio, n_resamples=100, method="BCa", random_state=1)
start = time.perf_counter()
result = stats.bootstrap((base, head), ratio, n_resamples=10000, method="BCa", random_state=1)
elapsed = time.perf_counter() - start
print(elapsed * 1000, result.confidence_interval.low, result.confidence_interval.high)
)";

ScipyFigure time_scipy(const std::vector<double>& base, const std::vector<double>& head) {
  const culprit::testing::TempDir dir("culprit-bench-stats");
  {
    std::ofstream data(dir / "samples.txt");
    data.precision(17);
    for (const auto* sample : {&base, &head}) {
      for (const double value : *sample)
        data << value << ' ';
      data << '\n';
    }
    std::ofstream(dir / "bench.py") << k_scipy_script;
  }
  const std::string command = "/usr/bin/python3 " + (dir / "bench.py").string() + " " +
                              (dir / "samples.txt").string() + " 2>/dev/null";
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  ScipyFigure figure;
  if (pipe)
    figure.ok = std::fscanf(pipe.get(), "%lf %lf %lf", &figure.milliseconds, &figure.lower,
                            &figure.upper) == 3;
  return figure;
}

} // namespace

int main() {
  const std::vector<double> base = lognormal_sample(1, 1000, 1e-4);
  const std::vector<double> head = lognormal_sample(2, 1000, 1.03e-4);
  BootstrapOptions options;
  options.resamples = 10'000;
  options.method = IntervalMethod::bca;

  std::printf("BCa interval of the ratio of medians, 2 x 1000 samples, 10000 resamples\n");
  Result<Interval> interval = ratio_interval(base, head, Statistic::median, options);
  const unsigned threads = resolve_threads(0);
  const double ours =
      time_ms([&] { interval = ratio_interval(base, head, Statistic::median, options); });
  std::printf("  culprit, %u threads:          %9.2f ms  [%.4f, %.4f]\n", threads, ours,
              interval->lower, interval->upper);
  BootstrapOptions single = options;
  single.threads = 1;
  const double ours_single =
      time_ms([&] { interval = ratio_interval(base, head, Statistic::median, single); });
  std::printf("  culprit, 1 thread:           %9.2f ms\n", ours_single);

  const ScipyFigure scipy = time_scipy(base, head);
  if (scipy.ok) {
    std::printf("  scipy.stats.bootstrap:       %9.2f ms  [%.4f, %.4f]\n", scipy.milliseconds,
                scipy.lower, scipy.upper);
    std::printf("  scipy / culprit:             %9.0fx\n", scipy.milliseconds / ours);
  } else {
    std::printf("  scipy.stats.bootstrap:       not measured (/usr/bin/python3 with scipy "
                "missing)\n");
  }
  std::printf("  target <= 50 ms:             %s\n", ours <= 50.0 ? "met" : "MISSED");

  // What a driver calls at every look: 40 runs of 10 samples a side, two-level bootstrap.
  const Runs base_runs = lognormal_runs(3, 40, 10, 1.0);
  const Runs head_runs = lognormal_runs(4, 40, 10, 1.02);
  const double comparison = time_ms([&] { (void)compare(base_runs, head_runs); });
  std::printf("compare(), 40 runs x 10 samples a side, 10000 resamples:     %.2f ms\n", comparison);
  const double planning = time_ms([&] { (void)make_sequential_plan(5, 40, 5, 0.95); });
  std::printf("make_sequential_plan(5, 40, 5): %.2f ms\n", planning);
  return 0;
}
