// The host CPU's peaks for the roofline model: an FMA loop and a streaming copy, best of trials.

#include "core/roofline/roofline.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "core/util/error.hpp"

namespace culprit::roofline {

namespace {

using Clock = std::chrono::steady_clock;

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    const std::size_t colon = line.find(':');
    if (line.starts_with("model name") && colon != std::string::npos)
      return line.substr(std::min(line.size(), colon + 2));
  }
  return "unknown CPU";
}

unsigned thread_count(const CpuPeakOptions& options) {
  if (options.threads != 0)
    return options.threads;
  if (!options.cpus.empty())
    return static_cast<unsigned>(options.cpus.size());
  return std::max(1U, std::thread::hardware_concurrency());
}

// Pins the calling thread to one CPU; false when the CPU cannot be used (not in the process's
// set, or out of range).
bool pin_to(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE)
    return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

// Runs body(thread_index) on `threads` threads, thread t pinned to cpus[t % size] when cpus are
// given, and returns the wall time of the whole.
double run_parallel(unsigned threads, const std::vector<int>& cpus,
                    const std::function<void(unsigned)>& body) {
  const auto start = Clock::now();
  {
    std::vector<std::jthread> workers;
    workers.reserve(threads);
    for (unsigned t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        if (!cpus.empty())
          (void)pin_to(cpus[t % cpus.size()]);
        body(t);
      });
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Independent FMA chains, enough of them to cover the FMA latency on two ports. Kept in
// registers: the loop over chains is unrolled so each accumulator is a named value.
template <class Vector, int Chains>
[[gnu::always_inline]] inline float fma_chains(std::int64_t iterations, float seed) {
  Vector accumulators[Chains];
  for (int i = 0; i < Chains; ++i)
    accumulators[i] = Vector{} + (seed + static_cast<float>(i));
  const Vector multiplier = Vector{} + 0.999999F;
  const Vector addend = Vector{} + 1e-7F;
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < Chains; ++i)
      accumulators[i] = accumulators[i] * multiplier + addend;
  }
  Vector sum{};
  for (int i = 0; i < Chains; ++i)
    sum += accumulators[i];
  float total = 0;
  for (std::size_t lane = 0; lane < sizeof(Vector) / sizeof(float); ++lane)
    total += sum[lane];
  return total;
}

constexpr int k_chains = 12;
using Vector4 = float __attribute__((vector_size(16)));
float fma_128(std::int64_t iterations, float seed) {
  return fma_chains<Vector4, k_chains>(iterations, seed);
}
#if defined(__x86_64__)
using Vector8 = float __attribute__((vector_size(32)));
using Vector16 = float __attribute__((vector_size(64)));
__attribute__((target("avx2,fma"))) float fma_256(std::int64_t iterations, float seed) {
  return fma_chains<Vector8, k_chains>(iterations, seed);
}
__attribute__((target("avx512f,fma"))) float fma_512(std::int64_t iterations, float seed) {
  return fma_chains<Vector16, k_chains>(iterations, seed);
}
#endif

struct FmaKernel {
  float (*run)(std::int64_t, float);
  int lanes;
};

// The widest FMA the CPU runs, so that the peak is the hardware's, not the build flags'.
FmaKernel widest_fma_kernel() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f"))
    return {.run = fma_512, .lanes = 16};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return {.run = fma_256, .lanes = 8};
#endif
  return {.run = fma_128, .lanes = 4};
}

constexpr int k_trials = 10;

double measure_flops(unsigned threads, const std::vector<int>& cpus,
                     std::chrono::duration<double> budget) {
  const FmaKernel kernel = widest_fma_kernel();
  const double flops_per_iteration = 2.0 * k_chains * kernel.lanes;
  // Calibrate on one thread, then size each trial to take its share of the budget.
  const double trial = budget.count() / k_trials;
  std::int64_t iterations = 1 << 12;
  double seconds = 0;
  while (seconds < trial / 8) {
    iterations *= 4;
    const auto start = Clock::now();
    const volatile float sink = kernel.run(iterations, 1.0F);
    (void)sink;
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
  }
  iterations = std::max<std::int64_t>(
      iterations, static_cast<std::int64_t>(static_cast<double>(iterations) * trial / seconds));
  std::vector<float> sinks(threads);
  double best = 0;
  for (int t = 0; t < k_trials; ++t) {
    const double wall = run_parallel(threads, cpus, [&](unsigned thread) {
      sinks[thread] = kernel.run(iterations, static_cast<float>(thread));
    });
    best = std::max(best, flops_per_iteration * static_cast<double>(iterations) * threads / wall);
  }
  return best;
}

std::size_t copy_array_bytes(const CpuPeakOptions& options) {
  if (options.copy_bytes != 0)
    return options.copy_bytes;
  const long cache = sysconf(_SC_LEVEL3_CACHE_SIZE);
  const std::size_t twice_cache = cache > 0 ? 2 * static_cast<std::size_t>(cache) : 0;
  return std::clamp<std::size_t>(twice_cache, std::size_t{32} << 20U, std::size_t{128} << 20U);
}

// STREAM's copy (McCalpin, "Memory Bandwidth and Machine Balance in Current High Performance
// Computers", IEEE TCCA Newsletter, 1995): bytes read plus bytes written, best repetition.
double measure_copy(unsigned threads, const std::vector<int>& cpus, std::size_t bytes,
                    std::chrono::duration<double> budget) {
  std::vector<char> source(bytes, 1);
  std::vector<char> target(bytes, 0);
  const std::size_t chunk = (bytes + threads - 1) / threads;
  double best = std::numeric_limits<double>::infinity();
  const auto start = Clock::now();
  for (int repetition = 0; repetition < 20; ++repetition) {
    best = std::min(best, run_parallel(threads, cpus, [&](unsigned t) {
                      const std::size_t begin = std::min(bytes, t * chunk);
                      const std::size_t end = std::min(bytes, begin + chunk);
                      std::memcpy(target.data() + begin, source.data() + begin, end - begin);
                    }));
    if (repetition >= 1 && Clock::now() - start > budget)
      break;
  }
  return 2.0 * static_cast<double>(bytes) / best;
}

} // namespace

Result<Peaks> measure_cpu_peaks(const CpuPeakOptions& options) {
  if (options.budget.count() <= 0)
    return usage_error("the CPU peak measurement needs a positive time budget");
  const unsigned threads = thread_count(options);
  const std::chrono::duration<double> half = options.budget / 2;
  Peaks peaks;
  peaks.device = cpu_model();
  try {
    peaks.flops_per_second = measure_flops(threads, options.cpus, half);
    peaks.bytes_per_second = measure_copy(threads, options.cpus, copy_array_bytes(options), half);
  } catch (const std::exception& error) { // bad_alloc, or threads that cannot start
    return infra_error("cannot measure the CPU's peaks: {}", error.what());
  }
  const auto kernel = widest_fma_kernel();
  peaks.source = fmt::format(
      "measured on this host: {}-lane FP32 FMA and a streaming copy on {}{}, best of {} trials",
      kernel.lanes, threads == 1 ? std::string("1 thread") : fmt::format("{} threads", threads),
      options.cpus.empty() ? std::string()
                           : fmt::format(" pinned to CPUs {}", fmt::join(options.cpus, ",")),
      k_trials);
  return peaks;
}

} // namespace culprit::roofline
