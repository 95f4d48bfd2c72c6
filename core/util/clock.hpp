#pragma once
// Wall-clock timestamps for records and evidence.

#include <chrono>
#include <string>

namespace culprit {

// The current UTC time as 2026-01-31T12:00:00Z.
std::string utc_now_iso8601();
// `time` in UTC as 2026-01-31T12:00:00Z (to the second).
std::string utc_iso8601(std::chrono::system_clock::time_point time);

} // namespace culprit
