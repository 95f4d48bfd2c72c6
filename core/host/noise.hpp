#pragma once
// Noise warnings: setups that make timings drift or scatter, each with what to do about it.
// They warn; they never stop a measurement.

#include <string>
#include <vector>

#include "core/host/fingerprint.hpp"

namespace culprit::host {

struct NoiseWarning {
  std::string id;      // stable: governor, load, turbo, vm, gpu_persistence, gpu_clocks,
                       // gpu_throttling, gpu_mig, gpu_unreadable
  std::string message; // one line: what is noisy, why it matters, what to do
  std::string brief;   // a few words: what is noisy ("kvm virtual machine")
};

// One line for the start of a command and the head of a report, from the briefs: "noisy host
// (load average 1.54 on 2 cores; kvm virtual machine): small differences may not resolve;
// 'culprit env' says what to do". Empty when there is nothing to say.
std::string noise_summary(const std::vector<NoiseWarning>& warnings);

// The load average above which other work is taken to compete with the benchmark: this many
// runnable processes per logical core, and at least 1.
inline constexpr double k_busy_load_per_core = 0.5;

// Whether a GPU's clocks look locked. nvidia-smi's query cannot tell whether `nvidia-smi
// --lock-gpu-clocks` is in force, so this is a heuristic: the applications-clocks reason is
// active, or the applications clock was raised above its default (`nvidia-smi -ac`).
bool gpu_clocks_look_locked(const GpuFacts& gpu);

std::vector<NoiseWarning> noise_warnings(const HostFingerprint& host);

} // namespace culprit::host
