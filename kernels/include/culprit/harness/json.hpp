#pragma once
// Writing JSON records without a JSON library, so that any C++17 compiler (nvcc's host compiler
// included) takes the harness: string escaping, number formatting, and a builder for one object.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace culprit::harness {

namespace detail {

// Length of the valid UTF-8 sequence at the start of `text`, or 0 when it is not one
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
inline std::size_t utf8_sequence_length(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    low = lead == 0xE0 ? 0xA0 : 0x80;
    high = lead == 0xED ? 0x9F : 0xBF;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    low = lead == 0xF0 ? 0x90 : 0x80;
    high = lead == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (text.size() < length)
    return 0;
  if (byte(1) < low || byte(1) > high)
    return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF)
      return 0;
  }
  return length;
}

} // namespace detail

// Appends `text` as a JSON string literal, quotes included. Quotes, backslashes and control
// characters are escaped; bytes that are not valid UTF-8 become U+FFFD, so the output is always
// valid JSON whatever the input (a device name, a file name, an error message).
inline void append_json_string(std::string& out, std::string_view text) {
  static constexpr char k_hex[] = "0123456789abcdef";
  out += '"';
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = detail::utf8_sequence_length(text.substr(i));
      if (length == 0) {
        out += "\xEF\xBF\xBD";
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    default:
      if (c < 0x20) {
        out += "\\u00";
        out += k_hex[c >> 4U];
        out += k_hex[c & 0xFU];
      } else {
        out += static_cast<char>(c);
      }
    }
    ++i;
  }
  out += '"';
}

// Appends the shortest of "%.15g", "%.16g", "%.17g" that reads back as the same double.
// Precondition: `value` is finite (JSON has no NaN or infinity); callers check.
inline void append_json_number(std::string& out, double value) {
  char buffer[32];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (precision == 17 || std::strtod(buffer, nullptr) == value)
      break;
  }
  for (char* p = buffer; *p != '\0'; ++p) {
    // A program that switched LC_NUMERIC would get a decimal comma; JSON wants a point.
    if (*p == ',')
      *p = '.';
  }
  out += buffer;
}

// Builds one JSON object, one key at a time, in the order given. Keys are not checked for
// duplicates: the writers in this harness use fixed keys.
class JsonObject {
public:
  JsonObject& string_field(std::string_view key, std::string_view value) {
    append_key(key);
    append_json_string(m_text, value);
    return *this;
  }
  JsonObject& number_field(std::string_view key, double value) {
    append_key(key);
    append_json_number(m_text, value);
    return *this;
  }
  JsonObject& integer_field(std::string_view key, std::int64_t value) {
    append_key(key);
    m_text += std::to_string(value);
    return *this;
  }
  JsonObject& bool_field(std::string_view key, bool value) {
    append_key(key);
    m_text += value ? "true" : "false";
    return *this;
  }
  JsonObject& string_map_field(std::string_view key,
                               const std::vector<std::pair<std::string, std::string>>& entries) {
    append_key(key);
    m_text += '{';
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (i > 0)
        m_text += ',';
      append_json_string(m_text, entries[i].first);
      m_text += ':';
      append_json_string(m_text, entries[i].second);
    }
    m_text += '}';
    return *this;
  }

  // Another object as the value of `key`.
  JsonObject& object_field(std::string_view key, const JsonObject& value) {
    append_key(key);
    m_text += value.m_text + "}";
    return *this;
  }

  // The object as one line, newline included.
  std::string line() const { return m_text + "}\n"; }

private:
  void append_key(std::string_view key) {
    m_text += m_text.size() == 1 ? "" : ",";
    append_json_string(m_text, key);
    m_text += ':';
  }

  std::string m_text = "{";
};

} // namespace culprit::harness
