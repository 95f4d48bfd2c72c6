#pragma once
// Input checks shared by every entry point: each bad input becomes an Error whose message names
// the input ("base", "head", "series", ...), the offending value and what to do.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "stats/error.hpp"
#include "stats/types.hpp"

namespace culprit::stats {

enum class Positivity : std::uint8_t { any, positive };

// At least min_count values, every one finite, and every one > 0 when positivity is positive.
Status check_sample(std::span<const double> values, std::string_view name, std::size_t min_count,
                    Positivity positivity = Positivity::any);

// At least min_runs runs, none of them empty, and every sample as check_sample demands.
Status check_runs(const Runs& runs, std::string_view name, std::size_t min_runs,
                  Positivity positivity = Positivity::any);

// A probability strictly between 0 and 1 (a confidence level, a power, a significance level).
Status check_probability(double value, std::string_view name);

// A relative threshold delta in [0, 1): 0.02 is 2%.
Status check_threshold(double threshold);

// low < value < high, and low <= value <= high; false for NaN.
inline bool strictly_between(double value, double low, double high) {
  return value > low && value < high;
}
inline bool between(double value, double low, double high) {
  return value >= low && value <= high;
}

} // namespace culprit::stats
