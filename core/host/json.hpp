#pragma once
// The host's fingerprint with its noise warnings, and the machine's interference profile, as the
// JSON of `culprit env --json` and of the evidence's "host". What people read is
// core/report/host_text.hpp.

#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/host/fingerprint.hpp"
#include "core/host/noise.hpp"
#include "core/host/noise_probe.hpp"

namespace culprit::host {

// to_json(host) with "warnings": [{"id": ..., "message": ...}] added.
nlohmann::json render_json(const HostFingerprint& host, const std::vector<NoiseWarning>& warnings);

nlohmann::json noise_json(const NoiseProfile& profile);

} // namespace culprit::host
