#pragma once
// Nsight Compute's metrics per kernel from `ncu --csv --print-units base --metrics ...` (its
// "raw" page, one row per kernel launch and metric): a header row naming at least "ID",
// "Kernel Name", "Metric Name", "Metric Unit" and "Metric Value" (versions add "Block Size",
// "Grid Size", "Device", "CC", rule columns; they are not read), after any "==PROF==" lines of
// ncu's own and whatever the program printed. Values may carry thousands separators
// ("1,234,567.00"); byte prefixes (Kbyte, Mbyte, Gbyte; powers of 1000, as ncu prints them
// without --print-units base) are scaled to bytes.
//
// A case per kernel: its name without the return type and parameter list ("void
// saxpy_kernel<4>(int, float, const float *, float *)" is "saxpy_kernel<4>", "void
// ns::operator>>(int)" is "ns::operator>>": an operator's symbol and "(anonymous namespace)" are
// part of the name), each metric the mean over its launches in the run. Metrics:
//   gpu_instructions    smsp__inst_executed.sum                          (count, lower)
//   dram_bytes_read     dram__bytes_read.sum                             (bytes, lower)
//   dram_bytes_written  dram__bytes_write.sum                            (bytes, lower)
//   l2_hit_rate         lts__t_sector_hit_rate.pct                       (%, higher)
//   achieved_occupancy  sm__warps_active.avg.pct_of_peak_sustained_active (%, higher)
//   sm_cycles           sm__cycles_elapsed.avg                           (count, lower)

#include <string>
#include <string_view>

#include "core/parsers/metric.hpp"
#include "core/util/error.hpp"

namespace culprit::parsers {

// The ncu metrics culprit asks for, comma-separated, as `ncu --metrics` takes them.
[[nodiscard]] std::string_view ncu_metrics();

// The samples (one value each) of every kernel in an ncu CSV log. Errors (with the row): no
// header row; a row with another number of fields, a value that is not a finite number ("nan",
// "inf") or is negative, or no kernel name; no launch of any kernel (the program launched none,
// or ncu could not profile: its "==ERROR==" line).
[[nodiscard]] Result<std::vector<CaseSamples>> parse_ncu_csv(std::string_view text);

// Whether `metric` is one of those above.
[[nodiscard]] bool is_ncu_metric(std::string_view metric);

} // namespace culprit::parsers
