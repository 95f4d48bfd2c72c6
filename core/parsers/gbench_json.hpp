#pragma once
// Google Benchmark's JSON output (--benchmark_format=json or --benchmark_out_format=json).
//
// Each row of "benchmarks" that is an iteration (run_type "iteration": one repetition) is one
// sample of its case (run_name, else name); aggregate rows (mean, median, stddev, cv, BigO, RMS)
// are skipped, since culprit computes its own statistics from the repetitions. Per row:
// - real_time and cpu_time are metrics in seconds, converted from the row's time_unit;
// - every other numeric member is a counter, kept as a metric of that name: bytes_per_second
//   (unit B/s) and items_per_second (unit 1/s) are higher-is-better; a user counter's direction
//   comes from GbenchOptions, else from its name (higher-is-better when it says it is a rate:
//   per_second, /s, rate, flop, throughput, bandwidth), else lower-is-better;
// - error_occurred rows become a CaseError per case; rows skipped with a message, a warning.
// Every iteration row is also listed in the order it came (ParsedOutput::iteration_rows), with
// its iterations and threads.
// Each case's first row also gives its work per iteration (CaseInfo), for the roofline model:
// bytes = bytes_per_second x cpu_time (SetBytesProcessed; Google Benchmark divides rates by the
// CPU time unless a benchmark uses UseRealTime, which the JSON does not record); FLOPs from a
// user counter whose name holds "flop": a rate times cpu_time (Counter::kIsRate, how such
// counters are nearly always
// set), or a count per iteration when its name says so (per_iteration, per_call, _count); a G, T
// or M before "flop" scales it (GFLOPS). The case's axes come from its name: "M:128" is axis M, a
// bare argument is arg0, arg1, ...
// Google Benchmark writes a non-finite counter as a bare NaN or Infinity, which is not JSON;
// those are read as absent, with a warning.

#include <map>
#include <string>
#include <string_view>

#include "core/parsers/json_support.hpp"
#include "core/parsers/metric.hpp"
#include "core/util/error.hpp"

namespace culprit::parsers {

struct GbenchOptions {
  std::map<std::string, Direction, std::less<>> counter_directions;
};

[[nodiscard]] Result<ParsedOutput> parse_gbench_json(std::string_view text,
                                                     const GbenchOptions& options = {});
// The same for a document already parsed (format detection parses it once).
[[nodiscard]] Result<ParsedOutput> read_gbench_document(const Json& document,
                                                        const GbenchOptions& options = {});

// An object with a "benchmarks" array and a "context" object.
[[nodiscard]] bool looks_like_gbench(const Json& document);

// `text` with bare NaN, -NaN, Infinity and -Infinity outside strings replaced by null, keeping
// the positions of everything else where it can; nullopt when there are none.
[[nodiscard]] std::optional<std::string> replace_non_finite_literals(std::string_view text);

} // namespace culprit::parsers
