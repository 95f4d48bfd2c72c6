#pragma once
// Synthetic runs for the tests: a level, run-to-run noise and sample-to-sample noise of a chosen
// shape, all drawn from the library's seeded generator so that every test is reproducible.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "stats/rng.hpp"
#include "stats/types.hpp"

namespace culprit::stats::testing {

enum class Noise { normal, lognormal, bimodal, heavy_tailed };

inline std::string_view to_string(Noise noise) {
  switch (noise) {
  case Noise::normal:
    return "normal";
  case Noise::lognormal:
    return "lognormal";
  case Noise::bimodal:
    return "bimodal";
  case Noise::heavy_tailed:
    return "heavy-tailed";
  }
  return "normal";
}

// A positive multiplicative factor around 1 whose spread is about `scale`:
//   normal        1 + scale Z
//   lognormal     exp(3 scale Z), visibly skewed
//   bimodal       1 + scale Z / 2, and in 30% of cases 3 scale higher (a slow mode, e.g. another
//                 clock frequency or a cold cache)
//   heavy-tailed  1 + scale (P - 1) with P Pareto of index 1.5: infinite variance, occasional
//                 samples many times slower (interference).
inline double noise_factor(Noise noise, double scale, Rng& rng) {
  switch (noise) {
  case Noise::normal:
    return 1.0 + scale * rng.normal();
  case Noise::lognormal:
    return std::exp(3.0 * scale * rng.normal());
  case Noise::bimodal:
    return 1.0 + scale * rng.normal() / 2.0 + (rng.uniform() < 0.3 ? 3.0 * scale : 0.0);
  case Noise::heavy_tailed:
    return 1.0 + scale * (std::pow(rng.uniform_open(), -1.0 / 1.5) - 1.0);
  }
  return 1.0;
}

struct RunShape {
  std::size_t runs = 10;
  std::size_t samples = 1; // per run
  Noise noise = Noise::normal;
  double between = 0.02; // run-to-run scale
  double within = 0.0;   // sample-to-sample scale inside a run (normal)
};

// Every sample is level * run factor * sample factor: a multiple of the same distribution, so
// the true ratio of any statistic of two such sets is the ratio of their levels.
inline Runs simulate_runs(const RunShape& shape, double level, Rng& rng) {
  Runs runs(shape.runs);
  for (auto& run : runs) {
    const double run_level = level * noise_factor(shape.noise, shape.between, rng);
    for (std::size_t s = 0; s < shape.samples; ++s)
      run.push_back(run_level * (1.0 + shape.within * rng.normal()));
  }
  return runs;
}

// A shared machine: the whole guest is in a fast state or one 1.5-2x slower, switching every few
// samples. The state is a Markov chain over consecutive samples of a run, slow `slow_share` of
// the time in stretches of `stretch` samples on average, each stretch with its own slowdown drawn
// uniformly from [slow_min, slow_max]; fast samples vary by a lognormal `jitter`. One-sided: no
// sample is faster than the fast state allows.
struct SharedMachine {
  double slow_share = 0.5;
  double stretch = 4.0;
  double jitter = 0.01;
  double slow_min = 1.5;
  double slow_max = 2.0;
};

// The samples of one run at `level`.
inline std::vector<double> simulate_shared_run(const SharedMachine& machine, std::size_t samples,
                                               double level, Rng& rng) {
  const double leave_slow = 1.0 / machine.stretch;
  const double leave_fast =
      machine.slow_share >= 1.0
          ? 1.0
          : std::min(1.0, leave_slow * machine.slow_share / (1.0 - machine.slow_share));
  bool slow = rng.uniform() < machine.slow_share;
  double slowdown = machine.slow_min + ((machine.slow_max - machine.slow_min) * rng.uniform());
  std::vector<double> run;
  run.reserve(samples);
  for (std::size_t s = 0; s < samples; ++s) {
    run.push_back(level * std::exp(machine.jitter * rng.normal()) * (slow ? slowdown : 1.0));
    if (rng.uniform() < (slow ? leave_slow : leave_fast)) {
      slow = !slow;
      if (slow)
        slowdown = machine.slow_min + ((machine.slow_max - machine.slow_min) * rng.uniform());
    }
  }
  return run;
}

inline Runs simulate_shared(const SharedMachine& machine, std::size_t runs, std::size_t samples,
                            double level, Rng& rng) {
  Runs out;
  out.reserve(runs);
  for (std::size_t r = 0; r < runs; ++r)
    out.push_back(simulate_shared_run(machine, samples, level, rng));
  return out;
}

} // namespace culprit::stats::testing
