#include "core/store/records.hpp"

#include <array>
#include <chrono>
#include <optional>
#include <string_view>
#include <utility>

namespace culprit::store {
namespace {

constexpr std::array<std::pair<RunStatus, std::string_view>, 5> k_status_names = {{
    {RunStatus::ok, "ok"},
    {RunStatus::failed, "failed"},
    {RunStatus::timeout, "timeout"},
    {RunStatus::parse_error, "parse_error"},
    {RunStatus::interrupted, "interrupted"},
}};

} // namespace

TimePoint now() {
  return std::chrono::time_point_cast<std::chrono::microseconds>(Clock::now());
}

std::string_view to_string(RunStatus status) {
  for (const auto& [value, name] : k_status_names)
    if (value == status)
      return name;
  return "failed";
}

std::optional<RunStatus> parse_run_status(std::string_view text) {
  for (const auto& [value, name] : k_status_names)
    if (name == text)
      return value;
  return std::nullopt;
}

} // namespace culprit::store
