#pragma once
// What a benchmark reports: cases, metrics with a unit and a direction, and samples.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::parsers {

// Which way is better. Times are lower-is-better; throughputs (bytes_per_second, GFLOP/s) are
// higher-is-better.
enum class Direction { lower_is_better, higher_is_better };

// "lower" / "higher", the spelling used in the JSON-lines format, evidence and the store.
std::string_view to_string(Direction direction);
std::optional<Direction> parse_direction(std::string_view text);

// The samples of one metric of one case, as one run (one process) reported them, in order.
// Times are always in seconds (unit "s"): parsers convert whatever unit the benchmark used.
struct CaseSamples {
  std::string case_name;
  std::string metric;
  std::string unit;
  Direction direction = Direction::lower_is_better;
  std::vector<double> values;
};

// What a benchmark says about a case besides samples: the work of one call (the roofline model,
// core/roofline/roofline.hpp) and its axes.
struct CaseInfo {
  std::string case_name;
  std::optional<double> flops; // floating-point operations of one call
  std::optional<double> bytes; // bytes one call moves to and from memory
  std::map<std::string, std::string> axes;
  friend bool operator==(const CaseInfo&, const CaseInfo&) = default;
};

// What a GPU's own properties say about its peaks (the culprit harness reads them with
// cudaDeviceGetAttribute and writes them in its header).
struct GpuProperties {
  int sm_count = 0;
  double sm_clock_mhz = 0;     // the peak SM clock
  double memory_clock_mhz = 0; // the peak memory clock (data moves on both edges)
  int memory_bus_bits = 0;
  int compute_major = 0;
  int compute_minor = 0;
  friend bool operator==(const GpuProperties&, const GpuProperties&) = default;
};

// The device a run measured, as the benchmark's output names it (the culprit harness's header).
struct DeviceInfo {
  std::string backend; // cpu | cuda
  std::string name;
  std::optional<GpuProperties> gpu;
  friend bool operator==(const DeviceInfo&, const DeviceInfo&) = default;
};

// A case that the benchmark itself reported as failed (Google Benchmark's error_occurred): the
// run produced no samples for it, and saying why beats a silent gap.
struct CaseError {
  std::string case_name;
  std::string message;
};

// Everything parsed from one run's output.
// One repetition of a Google Benchmark case, in the order the program ran them: what Callgrind's
// dumps of its timed loops are matched to (core/measure/instrument.hpp). iterations 0: the row
// reported an error or a skip, and its loop may not have run.
struct IterationRow {
  std::string case_name;
  double iterations = 1;
  int threads = 1;
  friend bool operator==(const IterationRow&, const IterationRow&) = default;
};

struct ParsedOutput {
  std::vector<CaseSamples> samples;
  std::vector<IterationRow> iteration_rows; // Google Benchmark only
  std::vector<CaseInfo> cases;
  std::optional<DeviceInfo> device;
  std::vector<CaseError> errors;
  std::vector<std::string> warnings;
};

} // namespace culprit::parsers
