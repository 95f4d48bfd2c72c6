#pragma once
// core/ calls into culprit_stats, whose errors are its own: this maps them to core's Error.
// Bad data from a benchmark (a zero time where a ratio is asked, a NaN) is the benchmark's
// problem, reported as an infrastructure failure naming the case.

#include <string_view>
#include <utility>

#include "core/util/error.hpp"
#include "stats/error.hpp"

namespace culprit {

inline Error from_stats(const stats::Error& error, std::string_view context) {
  const ExitCode code =
      error.kind == stats::ErrorKind::invalid_argument ? ExitCode::usage : ExitCode::infrastructure;
  return Error{code,
               context.empty() ? error.message : fmt::format("{}: {}", context, error.message)};
}

template <class T> Result<T> lift(stats::Result<T> result, std::string_view context = {}) {
  if (!result)
    return std::unexpected(from_stats(result.error(), context));
  if constexpr (std::is_void_v<T>)
    return {};
  else
    return std::move(*result);
}

} // namespace culprit
