#pragma once
// Making foreign text (commit subjects, authors, case names) inert in the formats a history is
// written in.

#include <string>
#include <string_view>

namespace culprit::history {

// Control characters (C0, DEL) become visible escapes such as "\x1b"; the rest passes.
std::string terminal_safe(std::string_view text);
// terminal_safe, then & < > " ' as character references: safe in HTML/SVG text and attributes.
std::string html_escape(std::string_view text);
// Inline Markdown (also in a table cell) that renders as the characters given.
std::string markdown_text(std::string_view text);
// An RFC 4180 field: quoted, with quotes doubled, when it holds a comma, quote or line break.
std::string csv_field(std::string_view text);

} // namespace culprit::history
