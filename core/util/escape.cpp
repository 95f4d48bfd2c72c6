#include "core/util/escape.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <utility>

#include <fmt/format.h>

namespace culprit {
namespace {

// The length of the UTF-8 sequence at the start of `s` and its code point; 0 when the bytes
// there are not valid UTF-8 (overlong forms and surrogates included).
std::size_t decode_utf8(std::string_view s, char32_t& cp) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  char32_t min = 0;
  if (lead < 0x80) {
    cp = lead;
    return 1;
  }
  if ((lead & 0xE0U) == 0xC0U) {
    length = 2, cp = lead & 0x1FU, min = 0x80;
  } else if ((lead & 0xF0U) == 0xE0U) {
    length = 3, cp = lead & 0x0FU, min = 0x800;
  } else if ((lead & 0xF8U) == 0xF0U) {
    length = 4, cp = lead & 0x07U, min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() < length)
    return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0U) != 0x80U)
      return 0;
    cp = (cp << 6U) | (byte(i) & 0x3FU);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return length;
}

// Characters that change how a terminal or a text layout shows what follows them.
bool is_hazard(char32_t cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

void append_escape(std::string& out, char32_t cp) {
  switch (cp) {
  case '\n':
    out += "\\n";
    return;
  case '\r':
    out += "\\r";
    return;
  case '\t':
    out += "\\t";
    return;
  default:
    break;
  }
  if (cp < 0x80)
    out += fmt::format("\\x{:02x}", static_cast<unsigned>(cp));
  else
    out += fmt::format("\\u{{{:04x}}}", static_cast<unsigned>(cp));
}

// Characters that a format writes differently, and how.
using Replacements = std::span<const std::pair<char, std::string_view>>;

// Walks `text` as UTF-8: characters in `replace` become their replacement, hazards and bytes
// that are not UTF-8 become visible escapes, everything else is copied. Stops before the
// character whose rendering would make the result longer than `limit` bytes, and says so in
// `cut`.
std::string transform(std::string_view text, Replacements replace,
                      std::size_t limit = std::string::npos, bool* cut = nullptr) {
  std::string out;
  out.reserve(std::min(text.size(), limit));
  std::string piece;
  while (!text.empty()) {
    piece.clear();
    char32_t cp = 0;
    const std::size_t length = decode_utf8(text, cp);
    if (length == 0) {
      piece = fmt::format("\\x{:02x}", static_cast<unsigned char>(text.front()));
    } else {
      const auto with = std::ranges::find_if(replace, [&](const auto& r) {
        return cp < 0x80 && static_cast<char32_t>(r.first) == cp;
      });
      if (with != replace.end())
        piece = with->second;
      else if (is_hazard(cp))
        append_escape(piece, cp);
      else
        piece = text.substr(0, length);
    }
    if (out.size() + piece.size() > limit) {
      if (cut != nullptr)
        *cut = true;
      break;
    }
    out += piece;
    text.remove_prefix(std::max<std::size_t>(length, 1));
  }
  return out;
}

constexpr std::pair<char, std::string_view> k_html[] = {
    {'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\'', "&#39;"}};
// '>' needs no escape: it opens no tag without '<', and never starts a line here.
constexpr std::pair<char, std::string_view> k_markdown[] = {
    {'&', "&amp;"}, {'<', "&lt;"}, {'\\', "\\\\"}, {'`', "\\`"}, {'*', "\\*"},
    {'_', "\\_"},   {'[', "\\["},  {']', "\\]"},   {'|', "\\|"}, {'~', "\\~"},
    {'#', "\\#"},   {'!', "\\!"},  {'$', "\\$"}};
constexpr std::pair<char, std::string_view> k_table_cell[] = {{'|', "\\|"}};
constexpr std::pair<char, std::string_view> k_github_message[] = {
    {'%', "%25"}, {'\r', "%0D"}, {'\n', "%0A"}};
constexpr std::pair<char, std::string_view> k_github_property[] = {
    {'%', "%25"}, {'\r', "%0D"}, {'\n', "%0A"}, {':', "%3A"}, {',', "%2C"}};

std::size_t longest_backtick_run(std::string_view text) {
  std::size_t longest = 0;
  std::size_t run = 0;
  for (const char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

bool shell_safe(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

} // namespace

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    char32_t cp = 0;
    const std::size_t length = decode_utf8(text, cp);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      text.remove_prefix(1);
    } else {
      out.append(text.substr(0, length));
      text.remove_prefix(length);
    }
  }
  return out;
}

std::string terminal_safe(std::string_view text) {
  return transform(text, {});
}

std::string terminal_safe(std::string_view text, std::size_t max_bytes) {
  return transform(text, {}, max_bytes);
}

namespace {

// The columns one code point takes: Markus Kuhn's wcwidth, in short (combining marks 0; East
// Asian wide and fullwidth 2).
std::size_t code_point_width(char32_t cp) {
  constexpr std::array<std::pair<char32_t, char32_t>, 9> k_combining = {{{0x0300, 0x036F},
                                                                         {0x0483, 0x0489},
                                                                         {0x0591, 0x05BD},
                                                                         {0x0610, 0x061A},
                                                                         {0x064B, 0x065F},
                                                                         {0x200B, 0x200F},
                                                                         {0x20D0, 0x20FF},
                                                                         {0xFE00, 0xFE0F},
                                                                         {0xFE20, 0xFE2F}}};
  constexpr std::array<std::pair<char32_t, char32_t>, 10> k_wide = {{{0x1100, 0x115F},
                                                                     {0x2E80, 0x303E},
                                                                     {0x3041, 0x33FF},
                                                                     {0x3400, 0x4DBF},
                                                                     {0x4E00, 0x9FFF},
                                                                     {0xA000, 0xA4CF},
                                                                     {0xAC00, 0xD7A3},
                                                                     {0xF900, 0xFAFF},
                                                                     {0xFE30, 0xFE4F},
                                                                     {0xFF00, 0xFF60}}};
  const auto in = [cp](const auto& ranges) {
    return std::ranges::any_of(ranges,
                               [cp](const auto& r) { return cp >= r.first && cp <= r.second; });
  };
  if (in(k_combining))
    return 0;
  if (in(k_wide) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
      (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD))
    return 2;
  return 1;
}

} // namespace

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  while (!text.empty()) {
    char32_t cp = 0;
    const std::size_t length = decode_utf8(text, cp);
    width += length == 0 ? 1 : code_point_width(cp);
    text.remove_prefix(std::max<std::size_t>(length, 1));
  }
  return width;
}

std::string terminal_cell(std::string_view text, std::size_t columns) {
  std::string out;
  std::size_t width = 0;
  while (!text.empty()) {
    char32_t cp = 0;
    const std::size_t length = std::max<std::size_t>(decode_utf8(text, cp), 1);
    const auto piece = transform(text.substr(0, length), {});
    const auto piece_width = display_width(piece);
    if (width + piece_width > columns)
      break;
    out += piece;
    width += piece_width;
    text.remove_prefix(length);
  }
  out.append(columns - width, ' ');
  return out;
}

std::size_t character_boundary(std::string_view text, std::size_t at) {
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0U) == 0x80U)
    --at;
  return at;
}

std::string excerpt(std::string_view text, std::size_t max_bytes) {
  bool cut = false;
  auto out = transform(text, {}, max_bytes, &cut);
  if (cut)
    out += fmt::format("... ({} bytes in all)", text.size());
  return out;
}

std::string ellipsize(std::string_view text, std::size_t limit) {
  std::size_t points = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0U) == 0x80U)
      continue;
    if (points++ == limit)
      return std::string(text.substr(0, i)) + "…";
  }
  return std::string(text);
}

std::string html_escape(std::string_view text) {
  return transform(text, k_html);
}

std::string markdown_text(std::string_view text) {
  return transform(text, k_markdown);
}

std::string markdown_code(std::string_view text, InTable in_table) {
  auto body =
      transform(text, in_table == InTable::yes ? Replacements(k_table_cell) : Replacements());
  const std::string fence(longest_backtick_run(body) + 1, '`');
  // A span that starts or ends with a backtick (or is all spaces) needs a space inside the fence.
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`' ||
                                     body.find_first_not_of(' ') == std::string::npos);
  if (body.empty())
    return "` `";
  return pad ? fence + " " + body + " " + fence : fence + body + fence;
}

std::string markdown_fence(std::string_view text) {
  std::string fence(std::max<std::size_t>(3, longest_backtick_run(text) + 1), '`');
  return fence;
}

std::string shell_quote(std::string_view arg) {
  if (!arg.empty() && std::ranges::all_of(arg, shell_safe))
    return std::string(arg);
  const bool has_control = std::ranges::any_of(arg, [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7F;
  });
  if (!has_control) {
    std::string out = "'";
    for (const char c : arg)
      out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }
  std::string out = "$'";
  for (const char c : arg) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\'' || c == '\\')
      out += std::string("\\") + c;
    else if (byte < 0x20 || byte == 0x7F)
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(byte));
    else
      out += c;
  }
  return out + "'";
}

std::string shell_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : argv) {
    if (!out.empty())
      out += ' ';
    out += shell_quote(arg);
  }
  return out;
}

std::optional<std::vector<std::string>> simple_command_words(std::string_view command) {
  // POSIX's special built-ins, the regular ones that act on the shell itself, and those a shell
  // runs in place of a program of the same name, which may not behave alike (dash's echo reads
  // backslash escapes, /bin/echo does not; bash's time is a keyword).
  static constexpr std::array<std::string_view, 37> k_builtins = {
      ".",      "alias", "bg",      "break",  "cd",    "command", "continue", "echo",
      "eval",   "exec",  "exit",    "export", "false", "fg",      "getopts",  "hash",
      "jobs",   "kill",  "local",   "printf", "pwd",   "read",    "readonly", "return",
      "set",    "shift", "test",    "time",   "times", "trap",    "true",     "type",
      "ulimit", "umask", "unalias", "unset",  "wait"};
  std::vector<std::string> words;
  std::size_t i = 0;
  const auto blank = [&] { return command[i] == ' ' || command[i] == '\t'; };
  while (i < command.size()) {
    if (blank()) {
      ++i;
      continue;
    }
    std::string word;
    while (i < command.size() && !blank()) {
      const char c = command[i];
      if (c == '\'' || c == '"') {
        const auto end = command.find(c, i + 1);
        if (end == std::string_view::npos)
          return std::nullopt;
        const auto quoted = command.substr(i + 1, end - i - 1);
        if (c == '"' && quoted.find_first_of("$`\\") != std::string_view::npos)
          return std::nullopt;
        word += quoted;
        i = end + 1;
      } else if (shell_safe(c)) {
        word += c;
        ++i;
      } else {
        return std::nullopt;
      }
    }
    words.push_back(std::move(word));
  }
  if (words.empty() || words.front().empty())
    return std::nullopt;
  const auto& first = words.front();
  if (first.find('=') != std::string::npos ||
      std::ranges::find(k_builtins, first) != k_builtins.end())
    return std::nullopt;
  return words;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos)
    return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"')
      out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_text_cell(std::string_view text) {
  auto cell = terminal_safe(text);
  // Tab and CR are escaped by now; they stay in the list should that ever change.
  if (!cell.empty() && std::string_view("=+-@\t\r").find(cell.front()) != std::string_view::npos)
    cell.insert(cell.begin(), '\'');
  return csv_field(cell);
}

std::string github_message(std::string_view text) {
  return transform(text, k_github_message);
}

std::string github_property(std::string_view text) {
  return transform(text, k_github_property);
}

} // namespace culprit
