#pragma once
// What every libFuzzer target here shares: the input as text, and a check that turns a broken
// contract of a parser (an error without a message, a message that spans lines) into a crash
// that libFuzzer reports.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/util/error.hpp"

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

// Text that is safe to print on a terminal: valid UTF-8 without C0 controls (but the line breaks
// in `allowed`), DEL, C1 controls or bidirectional overrides. Checked with a decoder of its own,
// not the one the escaper uses.
inline void check_inert_on_a_terminal(std::string_view text, std::string_view allowed = {}) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t length = 1;
    std::uint32_t cp = lead;
    if (lead >= 0xF0 && lead < 0xF5)
      length = 4, cp = lead & 0x07U;
    else if (lead >= 0xE0 && lead < 0xF0)
      length = 3, cp = lead & 0x0FU;
    else if (lead >= 0xC2 && lead < 0xE0)
      length = 2, cp = lead & 0x1FU;
    else if (lead >= 0x80)
      std::abort(); // a stray continuation byte or an invalid lead
    if (i + length > text.size())
      std::abort();
    for (std::size_t k = 1; k < length; ++k) {
      const auto byte = static_cast<unsigned char>(text[i + k]);
      if ((byte & 0xC0U) != 0x80U)
        std::abort();
      cp = (cp << 6U) | (byte & 0x3FU);
    }
    const bool control = cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0);
    const bool bidi = cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
                      (cp >= 0x2066 && cp <= 0x2069);
    if ((control && allowed.find(static_cast<char>(cp)) == std::string_view::npos) || bidi ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      std::abort();
    i += length;
  }
}

} // namespace culprit::fuzz
