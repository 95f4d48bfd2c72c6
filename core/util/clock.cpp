#include "core/util/clock.hpp"

#include <chrono>

#include <fmt/chrono.h>

namespace culprit {

std::string utc_now_iso8601() {
  const auto now =
      std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now);
}

} // namespace culprit
