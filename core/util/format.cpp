#include "core/util/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace culprit {

std::string format_ratio(double ratio) {
  return fmt::format("{:.3f}", ratio);
}

std::string format_ratio_ci(const std::array<double, 2>& ci) {
  return fmt::format("[{:.3f}, {:.3f}]", ci[0], ci[1]);
}

std::string counted(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string format_change(double ratio) {
  const double percent = (ratio - 1.0) * 100.0;
  // Avoid "-0.0%" for changes that round to zero.
  if (std::abs(percent) < 0.05)
    return "+0.0%";
  return fmt::format("{:+.1f}%", percent);
}

std::string format_change_ci(const std::array<double, 2>& ci) {
  return fmt::format("{} to {}", format_change(ci[0]), format_change(ci[1]));
}

std::string format_percent(double fraction) {
  auto text = fmt::format("{:.2f}", fraction * 100.0);
  while (text.back() == '0')
    text.pop_back();
  if (text.back() == '.')
    text.pop_back();
  return text + "%";
}

std::string format_cv(double cv) {
  if (!std::isfinite(cv))
    return "n/a";
  return fmt::format("{:.1f}%", std::abs(cv) * 100.0);
}

std::optional<std::array<double, 2>> share_interval(double share, double ratio,
                                                    const std::array<double, 2>& ci) {
  if (!(share != 0) || !(ratio > 0) || !(ci[0] > 0) || !(ci[1] > 0) || ratio == 1)
    return std::nullopt;
  const double whole = std::log(ratio) / share; // the log ratio of the whole change
  if (!std::isfinite(whole) || whole == 0)
    return std::nullopt;
  const double a = std::log(ci[0]) / whole;
  const double b = std::log(ci[1]) / whole;
  return std::array{std::min(a, b), std::max(a, b)};
}

std::string format_share(double share, const std::optional<std::array<double, 2>>& interval) {
  const double percent = std::round(share * 100.0);
  auto text = fmt::format("{:.0f}% of the whole change", percent == 0 ? 0.0 : percent);
  if (percent > 100 && interval) {
    // What the data shows: the culprit's own interval either holds the whole change, or lies
    // beyond it, and then another commit of the range moved the case back.
    const auto bounds =
        fmt::format("{:.0f}% to {:.0f}%", (*interval)[0] * 100, (*interval)[1] * 100);
    if ((*interval)[0] <= 1)
      text += fmt::format(" ({}: all of it, within the noise)", bounds);
    else
      text += fmt::format(" ({}): more than the range as a whole, so another commit of the range "
                          "moved the case back",
                          bounds);
  } else if (percent > 100) {
    text += ": more than the range as a whole, which other commits (or noise) moved back";
  } else if (percent < 0) {
    text += ": it moved the case against the range as a whole";
  }
  return text;
}

std::string format_p_value(double p) {
  if (!std::isfinite(p))
    return "n/a";
  if (p < 1e-6)
    return "<1e-06";
  if (p < 0.001)
    return fmt::format("{:.1e}", p);
  return fmt::format("{:.4f}", p);
}

std::string format_number(double value) {
  if (!std::isfinite(value))
    return "n/a";
  const double magnitude = std::abs(value);
  if (magnitude != 0 && (magnitude >= 1e6 || magnitude < 1e-3))
    return fmt::format("{:.3e}", value);
  if (magnitude >= 1000)
    return fmt::format("{:.0f}", value);
  return fmt::format("{:.4g}", value);
}

UnitScale unit_scale(double magnitude, std::string_view unit) {
  if (unit != "s")
    return {1, std::string(unit)};
  magnitude = std::abs(magnitude);
  if (magnitude >= 1 || magnitude == 0)
    return {1, "s"};
  if (magnitude >= 1e-3)
    return {1e-3, "ms"};
  if (magnitude >= 1e-6)
    return {1e-6, "µs"};
  return {1e-9, "ns"};
}

std::string format_significant(double value, int digits) {
  if (!std::isfinite(value))
    return "n/a";
  if (value == 0)
    return "0";
  const double magnitude = std::abs(value);
  if (magnitude >= 1e6 || magnitude < 1e-3)
    return fmt::format("{:.{}e}", value, digits - 1);
  // The exponent after rounding: 9.996 to three digits is 10.0, not 9.996's 9.
  const auto rounded = fmt::format("{:.{}e}", value, digits - 1);
  const long exponent = std::strtol(rounded.c_str() + rounded.find('e') + 1, nullptr, 10);
  return fmt::format("{:.{}f}", value, std::max(0L, digits - 1 - exponent));
}

std::string format_quantity(double value, std::string_view unit, int digits) {
  // The scale of the value as it will be written: 999.7 µs to three digits is 1.00 ms.
  const double rounded =
      std::isfinite(value) ? std::strtod(fmt::format("{:.{}e}", value, digits - 1).c_str(), nullptr)
                           : value;
  const auto scale = unit_scale(rounded, unit);
  const auto number = format_significant(value / scale.factor, digits);
  return scale.unit.empty() ? number : number + " " + scale.unit;
}

std::string format_bytes(std::int64_t bytes) {
  const double magnitude = std::abs(static_cast<double>(bytes));
  if (magnitude < 1024)
    return fmt::format("{} B", bytes);
  if (magnitude < 1024.0 * 1024)
    return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024);
  if (magnitude < 1024.0 * 1024 * 1024)
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024));
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
}

std::string format_byte_delta(std::int64_t delta) {
  if (delta == 0)
    return "0 B";
  return (delta > 0 ? "+" : "-") + format_bytes(std::abs(delta));
}

std::string short_id(std::string_view commit) {
  return std::string(commit.substr(0, 12));
}

bool same_commit(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty())
    return false;
  if (a == b)
    return true;
  const auto shorter = std::min(a.size(), b.size());
  return shorter >= 7 && a.substr(0, shorter) == b.substr(0, shorter);
}

} // namespace culprit
