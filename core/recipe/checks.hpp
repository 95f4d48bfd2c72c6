#pragma once
// What reading culprit.toml (recipe.cpp) and applying the flags over it (overrides.cpp) share:
// the check of a statistic's name and errors flattened to one line.

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/util/error.hpp"

namespace culprit::recipe::detail {

// "auto" or a statistic of stats/run_statistic.hpp; a usage error that says what is allowed.
Status check_statistic(std::string_view name);

// Errors are one line: control characters from the file (a TOML parser's "saw '...'", a quoted
// key, a glob) are shown escaped.
template <class T> Result<T> one_line(Result<T> result) {
  if (result)
    return result;
  std::string flat;
  for (const char c : result.error().message) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f)
      flat += fmt::format("\\x{:02x}", byte);
    else
      flat += c;
  }
  result.error().message = std::move(flat);
  return result;
}

} // namespace culprit::recipe::detail
