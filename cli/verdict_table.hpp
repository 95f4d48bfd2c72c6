#pragma once
// The terminal summary of a comparison: one row per case with both levels, the ratio, its
// interval and the verdict, then a line that counts the verdicts.

#include <string>

#include "core/evidence.hpp"

namespace culprit::cli {

std::string render_verdict_table(const Evidence& evidence, const std::string& base_name,
                                 const std::string& head_name);

} // namespace culprit::cli
