// The GPU timing loop (gpu_timing.hpp) on a fake device that logs what the loop asks of it:
// where the L2 flush sits, which samples the throttle check drops, what batch samples time,
// what the records say of it all, and the NVML clock reader on fake NVML functions.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <culprit/harness.hpp>
#include <culprit/harness/gpu_timing.hpp>
#include <culprit/harness/nvml.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/parsers/culprit_jsonl.hpp"
#include "tests/kernels/harness_test_support.hpp"

namespace {

using kernels_testing::records;

namespace harness = culprit::harness;
namespace gpu = culprit::harness::gpu;

// A stream with a clock. Enqueued work (flushes, launches) is pending until the stream is
// synchronized or an elapsed time is asked for; the events, like the host timer, count from when
// they are recorded, so work still pending when the start event is recorded lands in the sample.
struct FakeDevice {
  std::vector<std::string> calls;
  double now = 0;
  double pending = 0;
  double start = 0;
  double flush_seconds = 1.0; // far longer than any launch: it shows in any sample it leaks into
  double launch_seconds = 2e-6;
  double default_mhz = 1980;
  std::vector<std::optional<double>> clocks; // successive readings; then default_mhz
  std::size_t clocks_read = 0;

  void reset_persisting_l2() { calls.emplace_back("reset_l2"); }
  void flush_l2() {
    calls.emplace_back("flush");
    pending += flush_seconds;
  }
  void synchronize() {
    calls.emplace_back("sync");
    now += pending;
    pending = 0;
  }
  void record_start() {
    calls.emplace_back("start");
    start = now;
  }
  void record_stop() { calls.emplace_back("stop"); }
  void check_launch() {}
  double elapsed_seconds() {
    calls.emplace_back("elapsed");
    now += pending;
    pending = 0;
    return now - start;
  }
  double default_sm_clock_mhz() const { return default_mhz; }
  std::optional<double> sm_clock_mhz() {
    calls.emplace_back("clock");
    return clocks_read < clocks.size() ? clocks[clocks_read++] : std::optional(default_mhz);
  }

  void launch() {
    calls.emplace_back("launch");
    pending += launch_seconds;
  }
};

harness::RunSettings settings(int samples, int warmup, bool cold,
                              harness::BatchMode batch = harness::BatchMode::off,
                              int batch_launches = 0) {
  harness::RunSettings result;
  result.samples = samples;
  result.warmup = warmup;
  result.cold = cold;
  result.batch = batch;
  result.batch_launches = batch_launches;
  return result;
}

// Runs the loop on `device` for one case of a benchmark without axes.
struct Measured {
  std::vector<harness::Sample> samples;
  std::optional<harness::ClockCheck> clock;
};

Measured measure(FakeDevice& device, const harness::RunSettings& run) {
  static const harness::Case k_case{nullptr, {}, "k"};
  harness::HostCacheFlusher flusher(64);
  harness::State state(k_case, run, flusher);
  gpu::measure(state, device, [&] { device.launch(); });
  Measured result{state.samples(), std::nullopt};
  if (state.clock_check() != nullptr)
    result.clock = *state.clock_check();
  return result;
}

std::vector<double> values(const Measured& measured, const std::string& metric) {
  std::vector<double> result;
  for (const auto& sample : measured.samples) {
    if (sample.metric == metric)
      result.push_back(sample.value);
  }
  return result;
}

// The calls of the i-th timed sample, from the call after the previous sample's clock reading
// to this sample's clock reading.
std::vector<std::string> sample_calls(const FakeDevice& device, int i) {
  auto begin = device.calls.begin();
  // The warm-up ends with its elapsed time and reads no clock.
  begin = std::find(begin, device.calls.end(), "elapsed") + 1;
  for (int k = 0; k < i; ++k)
    begin = std::find(begin, device.calls.end(), "clock") + 1;
  const auto end = std::find(begin, device.calls.end(), "clock") + 1;
  return {begin, end};
}

TEST(GpuTiming, AColdSampleResetsAndFlushesL2AndWaitsBeforeItsStartEvent) {
  FakeDevice device;
  const auto measured = measure(device, settings(3, 1, true));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(sample_calls(device, i),
              (std::vector<std::string>{"reset_l2", "flush", "sync", "start", "launch", "stop",
                                        "elapsed", "clock"}))
        << "sample " << i;
  }
  const auto gpu_times = values(measured, "gpu_time");
  ASSERT_EQ(gpu_times.size(), 3U);
  for (const double seconds : gpu_times)
    EXPECT_NEAR(seconds, 2e-6, 1e-12) << "the flush's second is inside a sample";
  EXPECT_EQ(values(measured, "time").size(), 3U);
  for (const auto& sample : measured.samples)
    EXPECT_TRUE(sample.cold);
}

TEST(GpuTiming, AWarmSampleNeitherResetsNorFlushes) {
  FakeDevice device;
  const auto measured = measure(device, settings(2, 1, false));
  EXPECT_EQ(sample_calls(device, 0),
            (std::vector<std::string>{"sync", "start", "launch", "stop", "elapsed", "clock"}));
  EXPECT_EQ(std::count(device.calls.begin(), device.calls.end(), "flush"), 0);
  EXPECT_FALSE(measured.samples.front().cold);
}

TEST(GpuTiming, TheWarmUpLaunchesAreTimedTogetherAndRecordNothing) {
  FakeDevice device;
  const auto measured = measure(device, settings(1, 3, false));
  EXPECT_EQ(
      std::vector<std::string>(device.calls.begin(), device.calls.begin() + 7),
      (std::vector<std::string>{"sync", "start", "launch", "launch", "launch", "stop", "elapsed"}));
  EXPECT_EQ(values(measured, "gpu_time").size(), 1U);
}

TEST(GpuTiming, SamplesTakenWhileTheClockIsThrottledAreDroppedAndCounted) {
  FakeDevice device;
  // 1485 MHz is 75% of 1980: that reading is not throttled; 1484 is.
  device.clocks = {1980.0, 1000.0, 1485.0, 1484.0, 1980.0};
  device.launch_seconds = 20e-6;
  const auto measured = measure(device, settings(3, 1, false, harness::BatchMode::automatic));
  EXPECT_EQ(values(measured, "gpu_time").size(), 3U);
  EXPECT_EQ(values(measured, "time").size(), 3U);
  ASSERT_TRUE(measured.clock);
  EXPECT_TRUE(measured.clock->checked);
  EXPECT_EQ(measured.clock->taken, 5);
  EXPECT_EQ(measured.clock->throttled, 2);
  EXPECT_EQ(measured.clock->default_mhz, 1980);
  EXPECT_EQ(measured.clock->threshold, 0.75);
}

TEST(GpuTiming, SamplingStopsAtThreeTimesTheRequestedCount) {
  FakeDevice device;
  device.clocks = {900.0, 900.0, 900.0, 900.0, 900.0, 1980.0, 1980.0};
  const auto measured = measure(device, settings(2, 1, false));
  EXPECT_EQ(values(measured, "gpu_time").size(), 1U);
  EXPECT_EQ(measured.clock->taken, 6);
  EXPECT_EQ(measured.clock->throttled, 5);
}

TEST(GpuTiming, ACaseWhoseEverySampleIsThrottledFails) {
  FakeDevice device;
  device.clocks.assign(12, 1000.0);
  try {
    measure(device, settings(4, 1, false));
    FAIL() << "no error";
  } catch (const harness::CaseError& error) {
    EXPECT_STREQ(error.what(), "all 12 samples were taken while the SM clock was below 75% of its "
                               "default 1980 MHz: the GPU is throttling (heat or power); let it "
                               "cool down or check nvidia-smi -q -d PERFORMANCE");
  }
}

TEST(GpuTiming, WithoutAClockEverySampleIsKeptAndTheCaseIsNotChecked) {
  FakeDevice device;
  device.clocks.assign(100, std::nullopt);
  const auto measured = measure(device, settings(4, 1, false));
  EXPECT_EQ(values(measured, "gpu_time").size(), 4U);
  EXPECT_FALSE(measured.clock->checked);
  EXPECT_EQ(measured.clock->throttled, 0);
  EXPECT_EQ(measured.clock->taken, 4);
}

TEST(GpuTiming, AShortKernelGetsBatchSamplesOfBackToBackLaunches) {
  FakeDevice device; // 2 us per launch: 500 launches make the 1 ms an automatic batch lasts
  const auto measured = measure(device, settings(3, 1, true, harness::BatchMode::automatic));
  std::vector<const harness::Sample*> batch;
  for (const auto& sample : measured.samples) {
    if (sample.metric == "batch_gpu_time")
      batch.push_back(&sample);
  }
  ASSERT_EQ(batch.size(), 3U);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(batch[i]->batch, 500);
    EXPECT_EQ(batch[i]->index, i);
    EXPECT_FALSE(batch[i]->cold);
    EXPECT_NEAR(batch[i]->value, 2e-6, 1e-12);
  }
  // Each batch sample: one pair of events around 500 launches, no flush inside.
  const auto batch_calls = sample_calls(device, 3);
  EXPECT_EQ(batch_calls.front(), "sync");
  EXPECT_EQ(batch_calls[1], "start");
  EXPECT_EQ(std::count(batch_calls.begin(), batch_calls.end(), "launch"), 500);
  EXPECT_EQ(std::count(batch_calls.begin(), batch_calls.end(), "flush"), 0);
  EXPECT_EQ(measured.clock->taken, 6);
  for (const auto& sample : measured.samples) {
    if (sample.metric != "batch_gpu_time") {
      EXPECT_EQ(sample.batch, 0);
    }
  }
}

TEST(GpuTiming, ALongKernelGetsNoBatchSamplesUnlessTheyAreAskedFor) {
  FakeDevice device;
  device.launch_seconds = 50e-6;
  EXPECT_TRUE(values(measure(device, settings(2, 1, false, harness::BatchMode::automatic)),
                     "batch_gpu_time")
                  .empty());
  FakeDevice forced;
  forced.launch_seconds = 50e-6;
  const auto measured = measure(forced, settings(2, 1, false, harness::BatchMode::fixed, 7));
  EXPECT_EQ(values(measured, "batch_gpu_time").size(), 2U);
  EXPECT_EQ(measured.samples.back().batch, 7);
  FakeDevice off;
  EXPECT_TRUE(values(measure(off, settings(2, 1, false)), "batch_gpu_time").empty());
}

TEST(GpuTiming, WithoutWarmUpAnAutomaticBatchStillTimesOneLaunchFirst) {
  FakeDevice device;
  const auto measured = measure(device, settings(1, 0, false, harness::BatchMode::automatic));
  EXPECT_EQ(std::vector<std::string>(device.calls.begin(), device.calls.begin() + 5),
            (std::vector<std::string>{"sync", "start", "launch", "stop", "elapsed"}));
  EXPECT_EQ(values(measured, "batch_gpu_time").size(), 1U);
  FakeDevice none;
  measure(none, settings(1, 0, false));
  EXPECT_EQ(none.calls.front(), "sync");
  EXPECT_EQ(std::count(none.calls.begin(), none.calls.end(), "launch"), 1);
}

TEST(GpuTiming, BatchSizesFollowTheLaunchTime) {
  const auto automatic = settings(1, 1, false, harness::BatchMode::automatic);
  EXPECT_EQ(gpu::batch_launches(automatic, 2e-6), 500);
  EXPECT_EQ(gpu::batch_launches(automatic, 9.99e-6), 100);
  EXPECT_EQ(gpu::batch_launches(automatic, 9e-4), 0); // not a short kernel
  EXPECT_EQ(gpu::batch_launches(automatic, 6e-6), 167);
  EXPECT_EQ(gpu::batch_launches(automatic, 10e-6), 0);
  EXPECT_EQ(gpu::batch_launches(automatic, 1e-9), gpu::k_max_auto_batch);
  EXPECT_EQ(gpu::batch_launches(automatic, 0), gpu::k_max_auto_batch);
  EXPECT_EQ(gpu::batch_launches(settings(1, 1, false, harness::BatchMode::fixed, 3), 1.0), 3);
  EXPECT_EQ(gpu::batch_launches(settings(1, 1, false), 1e-6), 0);
}

// A program without code for the GPU it runs on says which architecture to build for.
TEST(GpuTiming, AMissingArchitectureNamesTheOneToBuildFor) {
  EXPECT_EQ(gpu::missing_architecture_hint(9, 0),
            "this program was not built for this GPU (sm_90): build it for sm_90 too "
            "(nvcc -arch=sm_90, or CMAKE_CUDA_ARCHITECTURES)");
  EXPECT_NE(gpu::missing_architecture_hint(10, 0).find("(sm_100)"), std::string::npos);
}

// The records of a run whose one GPU case ran on the fake device, and what culprit reads of them.
std::string gpu_run_output(std::vector<std::optional<double>> clocks) {
  harness::Registry registry;
  registry.add("copy", [clocks](harness::State& state) {
    FakeDevice device;
    device.clocks = clocks;
    gpu::measure(state, device, [&] { device.launch(); });
  });
  std::ostringstream out;
  std::ostringstream err;
  const harness::Backend backend{"cuda", [] { return std::string("fake GPU"); }};
  const char* args[] = {"bench", "--samples", "3"};
  const int status =
      harness::run(registry, harness::parse_options(3, args), backend, out, err, "bench");
  EXPECT_EQ(status, 0) << err.str();
  return out.str();
}

TEST(GpuTimingRecords, TheCaseRecordCountsTheThrottledSamplesAndCulpritWarnsOfThem) {
  const std::string output = gpu_run_output({1980.0, 1000.0, 1000.0, 1000.0, 1980.0, 1980.0});
  const auto lines = records(output);
  ASSERT_GE(lines.size(), 2U);
  const auto& record = lines[1];
  EXPECT_EQ(record["type"], "case");
  EXPECT_EQ(record["sm_clock"]["checked"], true);
  EXPECT_EQ(record["sm_clock"]["default_mhz"], 1980);
  EXPECT_EQ(record["sm_clock"]["threshold"], 0.75);
  EXPECT_EQ(record["samples_taken"], 9); // 6 ordinary (3 dropped), then 3 batch samples
  EXPECT_EQ(record["dropped"]["throttled"], 3);
  int batch_samples = 0;
  for (const auto& line : lines) {
    if (line.value("metric", "") == "batch_gpu_time") {
      EXPECT_EQ(line["batch"], 500);
      ++batch_samples;
    } else if (line["type"] == "sample") {
      EXPECT_FALSE(line.contains("batch"));
    }
  }
  EXPECT_EQ(batch_samples, 3);

  const auto parsed = culprit::parsers::parse_culprit_jsonl(output);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->warnings,
            (std::vector<std::string>{"culprit JSON lines: case copy: 3 of 9 samples dropped: the "
                                      "SM clock was below 75% of its default 1980 MHz"}));
  bool has_batch = false;
  for (const auto& samples : parsed->samples)
    has_batch = has_batch || (samples.metric == "batch_gpu_time" && samples.values.size() == 3);
  EXPECT_TRUE(has_batch);
}

TEST(GpuTimingRecords, ACaseWhoseClockWasNotCheckedSaysSo) {
  const std::string unchecked = gpu_run_output(std::vector<std::optional<double>>(20));
  const auto lines = records(unchecked);
  EXPECT_EQ(lines[1]["sm_clock"]["checked"], false);
  EXPECT_EQ(lines[1]["samples_taken"], 6);
  EXPECT_FALSE(lines[1].contains("dropped"));
  const auto parsed_unchecked = culprit::parsers::parse_culprit_jsonl(unchecked);
  ASSERT_TRUE(parsed_unchecked);
  EXPECT_EQ(parsed_unchecked->warnings,
            (std::vector<std::string>{"culprit JSON lines: the SM clock was not checked in 1 of 1 "
                                      "GPU cases (no NVML): throttled samples may be among "
                                      "theirs"}));
  const auto parsed = culprit::parsers::parse_culprit_jsonl(gpu_run_output({}));
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(parsed->warnings.empty());
}

// Fake NVML functions, steered by g_nvml.
struct FakeNvml {
  harness::nvml::Return init = harness::nvml::k_success;
  harness::nvml::Return find = harness::nvml::k_success;
  harness::nvml::Return read = harness::nvml::k_success;
  unsigned int mhz = 1410;
  std::string bus_id;
  harness::nvml::ClockType clock_type = -1;
  int shutdowns = 0;
};
FakeNvml g_nvml;

harness::nvml::Device fake_handle() {
  return reinterpret_cast<harness::nvml::Device>(&g_nvml);
}
harness::nvml::Return fake_init() {
  return g_nvml.init;
}
harness::nvml::Return fake_shutdown() {
  ++g_nvml.shutdowns;
  return harness::nvml::k_success;
}
harness::nvml::Return fake_find(const char* bus_id, harness::nvml::Device* device) {
  g_nvml.bus_id = bus_id;
  *device = fake_handle();
  return g_nvml.find;
}
harness::nvml::Return fake_read(harness::nvml::Device device, harness::nvml::ClockType type,
                                unsigned int* mhz) {
  g_nvml.clock_type = type;
  *mhz = device == fake_handle() ? g_nvml.mhz : 0;
  return g_nvml.read;
}
const harness::nvml::Functions k_fake_nvml{fake_init, fake_shutdown, fake_find, fake_read};

TEST(Nvml, ReadsTheSmClockOfTheGpuWithTheGivenBusId) {
  g_nvml = FakeNvml{};
  {
    const harness::nvml::SmClock clock(k_fake_nvml, "00000000:41:00.0");
    EXPECT_TRUE(clock.usable());
    EXPECT_EQ(clock.mhz(), 1410.0);
    EXPECT_EQ(g_nvml.bus_id, "00000000:41:00.0");
    EXPECT_EQ(g_nvml.clock_type, 1); // NVML_CLOCK_SM
    g_nvml.read = 3;                 // NVML_ERROR_NOT_SUPPORTED
    EXPECT_EQ(clock.mhz(), std::nullopt);
  }
  EXPECT_EQ(g_nvml.shutdowns, 1);
}

TEST(Nvml, FailuresLeaveTheClockUnread) {
  g_nvml = FakeNvml{};
  g_nvml.init = 9; // NVML_ERROR_DRIVER_NOT_LOADED
  {
    const harness::nvml::SmClock clock(k_fake_nvml, "x");
    EXPECT_FALSE(clock.usable());
    EXPECT_EQ(clock.mhz(), std::nullopt);
  }
  EXPECT_EQ(g_nvml.shutdowns, 0); // never initialised
  g_nvml = FakeNvml{};
  g_nvml.find = 6; // NVML_ERROR_NOT_FOUND
  {
    const harness::nvml::SmClock clock(k_fake_nvml, "x");
    EXPECT_FALSE(clock.usable());
    EXPECT_EQ(clock.mhz(), std::nullopt);
  }
  EXPECT_EQ(g_nvml.shutdowns, 1);
  const harness::nvml::SmClock incomplete(harness::nvml::Functions{}, "x");
  EXPECT_FALSE(incomplete.usable());
}

TEST(Nvml, AMissingLibraryGivesNoFunctions) {
  const harness::nvml::Library library("libculprit-no-such-library.so.1");
  EXPECT_FALSE(library.functions().complete());
  EXPECT_EQ(library.functions().init, nullptr);
}

} // namespace
