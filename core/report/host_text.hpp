#pragma once
// What `culprit env` shows people: the host's fingerprint and its noise warnings, and the
// machine's interference profile (--noise). The JSON of both is core/host/json.hpp.

#include <string>
#include <vector>

#include "core/host/fingerprint.hpp"
#include "core/host/noise.hpp"
#include "core/host/noise_probe.hpp"

namespace culprit::report {

// Aligned "label  value" lines, then the warnings as "warning: ..." lines (or "no noise warnings").
std::string render_host_text(const host::HostFingerprint& host,
                             const std::vector<host::NoiseWarning>& warnings);

// The machine's interference profile (`culprit env --noise`): aligned lines, then the advice.
std::string render_noise_profile(const host::NoiseProfile& profile);

} // namespace culprit::report
