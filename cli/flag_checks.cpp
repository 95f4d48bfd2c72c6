#include "cli/flag_checks.hpp"

#include <charconv>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "core/util/escape.hpp"

namespace culprit::cli {
namespace {

// The value as a message quotes it: short and printable, whatever was typed.
std::string shown_value(const std::string& value) {
  return "'" + excerpt(value, 40) + "'";
}

// A number as it was typed, read whole by from_chars; nullopt for anything else ("", "1.5x",
// " 2", "nan").
template <class T> std::optional<T> parse_exactly(const std::string& text) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end)
    return std::nullopt;
  return value;
}

} // namespace

CLI::Validator whole_number(std::uint64_t min, std::uint64_t max) {
  return {[min, max](std::string& text) -> std::string {
            const auto bounds = fmt::format("give a whole number from {} to {}", min, max);
            const bool digits =
                !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
            if (!digits)
              return fmt::format("{} is not a whole number: {}", shown_value(text), bounds);
            const auto value = parse_exactly<std::uint64_t>(text);
            if (!value || *value < min || *value > max)
              return fmt::format("{} is out of range: {}", shown_value(text), bounds);
            return {};
          },
          ""};
}

CLI::Validator seconds_up_to(double max) {
  return {[max](std::string& text) -> std::string {
            const auto value = parse_exactly<double>(text);
            const auto bounds =
                fmt::format("give a number of seconds more than 0 and at most {:g}", max);
            if (!value || !std::isfinite(*value))
              return fmt::format("{} is not a number: {}", shown_value(text), bounds);
            if (!(*value > 0) || *value > max)
              return fmt::format("{} is out of range: {}", shown_value(text), bounds);
            return {};
          },
          ""};
}

CLI::Validator number_between(double low, double high, const char* example) {
  return {[low, high, example](std::string& text) -> std::string {
            const auto value = parse_exactly<double>(text);
            const auto bounds = fmt::format(
                "give a number more than {:g} and less than {:g}, e.g. {}", low, high, example);
            if (!value || !std::isfinite(*value))
              return fmt::format("{} is not a number: {}", shown_value(text), bounds);
            if (*value <= low || *value >= high)
              return fmt::format("{} is out of range: {}", shown_value(text), bounds);
            return {};
          },
          ""};
}

} // namespace culprit::cli
