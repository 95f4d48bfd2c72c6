#pragma once
// Numbers and names as every report writes them, so that text, Markdown, HTML, JUnit and the
// annotations agree to the digit. These return plain text; renderers escape it for their format.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace culprit {

// "1 case", "2 cases": the count and the word that goes with it.
std::string counted(std::size_t n, std::string_view one, std::string_view many);
// "1.081"
std::string format_ratio(double ratio);
// "[1.062, 1.100]"
std::string format_ratio_ci(const std::array<double, 2>& ci);
// The ratio as a relative change: "+8.1%", "-4.9%", "+0.0%".
std::string format_change(double ratio);
// "+6.2% to +10.0%"
std::string format_change_ci(const std::array<double, 2>& ci);
// A fraction as a percentage without trailing zeros: 0.02 -> "2%", 0.955 -> "95.5%".
std::string format_percent(double fraction);
// A coefficient of variation as a percentage with one decimal: 0.006 -> "0.6%", 0 -> "0.0%";
// never negative ("-0.0%"), and "n/a" for one that is not a number.
std::string format_cv(double cv);
// A culprit's share of a case's whole change, in whole percent, explained where it is outside
// [0, 100%]: "60% of the whole change"; "107% of the whole change: more than the range as a whole,
// which other commits (or noise) moved back"; "-12% of the whole change: it moved the case
// against the range as a whole".
// With `interval` (the share at either end of the culprit's own interval, share_interval), a share
// over 100% says what the data shows: "102% of the whole change (97% to 106%: all of it, within
// the noise)", or "135% ... (128% to 141%): more than the range as a whole, so another commit of
// the range moved the case back".
std::string format_share(double share,
                         const std::optional<std::array<double, 2>>& interval = std::nullopt);
// The share at either end of a culprit's interval `ci` of its `ratio`, whose share is `share`
// (so the whole change is log(ratio) / share); none when a ratio is not positive.
std::optional<std::array<double, 2>> share_interval(double share, double ratio,
                                                    const std::array<double, 2>& ci);
// A p-value: "0.0004", "<1e-06".
std::string format_p_value(double p);
// A measured value with its unit, scaled for reading, to four significant digits with their
// trailing zeros, so that the numbers of a row or an interval read alike: (0.00412, "s") ->
// "4.120 ms", (0.069e-6, "s") -> "69.00 ns"; units other than seconds are kept: (1.5e9, "B/s") ->
// "1.500e+09 B/s". The one formatter of measured values, in every output.
std::string format_quantity(double value, std::string_view unit, int digits = 4);
// `digits` significant digits with their trailing zeros: 69 -> "69.00", 1 -> "1.000", 786 ->
// "786.0", 1234 -> "1234"; below 1e-3 and from 1e6 on in e-notation ("1.500e+09").
std::string format_significant(double value, int digits = 4);
// The scale that format_quantity would pick for values around `magnitude`: divide by `factor`
// and write `unit` after the number.
struct UnitScale {
  double factor = 1;
  std::string unit;
};
UnitScale unit_scale(double magnitude, std::string_view unit);
// Four significant digits, no exponent for ordinary magnitudes: 4.1234 -> "4.123".
std::string format_number(double value);
// "1.2 MiB", "512 B"
std::string format_bytes(std::int64_t bytes);
// "+80.0 KiB", "-12 B", "0 B"
std::string format_byte_delta(std::int64_t delta);
// The first 12 characters of a commit id (or the revision as given when shorter).
std::string short_id(std::string_view commit);
// Two commit ids or prefixes of one: equal when one starts with the other (at least 7 digits).
bool same_commit(std::string_view a, std::string_view b);

} // namespace culprit
