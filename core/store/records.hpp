#pragma once
// What the results store holds: hosts, builds, runs and their samples. These structs are the
// store's rows; the store neither computes nor interprets them.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/parsers/metric.hpp"

namespace culprit::store {

// Wall-clock instants, kept in the store as integer microseconds since the Unix epoch.
using Clock = std::chrono::system_clock;
using TimePoint = std::chrono::time_point<Clock, std::chrono::microseconds>;
[[nodiscard]] TimePoint now();
[[nodiscard]] inline std::int64_t to_micros(TimePoint time) {
  return time.time_since_epoch().count();
}
[[nodiscard]] inline TimePoint from_micros(std::int64_t micros) {
  return TimePoint(std::chrono::microseconds(micros));
}

struct HostRecord {
  std::string host_id;     // hash of the stable part of the fingerprint
  std::string fingerprint; // the whole fingerprint as JSON
  TimePoint first_seen;
  TimePoint last_seen;
};

enum class RunStatus : std::uint8_t { ok, failed, timeout, parse_error, interrupted };
[[nodiscard]] std::string_view to_string(RunStatus status);
[[nodiscard]] std::optional<RunStatus> parse_run_status(std::string_view text);

struct RunRecord {
  std::int64_t id = 0; // assigned by the store; ignored by record_run
  std::string artifact_id;
  std::string build_key;
  std::string commit_id;
  std::string recipe_hash; // hash of the recipe's run part: command, format, metric, options
  std::string host_id;
  TimePoint started;
  double wall_seconds = 0.0;
  double user_seconds = 0.0;
  double sys_seconds = 0.0;
  std::optional<std::int64_t> max_rss_kib;
  std::optional<int> exit_code;
  std::optional<int> signal;
  bool timed_out = false;
  RunStatus status = RunStatus::ok;
  bool warmup = false;        // recorded, never counted
  bool gpu_throttled = false; // a GPU throttled between the snapshots before and after the run
  std::string message;
  std::optional<std::string> session; // a label for a batch of runs (one invocation, one job)
  // The block of interleaved runs this run belongs to: one run of each revision being compared,
  // made one after the other in a random order or, in a duet, at the same time. Runs of one block
  // are paired by the comparisons. None for warm-up runs and runs from before blocks were kept.
  std::optional<std::string> block;
  bool duet = false; // the block's runs ran at the same time, each on CPUs of its own
  // The samples, each case and metric with its values in the order the run reported them.
  std::vector<parsers::CaseSamples> samples;
  // What the run said about its cases' work and axes, and the device it measured: kept per
  // measurement, not per run (the last run's word stands).
  std::vector<parsers::CaseInfo> cases;
  std::optional<parsers::DeviceInfo> device;
};

// The peaks of one device of a host, for the roofline model.
struct PeakRecord {
  std::string host_id;
  std::string scope;  // "cpu", "cpu:0,1" (measured pinned to those CPUs), "gpu:NAME"
  std::string device; // what the figures describe
  double flops_per_second = 0;
  std::optional<double> tensor_flops_per_second;
  double bytes_per_second = 0;
  std::string source; // where the figures come from, in words
  TimePoint measured;
};

// Which measurement: runs of one artifact under one recipe's run part on one host.
struct MeasurementKey {
  std::string artifact_id;
  std::string recipe_hash;
  std::string host_id;
};

// Restricts queries to part of what is stored; the default takes everything. `--fresh` sets
// started_after to the start of the invocation, or session to its label.
struct Freshness {
  std::optional<TimePoint> started_after; // runs started at or after this instant
  std::optional<std::string> session;     // runs recorded under this session label
  bool unlabeled = false;                 // only runs recorded under no session label
};

// The counted runs (status ok, not warm-up) of one case and metric, in run order (by start time,
// then by insertion). A run that reported no sample for the case is not in the list.
struct CaseRuns {
  std::vector<std::int64_t> run_ids;
  std::vector<std::optional<std::string>> blocks; // blocks[i]: the block of run run_ids[i]
  std::vector<bool> duets;                        // duets[i]: run run_ids[i] ran in a duet
  std::vector<std::vector<double>> samples;       // samples[i] are the values of run run_ids[i]
  std::string unit;
  parsers::Direction direction = parsers::Direction::lower_is_better;
};

// The counted runs of one case and metric, among those of several.
struct CaseMetricRuns {
  std::string case_name;
  std::string metric;
  CaseRuns runs;
};

struct CaseMetric {
  std::string case_name;
  std::string metric;
  std::string unit;
  parsers::Direction direction = parsers::Direction::lower_is_better;
  friend bool operator==(const CaseMetric&, const CaseMetric&) = default;
};

struct RunCounts {
  std::int64_t counted = 0; // ok and not warm-up
  std::int64_t warmup = 0;  // warm-up runs of any status
  std::int64_t failed = 0;  // not warm-up and not ok (failed, timeout, parse_error, interrupted)
};

// Every run stored of one artifact (any recipe, host, status), in run order, with its samples.
struct ArtifactRecord {
  std::string artifact_id;
  std::vector<RunRecord> runs;
};

} // namespace culprit::store
