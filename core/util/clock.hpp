#pragma once
// Wall-clock timestamps for records and evidence.

#include <string>

namespace culprit {

// The current UTC time as 2026-01-31T12:00:00Z.
std::string utc_now_iso8601();

} // namespace culprit
