#pragma once
// The parts of an evidence document that stay JSON (the host fingerprint; a triage document's
// change_points, findings, regressions and search), checked for the types their renderers read.

#include <string_view>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace culprit::evidence {

// A usage error naming the first value of another type than the writer gives it (absent keys
// are fine); `kind` is the document's kind ("triage" has keys of its own).
Status check_raw_parts(const nlohmann::json& doc, std::string_view kind);

} // namespace culprit::evidence
