#include "core/util/clock.hpp"

#include <chrono>

#include <fmt/chrono.h>

namespace culprit {

std::string utc_now_iso8601() {
  return utc_iso8601(std::chrono::system_clock::now());
}

std::string utc_iso8601(std::chrono::system_clock::time_point time) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::floor<std::chrono::seconds>(time));
}

} // namespace culprit
