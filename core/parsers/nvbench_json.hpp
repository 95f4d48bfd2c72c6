#pragma once
// nvbench's JSON output (--json FILE; file version 1). One case per state that ran; skipped
// states are counted in a warning. Numbers may be JSON numbers or strings (nvbench writes them
// as strings).
//
// Case names are stable across runs: "<benchmark>/<axis>=<value>,..." with the values as nvbench
// displays them in the state name ("copy/T=F32,Elements=2^20"), or the benchmark's name alone
// when it has no axes. "Device=<id>" leads the axes only when the benchmark ran on more than one
// device, so single-GPU names do not carry it.
//
// Metrics, per state (one value per run unless sample times are present):
//   nv/cold/time/gpu/mean               gpu_time              s    lower
//   nv/cold/time/cpu/mean               cpu_time              s    lower
//   nv/cpu_only/time/cpu/mean           cpu_time              s    lower
//   nv/batch/time/gpu/mean              batch_gpu_time        s    lower
//   nv/cold/bw/global/bytes_per_second  bytes_per_second      B/s  higher
//   nv/cold/bw/item_rate                items_per_second      1/s  higher
//   nv/cold/bw/global/utilization       bandwidth_utilization ratio higher
// Other summaries with hint duration (but not walltimes or deviations), byte_rate or item_rate
// become metrics named after their tag ("nv/cold/time/gpu/min" -> "cold_time_gpu_min").
// When a state references a sample-times file (summary "nv/json/bin:nv/cold/sample_times",
// written with --jsonbin: little-endian float32 seconds), its samples replace the mean as the
// gpu_time values; a missing or malformed file is a warning and the mean is used.
// CaseInfo carries the axes (and Device) and bytes = the sum of nv/gmem/reads/* and writes/*.

#include <filesystem>
#include <string_view>

#include "core/parsers/json_support.hpp"
#include "core/parsers/metric.hpp"
#include "core/util/error.hpp"

namespace culprit::parsers {

struct NvbenchOptions {
  // Where relative sample-time file names are resolved: the run's working directory.
  std::filesystem::path base_dir;
};

[[nodiscard]] Result<ParsedOutput> parse_nvbench_json(std::string_view text,
                                                      const NvbenchOptions& options = {});
[[nodiscard]] Result<ParsedOutput> read_nvbench_document(const Json& document,
                                                         const NvbenchOptions& options = {});

// An object with a "benchmarks" array whose entries have "states", and no "context".
[[nodiscard]] bool looks_like_nvbench(const Json& document);

} // namespace culprit::parsers
