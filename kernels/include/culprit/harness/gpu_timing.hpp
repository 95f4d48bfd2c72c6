#pragma once
// The timing loop of GPU kernels, free of CUDA: cuda::exec instantiates it with the CUDA device
// (cuda.cuh), the tests with a fake one. Its phases follow nvbench's cold and hot measurements
// (nvbench/detail/measure_cold.cuh, measure_hot.cuh):
//
// 1. warm-up: `warmup` untimed launches (at least one when --batch is auto), timed together to
//    learn how long one launch takes;
// 2. samples: per sample "gpu_time" (device events around one launch) and "time" (host clock
//    from enqueueing to completion). A cold sample first resets the persisting L2 lines, flushes
//    L2 and waits for the flush, so that no timer counts it;
// 3. batch samples (nvbench's hot samples): "batch_gpu_time", the time of many back-to-back
//    launches timed by one pair of events, divided by their count. Taken for launches shorter
//    than k_batch_threshold_seconds, or as --batch says;
// 4. throttle check: the SM clock is read after every sample; a sample taken while it ran below
//    k_throttle_threshold x the default SM clock is dropped and counted, and sampling goes on
//    until the requested count is kept or k_sample_cap_factor x that many were taken.
//
// A Device provides, all on the stream of the case:
//   void reset_persisting_l2();        the L2 lines set to persist go back to normal
//   void flush_l2();                   enqueue the writes that evict L2
//   void synchronize();                wait until the stream is idle
//   void record_start(); void record_stop();  enqueue the start and stop events
//   void check_launch();               throw CaseError when the last launch failed
//   double elapsed_seconds();          time between the events; waits for the stop event
//   double default_sm_clock_mhz();     the SM clock the device runs at when not throttled
//   std::optional<double> sm_clock_mhz();  the SM clock now; nothing when it cannot be read

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "culprit/harness/benchmark.hpp"
#include "culprit/harness/host.hpp"
#include "culprit/harness/state.hpp"

namespace culprit::harness::gpu {

// nvbench's default: below 75% of the default clock the GPU is throttling.
constexpr double k_throttle_threshold = 0.75;
// Sampling stops after this many times the requested samples, however many were kept.
constexpr int k_sample_cap_factor = 3;
// A launch shorter than this is mostly launch overhead and event resolution (about 0.5 us):
// --batch auto times such kernels in batches too.
constexpr double k_batch_threshold_seconds = 10e-6;
// An automatic batch lasts about this long, with at least 2 and at most k_max_auto_batch launches.
constexpr double k_batch_target_seconds = 1e-3;
constexpr int k_max_auto_batch = 100000;

// What to do when the program holds no code for the GPU it runs on (CUDA's "no kernel image is
// available"): the architecture to add, from the device's compute capability.
inline std::string missing_architecture_hint(int compute_major, int compute_minor) {
  const std::string arch = "sm_" + std::to_string(compute_major) + std::to_string(compute_minor);
  return "this program was not built for this GPU (" + arch + "): build it for " + arch +
         " too (nvcc -arch=" + arch + ", or CMAKE_CUDA_ARCHITECTURES)";
}

// The launches of one batch sample for a kernel whose launch takes `launch_seconds` (0 when
// unknown): 0 when no batch samples are to be taken.
inline int batch_launches(const RunSettings& settings, double launch_seconds) {
  switch (settings.batch) {
  case BatchMode::off:
    return 0;
  case BatchMode::fixed:
    return settings.batch_launches;
  case BatchMode::automatic:
    break;
  }
  if (launch_seconds >= k_batch_threshold_seconds)
    return 0;
  if (!(launch_seconds > 0)) // below the events' resolution
    return k_max_auto_batch;
  const double launches = std::round(k_batch_target_seconds / launch_seconds);
  return static_cast<int>(std::clamp(launches, 2.0, static_cast<double>(k_max_auto_batch)));
}

template <class Device> class KernelTiming {
public:
  KernelTiming(State& state, Device& device) : m_state(state), m_device(device) {
    m_clock.default_mhz = m_device.default_sm_clock_mhz();
    m_clock.threshold = k_throttle_threshold;
    m_clock.checked = m_clock.default_mhz > 0;
  }

  // Measures `launch()` (which enqueues one call's kernels) and records its samples and the
  // clock check in the state. Throws CaseError when every sample was throttled.
  template <class Launch> void run(Launch& launch) {
    const double launch_seconds = warm_up(launch);
    const int samples = m_state.settings().samples;
    const int kept = take_samples(samples, [&] { return take_sample(launch); });
    if (kept == 0) {
      throw CaseError("all " + std::to_string(m_clock.taken) + " samples were taken while the " +
                      throttle_condition() +
                      ": the GPU is throttling (heat or power); let it cool down or check " +
                      "nvidia-smi -q -d PERFORMANCE");
    }
    const int launches = batch_launches(m_state.settings(), launch_seconds);
    if (launches > 0)
      take_samples(samples, [&] { return take_batch_sample(launch, launches); });
    m_state.set_clock_check(m_clock);
  }

  // "the SM clock was below 75% of its default 1980 MHz", for messages.
  std::string throttle_condition() const {
    return "SM clock was below " + format_float(m_clock.threshold * 100) + "% of its default " +
           format_float(m_clock.default_mhz) + " MHz";
  }

private:
  template <class Launch> double warm_up(Launch& launch) {
    int launches = m_state.settings().warmup;
    if (launches == 0 && m_state.settings().batch == BatchMode::automatic)
      launches = 1;
    if (launches == 0)
      return 0;
    return time_launches(launch, launches) / launches;
  }

  // Seconds between events around `launches` back-to-back launches, on an idle stream.
  template <class Launch> double time_launches(Launch& launch, int launches) {
    m_device.synchronize();
    m_device.record_start();
    for (int i = 0; i < launches; ++i) {
      launch();
      m_device.check_launch();
    }
    m_device.record_stop();
    return m_device.elapsed_seconds();
  }

  // Calls take_one() (true: the sample was kept) until `count` were kept or the cap is reached;
  // returns how many were kept.
  template <class TakeOne> int take_samples(int count, TakeOne&& take_one) {
    int kept = 0;
    for (int taken = 0; kept < count && taken < k_sample_cap_factor * count; ++taken)
      kept += take_one() ? 1 : 0;
    return kept;
  }

  template <class Launch> bool take_sample(Launch& launch) {
    if (m_state.settings().cold) {
      m_device.reset_persisting_l2();
      m_device.flush_l2();
    }
    m_device.synchronize();
    CpuTimer host_timer;
    host_timer.start();
    m_device.record_start();
    launch();
    m_device.check_launch();
    m_device.record_stop();
    const double gpu_seconds = m_device.elapsed_seconds(); // waits for the launch to finish
    host_timer.stop();
    if (throttled())
      return false;
    m_state.add_sample("gpu_time", "s", Direction::lower, gpu_seconds);
    m_state.add_sample("time", "s", Direction::lower, host_timer.seconds());
    return true;
  }

  template <class Launch> bool take_batch_sample(Launch& launch, int launches) {
    const double gpu_seconds = time_launches(launch, launches);
    if (throttled())
      return false;
    m_state.add_batch_sample("batch_gpu_time", "s", Direction::lower, gpu_seconds / launches,
                             launches);
    return true;
  }

  // Reads the SM clock after a sample: true when the sample is to be dropped. A clock that
  // cannot be read keeps the sample and marks the case as not checked.
  bool throttled() {
    ++m_clock.taken;
    const std::optional<double> mhz = m_device.sm_clock_mhz();
    if (!mhz || !m_clock.checked) {
      m_clock.checked = false;
      return false;
    }
    if (*mhz >= m_clock.threshold * m_clock.default_mhz)
      return false;
    ++m_clock.throttled;
    return true;
  }

  State& m_state;
  Device& m_device;
  ClockCheck m_clock;
};

// Measures `launch()` on `device` (see KernelTiming).
template <class Device, class Launch> void measure(State& state, Device& device, Launch&& launch) {
  KernelTiming<Device> timing(state, device);
  timing.run(launch);
}

} // namespace culprit::harness::gpu
