#pragma once
// Checks for numeric flags that say each flag's real bounds in words ("--every: 0 is out of
// range: give a whole number from 1 to 1000000"), and the bounds themselves, the same as the
// config file's (core/recipe/recipe.hpp).

#include <cstdint>

#include <CLI/CLI.hpp>

namespace culprit::cli {

// A whole number in [min, max], in decimal digits: no sign, fraction or exponent, so that "-1"
// and "1e23" are refused rather than wrapped or clamped.
CLI::Validator whole_number(std::uint64_t min, std::uint64_t max);
// A number of seconds, more than 0 and at most `max`.
CLI::Validator seconds_up_to(double max);
// A number strictly between `low` and `high`, e.g. a confidence level.
CLI::Validator number_between(double low, double high, const char* example);

} // namespace culprit::cli
