#include "stats/error.hpp"

#include <string_view>

namespace culprit::stats {

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::empty:
    return "empty";
  case ErrorKind::too_few:
    return "too_few";
  case ErrorKind::non_finite:
    return "non_finite";
  case ErrorKind::non_positive:
    return "non_positive";
  case ErrorKind::invalid_argument:
    return "invalid_argument";
  case ErrorKind::degenerate:
    return "degenerate";
  case ErrorKind::too_large:
    return "too_large";
  }
  return "invalid_argument";
}

} // namespace culprit::stats
