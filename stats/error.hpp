#pragma once
// Errors of the statistics library, as values: an error kind a caller can branch on and a
// one-line message that says what was wrong with the input and what to do about it.
// culprit_stats depends on nothing of ours, so it has its own error type; core/ maps it to its
// own Error when it calls in.

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace culprit::stats {

enum class ErrorKind : std::uint8_t {
  empty,            // no values at all
  too_few,          // fewer values (or runs) than the method needs
  non_finite,       // a NaN or an infinity among the values
  non_positive,     // zero or a negative value where a ratio or a logarithm is asked
  invalid_argument, // an option out of its range (a confidence of 2, zero resamples, ...)
  degenerate,       // the data leave the quantity undefined (a step of zero size, ...)
  too_large,        // the input would need more memory or time than is reasonable
};

std::string_view to_string(ErrorKind kind);

struct Error {
  ErrorKind kind = ErrorKind::invalid_argument;
  std::string message;
};

template <class T> using Result = std::expected<T, Error>;
using Status = std::expected<void, Error>;

template <class... Args>
std::unexpected<Error> fail(ErrorKind kind, fmt::format_string<Args...> format, Args&&... args) {
  return std::unexpected(Error{kind, fmt::format(format, std::forward<Args>(args)...)});
}

} // namespace culprit::stats

// Propagate the error of an expression that yields Result<T> or Status.
#define CULPRIT_STATS_TRY(expr)                                                                    \
  do {                                                                                             \
    if (auto culprit_stats_result = (expr); !culprit_stats_result)                                 \
      return std::unexpected(std::move(culprit_stats_result.error()));                             \
  } while (false)

// NOLINTBEGIN(bugprone-macro-parentheses): `lhs` is a declaration and `tmp` a name.
#define CULPRIT_STATS_CONCAT_INNER(a, b) a##b
#define CULPRIT_STATS_CONCAT(a, b) CULPRIT_STATS_CONCAT_INNER(a, b)
#define CULPRIT_STATS_TRY_ASSIGN_IMPL(tmp, lhs, expr)                                              \
  auto tmp = (expr);                                                                               \
  if (!tmp)                                                                                        \
    return std::unexpected(std::move(tmp.error()));                                                \
  lhs = std::move(*tmp)

// CULPRIT_STATS_TRY_ASSIGN(auto interval, ratio_interval(base, head, options));
#define CULPRIT_STATS_TRY_ASSIGN(lhs, expr)                                                        \
  CULPRIT_STATS_TRY_ASSIGN_IMPL(CULPRIT_STATS_CONCAT(culprit_stats_try_, __LINE__), lhs, expr)
// NOLINTEND(bugprone-macro-parentheses)
