#pragma once
// What `culprit env` shows: the fingerprint and its noise warnings, for people and as JSON.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/host/fingerprint.hpp"
#include "core/host/noise.hpp"

namespace culprit::host {

// Aligned "label  value" lines, then the warnings as "warning: ..." lines (or "no noise warnings").
std::string render_text(const HostFingerprint& host, const std::vector<NoiseWarning>& warnings);

// to_json(host) with "warnings": [{"id": ..., "message": ...}] added.
nlohmann::json render_json(const HostFingerprint& host, const std::vector<NoiseWarning>& warnings);

} // namespace culprit::host
