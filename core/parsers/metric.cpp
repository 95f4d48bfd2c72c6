#include "core/parsers/metric.hpp"

namespace culprit::parsers {

std::string_view to_string(Direction direction) {
  return direction == Direction::lower_is_better ? "lower" : "higher";
}

std::optional<Direction> parse_direction(std::string_view text) {
  if (text == "lower")
    return Direction::lower_is_better;
  if (text == "higher")
    return Direction::higher_is_better;
  return std::nullopt;
}

} // namespace culprit::parsers
