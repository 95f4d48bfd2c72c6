#pragma once
// What `culprit env` shows: the fingerprint and its noise warnings, for people and as JSON.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/host/fingerprint.hpp"
#include "core/host/noise.hpp"
#include "core/host/noise_probe.hpp"

namespace culprit::host {

// Aligned "label  value" lines, then the warnings as "warning: ..." lines (or "no noise warnings").
std::string render_text(const HostFingerprint& host, const std::vector<NoiseWarning>& warnings);

// to_json(host) with "warnings": [{"id": ..., "message": ...}] added.
nlohmann::json render_json(const HostFingerprint& host, const std::vector<NoiseWarning>& warnings);

// The machine's interference profile (`culprit env --noise`): aligned lines, then the advice.
std::string render_noise_text(const NoiseProfile& profile);
nlohmann::json noise_json(const NoiseProfile& profile);

} // namespace culprit::host
