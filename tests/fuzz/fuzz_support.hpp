#pragma once
// What every libFuzzer target here shares: the input as text, and a check that turns a broken
// contract of a parser (an error without a message, a message that spans lines) into a crash
// that libFuzzer reports.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/error.hpp"

namespace culprit::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size}; // NOLINT(*-reinterpret-cast)
}

// Errors are one line that says what is wrong: never empty, never several lines.
inline void check_error(const Error& error) {
  if (error.message.empty() || error.message.find('\n') != std::string::npos)
    std::abort();
}

template <class T> void check_result(const Result<T>& result) {
  if (!result)
    check_error(result.error());
}

} // namespace culprit::fuzz
