// The host CPU's peaks for the roofline model: measured once, cached in a small JSON file.

#include "core/roofline.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <nlohmann/json_fwd.hpp>
#include <unistd.h>

#include "core/error.hpp"

namespace culprit {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::string_view k_cache_schema = "culprit.cpu-peaks/1";

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
  return std::max(1U, std::thread::hardware_concurrency());
}

// Runs body(thread_index) on `threads` threads and returns the wall time of the whole.
double run_parallel(unsigned threads, const std::function<void(unsigned)>& body) {
  const auto start = Clock::now();
  {
    std::vector<std::jthread> workers;
    workers.reserve(threads);
    for (unsigned t = 0; t < threads; ++t)
      workers.emplace_back(body, t);
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

double measure_flops(unsigned threads, std::chrono::duration<double> budget) {
  const FmaKernel kernel = widest_fma_kernel();
  const double flops_per_iteration = 2.0 * k_chains * kernel.lanes;
  // Calibrate on one thread, then size the run to take the budget.
  std::int64_t iterations = 1 << 14;
  double seconds = 0;
  while (seconds < budget.count() / 20) {
    iterations *= 4;
    const auto start = Clock::now();
    const volatile float sink = kernel.run(iterations, 1.0F);
    (void)sink;
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
  }
  iterations =
      std::max<std::int64_t>(iterations, static_cast<std::int64_t>(static_cast<double>(iterations) *
                                                                   budget.count() / seconds));
  std::vector<float> sinks(threads);
  const double wall = run_parallel(
      threads, [&](unsigned t) { sinks[t] = kernel.run(iterations, static_cast<float>(t)); });
  return flops_per_iteration * static_cast<double>(iterations) * threads / wall;
}

std::size_t copy_array_bytes(const CpuPeakOptions& options) {
  if (options.copy_bytes != 0)
    return options.copy_bytes;
  const long cache = sysconf(_SC_LEVEL3_CACHE_SIZE);
  const std::size_t twice_cache = cache > 0 ? 2 * static_cast<std::size_t>(cache) : 0;
  return std::clamp<std::size_t>(twice_cache, std::size_t{64} << 20U, std::size_t{256} << 20U);
}

// STREAM's copy (McCalpin, "Memory Bandwidth and Machine Balance in Current High Performance
// Computers", IEEE TCCA Newsletter, 1995): bytes read plus bytes written, best repetition.
double measure_copy(unsigned threads, std::size_t bytes, std::chrono::duration<double> budget) {
  std::vector<char> source(bytes, 1);
  std::vector<char> target(bytes, 0);
  const std::size_t chunk = (bytes + threads - 1) / threads;
  double best = std::numeric_limits<double>::infinity();
  const auto start = Clock::now();
  for (int repetition = 0; repetition < 20; ++repetition) {
    best = std::min(best, run_parallel(threads, [&](unsigned t) {
                      const std::size_t begin = std::min(bytes, t * chunk);
                      const std::size_t end = std::min(bytes, begin + chunk);
                      std::memcpy(target.data() + begin, source.data() + begin, end - begin);
                    }));
    if (repetition >= 2 && Clock::now() - start > budget)
      break;
  }
  return 2.0 * static_cast<double>(bytes) / best;
}

std::optional<Peaks> read_cache(const std::filesystem::path& file, const std::string& cpu,
                                unsigned threads) {
  std::ifstream in(file);
  if (!in)
    return std::nullopt;
  const auto json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || json.value("schema", "") != k_cache_schema ||
      json.value("cpu", "") != cpu || json.value("threads", 0U) != threads)
    return std::nullopt;
  const double flops = json.value("flops_per_second", 0.0);
  const double bytes = json.value("bytes_per_second", 0.0);
  if (!(flops > 0) || !(bytes > 0))
    return std::nullopt;
  return Peaks{.device = cpu,
               .flops_per_second = flops,
               .tensor_flops_per_second = std::nullopt,
               .bytes_per_second = bytes,
               .source = fmt::format("measured on this host ({} threads), cached in {}", threads,
                                     file.string())};
}

Status write_cache(const std::filesystem::path& file, const Peaks& peaks, unsigned threads) {
  const nlohmann::json json = {{"schema", k_cache_schema},
                               {"cpu", peaks.device},
                               {"threads", threads},
                               {"flops_per_second", peaks.flops_per_second},
                               {"bytes_per_second", peaks.bytes_per_second}};
  std::error_code error;
  if (file.has_parent_path())
    std::filesystem::create_directories(file.parent_path(), error);
  const std::filesystem::path temporary = file.string() + fmt::format(".tmp{}", getpid());
  {
    std::ofstream out(temporary);
    out << json.dump(2) << "\n";
    if (!out.flush())
      return infra_error("cannot write the CPU peak cache {}: check that its directory is "
                         "writable",
                         temporary.string());
  }
  std::filesystem::rename(temporary, file, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    return infra_error("cannot write the CPU peak cache {}: {}", file.string(), error.message());
  }
  return {};
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
    peaks.flops_per_second = measure_flops(threads, half);
    peaks.bytes_per_second = measure_copy(threads, copy_array_bytes(options), half);
  } catch (const std::exception& error) { // bad_alloc, or threads that cannot start
    return infra_error("cannot measure the CPU's peaks: {}", error.what());
  }
  peaks.source = fmt::format("measured on this host ({} threads)", threads);
  return peaks;
}

Result<Peaks> cpu_peaks(const std::filesystem::path& cache_file, const CpuPeakOptions& options) {
  const unsigned threads = thread_count(options);
  if (auto cached = read_cache(cache_file, cpu_model(), threads))
    return *cached;
  CULPRIT_TRY_ASSIGN(Peaks peaks, measure_cpu_peaks(options));
  CULPRIT_TRY(write_cache(cache_file, peaks, threads));
  return peaks;
}

} // namespace culprit
