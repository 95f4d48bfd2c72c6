#pragma once
// `culprit env --noise`: the machine's interference profile, measured before anyone spends an
// hour measuring a benchmark on it.
//
// A fixed calibration loop (a dependent chain of floating-point operations over a 16 KiB buffer
// that stays in L1, about 100 us an iteration, the count calibrated once) runs back to back for
// the first half of the time on one CPU, timing each iteration with the steady clock. Its
// iterations, cut into runs of about 10 ms, are diagnosed like a case's samples
// (stats/interference.hpp): speed states, how long a slow stretch lasts, a slow tail, drift.
// For the second half the loop runs on two CPUs at once, as a duet would: how often both see the
// same state, and how far apart the ratio of two 10 ms runs spreads when they run side by side
// against one after the other. Pinned to the CPUs given (the recipe's `cpus`) where there are.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/util/error.hpp"
#include "stats/interference.hpp"

namespace culprit::host {

struct NoiseProbeOptions {
  std::chrono::duration<double> seconds{5.0};
  std::vector<int> cpus; // the first is used alone; the first two for the duet half
};

struct DuetProfile {
  std::vector<int> cpus;     // the two CPUs
  double same_state = 0.0;   // share of the time both were in the same speed state
  double spread_apart = 0.0; // q90/q10 - 1 of the ratio of two runs' minima, one after the other
  double spread_duet = 0.0;  // the same, of two runs side by side
};

struct NoiseProfile {
  double seconds = 0.0;
  double iteration_seconds = 0.0; // the fastest iteration of the loop
  std::size_t iterations = 0;
  std::optional<int> cpu; // the CPU of the first half, when pinned
  stats::Interference interference;
  double switch_seconds = 0.0; // mean length of a slow stretch; 0 without speed states
  std::optional<DuetProfile> duet;
  std::vector<std::string> advice; // one line each
};

// What to do about the profile, one line each: which statistic decides, how long a run should
// be, whether duets help or hurt (only where the difference is one a verdict would feel), drift.
std::vector<std::string> noise_advice(const NoiseProfile& profile);

// Errors: fewer than 0.5 s asked for or more than an hour, a CPU that does not exist.
Result<NoiseProfile> probe_noise(const NoiseProbeOptions& options);

} // namespace culprit::host
