#pragma once
// Hardware counts from `perf stat -x ,` (Linux perf's CSV output, perf-stat(1), "CSV FORMAT"):
// one line per event,
//
//   counter-value,unit,event-name,counter-running-time,percentage-of-running-time[,metric,unit]
//
// after "# started on ..." comment lines and blank ones. The value is "<not supported>" where
// the CPU (or the hypervisor) exposes no such counter and "<not counted>" where it could not be
// scheduled; the event name may carry modifiers ("instructions:u") and, on a hybrid CPU, its PMU
// ("cpu_core/instructions/u", "cpu_atom/instructions/u": summed, and a kind of core the run never
// ran on is "<not counted>", which counts as none). Lines of further metrics leave the earlier
// fields empty. A value counted for part of the time only (percentage under 100, counters
// multiplexed) is perf's scaled estimate.
//
// Metrics (each one event; counts, unit "" and lower is better): instructions, cycles, branches,
// branch_mispredictions (branch-misses), cache_references, cache_misses. Unlike Valgrind's, these
// counts are of the real CPU and vary a little from run to run.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/parsers/metric.hpp"
#include "core/util/error.hpp"

namespace culprit::parsers {

// The perf events culprit asks for, comma-separated, as `perf stat -e` takes them.
[[nodiscard]] std::string_view perf_events();

// The metrics of a `perf stat -x ,` output. Errors: a line that is not that format or whose
// value is not a count (negative, infinite, not a number); an event that was not supported or
// not counted (naming it, with what to do); no event at all.
[[nodiscard]] Result<std::map<std::string, double>> parse_perf_stat(std::string_view text);

// Whether `metric` is one of the metrics above.
[[nodiscard]] bool is_perf_metric(std::string_view metric);

// One sample per metric present in `counts`, for the case `case_name`.
[[nodiscard]] std::vector<CaseSamples> perf_samples(std::string_view case_name,
                                                    const std::map<std::string, double>& counts);

} // namespace culprit::parsers
