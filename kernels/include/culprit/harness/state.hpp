#pragma once
// The state of one case while it is measured: its axis values, the work one sample does, and the
// samples taken. A benchmark function reads its axes, prepares its data, says how many FLOPs and
// bytes one call moves, and hands the call to exec(), which warms up and times it.

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "culprit/harness/benchmark.hpp"
#include "culprit/harness/host.hpp"

// Valgrind's client requests, where its header is installed (Debian: valgrind): under Callgrind
// (culprit --instrument valgrind) each case is counted alone. Without the header the harness
// builds as before and a run under Valgrind is counted as a whole.
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define CULPRIT_HARNESS_CALLGRIND 1
#endif
#endif

namespace culprit::harness {

enum class Direction { lower, higher };

inline const char* to_string(Direction direction) {
  return direction == Direction::lower ? "lower" : "higher";
}

// Whether a GPU case takes batch samples (--batch): when its single launch is short, always
// (with RunSettings::batch_launches launches each), or never. The CPU side takes none.
enum class BatchMode { automatic, fixed, off };

// How every case of a run is measured (from the command line).
struct RunSettings {
  int samples = 10;
  int warmup = 1;
  bool cold = false;
  std::uint64_t seed = 1;
  BatchMode batch = BatchMode::automatic;
  int batch_launches = 0; // with BatchMode::fixed
};

struct Sample {
  std::string metric;
  std::string unit;
  Direction direction = Direction::lower;
  double value = 0;
  int index = 0; // position among the samples of this metric in this run
  bool cold = false;
  int batch = 0; // a batch sample: the launches it timed together (value is per launch); else 0
};

// What the GPU timing loop learned about the SM clock while it took a case's samples. A sample
// taken while the clock ran below `threshold` x `default_mhz` is dropped (a throttled GPU says
// nothing about the kernel) and counted in `throttled`.
struct ClockCheck {
  bool checked = false;   // false: the clock could not be read (no NVML); every sample was kept
  double default_mhz = 0; // the default SM clock (cudaDevAttrClockRate)
  double threshold = 0.75;
  int taken = 0;     // timed samples, ordinary and batch, kept or not
  int throttled = 0; // of them, dropped
};

// Keeps the compiler from proving a result unused and deleting the work that made it.
template <class T> inline void do_not_optimize(const T& value) {
#if defined(__GNUC__) || defined(__clang__)
  asm volatile("" : : "r,m"(value) : "memory");
#else
  static volatile const T* sink;
  sink = &value;
#endif
}

// FNV-1a over the case name, mixed with the run's seed: every case gets its own random data,
// and the same data in every run with the same --seed.
inline std::uint64_t case_seed(std::uint64_t seed, const std::string& case_name) {
  std::uint64_t hash = 14695981039346656037ULL ^ seed;
  for (const char c : case_name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

// Wall-clock time on the host (std::chrono::steady_clock) between start() and stop().
class CpuTimer {
public:
  void start() { m_start = std::chrono::steady_clock::now(); }
  void stop() { m_stop = std::chrono::steady_clock::now(); }
  double seconds() const { return std::chrono::duration<double>(m_stop - m_start).count(); }

private:
  std::chrono::steady_clock::time_point m_start;
  std::chrono::steady_clock::time_point m_stop;
};

class State {
public:
  State(const Case& measured, const RunSettings& settings, HostCacheFlusher& flusher)
      : m_case(measured), m_settings(settings), m_flusher(flusher) {}

  const std::string& case_name() const { return m_case.name; }
  const std::vector<std::pair<std::string, std::string>>& axes() const { return m_case.axes; }

  // The value of an integer axis. Throws CaseError when the benchmark has no such axis.
  std::int64_t get_int(const std::string& axis) const {
    std::int64_t value = 0;
    if (!parse_integer(get_string(axis), value))
      throw CaseError("axis " + axis + " is not an integer axis");
    return value;
  }
  // The value of a float axis. Throws CaseError when the benchmark has no such float axis.
  double get_float(const std::string& axis) const {
    const Axis* declared =
        m_case.benchmark != nullptr ? m_case.benchmark->find_axis(axis) : nullptr;
    double value = 0;
    if ((declared != nullptr && declared->kind != AxisKind::floating) ||
        !parse_float(get_string(axis), value))
      throw CaseError("axis " + axis + " is not a float axis");
    return value;
  }
  const std::string& get_string(const std::string& axis) const {
    for (const auto& entry : m_case.axes) {
      if (entry.first == axis)
        return entry.second;
    }
    throw CaseError("the benchmark asked for axis " + axis + ", which it does not declare");
  }

  // A seed for this case's random data (see case_seed).
  std::uint64_t seed() const { return case_seed(m_settings.seed, m_case.name); }
  const RunSettings& settings() const { return m_settings; }

  // The work of one call of the measured function: floating-point operations, and bytes moved
  // to and from memory (the compulsory traffic: each input read once, each output written once).
  void set_flops(double flops) { m_flops = flops; }
  void set_bytes(double bytes) { m_bytes = bytes; }
  double flops() const { return m_flops; }
  double bytes() const { return m_bytes; }

  // Throws CaseError when this case would need more host memory than is available.
  void require_host_memory(double bytes) const { harness::require_host_memory(bytes); }

  // Sweeps the host's caches; exec() calls it before each sample when the run is cold.
  void flush_host_caches() { m_flusher.flush(); }

  // Records one sample of a metric. Throws CaseError for a value that is not finite.
  void add_sample(const std::string& metric, const std::string& unit, Direction direction,
                  double value) {
    m_samples.push_back(make_sample(metric, unit, direction, value));
  }
  // Records one batch sample: `value` is the time of `launches` back-to-back launches timed
  // together, divided by `launches`. Batch samples are never cold.
  void add_batch_sample(const std::string& metric, const std::string& unit, Direction direction,
                        double value, int launches) {
    Sample sample = make_sample(metric, unit, direction, value);
    sample.cold = false;
    sample.batch = launches;
    m_samples.push_back(sample);
  }
  const std::vector<Sample>& samples() const { return m_samples; }

  // Says that this device cannot run this case (too little memory, an architecture the case
  // needs) and ends the benchmark function by throwing CaseSkipped. The run reports the case as
  // skipped, with `reason`, which is not a failure.
  [[noreturn]] void skip(const std::string& reason) const { throw CaseSkipped(reason); }

  // The GPU timing loop's account of the SM clock, for the case record; none on the CPU.
  void set_clock_check(const ClockCheck& check) {
    m_clock_check = check;
    m_has_clock_check = true;
  }
  const ClockCheck* clock_check() const { return m_has_clock_check ? &m_clock_check : nullptr; }

  // Measures `function` on the CPU: `warmup` untimed calls, then one timed call per sample,
  // each recorded as metric "time" in seconds; before each timed call the host's caches are
  // swept when the run is cold. The function must do the same work on every call.
  template <class Function> void exec(Function&& function) {
    using Callable = std::remove_reference_t<Function>;
    exec_calls([](void* callable) { (*static_cast<Callable*>(callable))(); },
               const_cast<void*>(static_cast<const void*>(&function)));
  }

  // exec() for a function called through a pointer: call(callable) is one call of it. The
  // timing loop is compiled once per source file instead of once per benchmark, which keeps
  // benchmark sources quick to compile; the indirect call adds a nanosecond or two to each
  // sample, far less than reading the clock that times it.
  void exec_calls(void (*call)(void*), void* callable) {
    for (int i = 0; i < m_settings.warmup; ++i)
      call(callable);
    const bool counted = count_one_call(call, callable);
    // Timed 20 to 100 times slower on a simulated CPU, more samples would say no more.
    const int samples = counted ? 1 : m_settings.samples;
    CpuTimer timer;
    for (int i = 0; i < samples; ++i) {
      if (m_settings.cold)
        flush_host_caches();
      timer.start();
      call(callable);
      timer.stop();
      add_sample("time", "s", Direction::lower, timer.seconds());
    }
  }

private:
  // Under Callgrind: one call after the warm-ups (and the cache sweep of a cold run), counted
  // alone and dumped under the case's name, so that the counts are those of one call of the case,
  // without the harness, the set-up or the sweeps. True when it was counted; elsewhere it does
  // nothing and returns false.
  bool count_one_call(void (*call)(void*), void* callable) {
#ifdef CULPRIT_HARNESS_CALLGRIND
    if (RUNNING_ON_VALGRIND == 0)
      return false;
    if (m_settings.cold)
      flush_host_caches();
    CALLGRIND_ZERO_STATS;
    call(callable);
    CALLGRIND_DUMP_STATS_AT(m_case.name.c_str());
    return true;
#else
    (void)call;
    (void)callable;
    return false;
#endif
  }

  Sample make_sample(const std::string& metric, const std::string& unit, Direction direction,
                     double value) const {
    if (!std::isfinite(value))
      throw CaseError("metric " + metric + " got a value that is not a finite number");
    int index = 0;
    for (const auto& sample : m_samples)
      index += sample.metric == metric ? 1 : 0;
    return Sample{metric, unit, direction, value, index, m_settings.cold, 0};
  }

  const Case& m_case;
  const RunSettings& m_settings;
  HostCacheFlusher& m_flusher;
  double m_flops = -1; // negative: not given
  double m_bytes = -1;
  std::vector<Sample> m_samples;
  ClockCheck m_clock_check;
  bool m_has_clock_check = false;
};

} // namespace culprit::harness
