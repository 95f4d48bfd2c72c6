#pragma once
// The terminal summary of a comparison: one row per case with both levels, the ratio, its
// interval and the verdict, then a line that counts the verdicts.

#include <string>

#include "core/evidence/evidence.hpp"

namespace culprit::report {

// What the comparison took from the store, when it took or left out anything: "stored: 10 of 20
// blocks were made by an earlier command; 15 runs of HEAD stored without HEAD~5 were left out
// (unpaired)". Empty when every block was made now and nothing was left out.
std::string render_reuse_line(const evidence::Evidence& evidence, const std::string& base_name,
                              const std::string& head_name);

std::string render_verdict_table(const evidence::Evidence& evidence, const std::string& base_name,
                                 const std::string& head_name);

} // namespace culprit::report
