#pragma once
// Errors as values. Every fallible operation in core/ returns Result<T>: an expected value or an
// Error that carries the exit code of the command-line contract (culprit(1), EXIT STATUS) and a
// one-line message that says what went wrong and what to do about it.

#include <expected>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace culprit {

enum class ExitCode : int {
  success = 0,
  regression = 1,     // compare: a regression beyond the threshold
  usage = 2,          // usage or configuration error
  inconclusive = 3,   // the budget ran out before a confident answer
  infrastructure = 4, // builds or runs failed with no way around them
  not_reproduced = 5, // bisect: the regression between good and bad did not reproduce
  interrupted = 130,  // Ctrl-C; everything measured so far is kept
};

struct Error {
  ExitCode code = ExitCode::infrastructure;
  std::string message;
};

template <class T> using Result = std::expected<T, Error>;
using Status = std::expected<void, Error>;

inline std::unexpected<Error> fail(ExitCode code, std::string message) {
  return std::unexpected(Error{code, std::move(message)});
}

template <class... Args>
std::unexpected<Error> usage_error(fmt::format_string<Args...> format, Args&&... args) {
  return fail(ExitCode::usage, fmt::format(format, std::forward<Args>(args)...));
}

template <class... Args>
std::unexpected<Error> infra_error(fmt::format_string<Args...> format, Args&&... args) {
  return fail(ExitCode::infrastructure, fmt::format(format, std::forward<Args>(args)...));
}

} // namespace culprit

// Propagate an error from an expression that yields Result<T> or Status.
#define CULPRIT_TRY(expr)                                                                          \
  do {                                                                                             \
    if (auto culprit_try_result = (expr); !culprit_try_result)                                     \
      return std::unexpected(std::move(culprit_try_result.error()));                               \
  } while (false)

#define CULPRIT_CONCAT_INNER(a, b) a##b
#define CULPRIT_CONCAT(a, b) CULPRIT_CONCAT_INNER(a, b)
// NOLINTBEGIN(bugprone-macro-parentheses): `lhs` is a declaration and `tmp` a name.
#define CULPRIT_TRY_ASSIGN_IMPL(tmp, lhs, expr)                                                    \
  auto tmp = (expr);                                                                               \
  if (!tmp)                                                                                        \
    return std::unexpected(std::move(tmp.error()));                                                \
  lhs = std::move(*tmp)

// CULPRIT_TRY_ASSIGN(auto commit, repo.resolve(rev));
#define CULPRIT_TRY_ASSIGN(lhs, expr)                                                              \
  CULPRIT_TRY_ASSIGN_IMPL(CULPRIT_CONCAT(culprit_try_tmp_, __LINE__), lhs, expr)
// NOLINTEND(bugprone-macro-parentheses)
