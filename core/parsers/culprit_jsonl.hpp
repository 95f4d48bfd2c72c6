#pragma once
// The culprit JSON-lines format, exactly as man/culprit.1 ("THE CULPRIT JSON-LINES FORMAT")
// specifies it: a line whose first non-blank character is '{' is a record (one JSON object with
// a string "type"); other lines are ignored. Records:
// - header: optional, first when present; "version" must be 1 (a newer major version is refused);
//   optional backend and device (strings: the device a run measured) and gpu (an object of the
//   GPU's properties: sm_count, sm_clock_mhz, memory_clock_mhz, memory_bus_bits, compute_major,
//   compute_minor), which give the roofline its peaks;
// - sample: case, metric (non-empty strings), unit (string), direction ("lower" | "higher"),
//   value (finite number); optional index (non-negative integer), cold (boolean), batch
//   (positive integer: the launches a batch sample timed together; its value is per launch).
//   Times in s/ms/us/ns are stored in seconds.
// - case: case (non-empty string); optional axes (object of strings), flops and bytes
//   (non-negative numbers); at most once per case. A GPU case may add sm_clock (an object:
//   checked, default_mhz, threshold), samples_taken and dropped ({"throttled": N}): samples
//   dropped because the SM clock was below threshold x default_mhz each give a warning, and cases
//   whose clock was not checked one warning for the run.
// - skip: case (non-empty string), optional reason (string): a case the benchmark could not run
//   on its device. A warning, not an error; output whose every case was skipped has no samples
//   and is an error that says so.
// Records of other types, and unknown keys, are ignored so that newer writers can add them.

#include <string_view>

#include "core/parsers/metric.hpp"
#include "core/util/error.hpp"

namespace culprit::parsers {

inline constexpr int k_culprit_jsonl_version = 1;

// Errors name the line (and column for invalid JSON) and what was expected there. Output with no
// sample record at all is an error too.
[[nodiscard]] Result<ParsedOutput> parse_culprit_jsonl(std::string_view text);

// True when the first record-like line of `text` (first non-blank character '{') is a JSON
// object with a string "type": the mark of this format, for --format auto.
[[nodiscard]] bool looks_like_culprit_jsonl(std::string_view text);

} // namespace culprit::parsers
