#pragma once
// Escaping for every place culprit puts text that came from outside: commit subjects, author
// names, file names, case names, kernel names, revisions, command arguments, host names. Such
// text may hold markup or control characters, by accident or by malice ("<script>",
// "| **x**", "\x1b[31m"); each format has one function here that makes it inert, and every
// renderer, report and terminal line (messages included) passes foreign strings through it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit {

// Text that is safe to print on a terminal: C0 and C1 control characters, DEL and the Unicode
// bidirectional overrides become visible escapes ("\x1b", "\n", "\u{202e}"), and bytes that are
// not UTF-8 become "\xNN". Everything else passes unchanged.
std::string terminal_safe(std::string_view text);
// terminal_safe, cut to at most `max_bytes` bytes before the character (or escape) that would
// pass them, as excerpt cuts but without its note: a table cell.
std::string terminal_safe(std::string_view text, std::size_t max_bytes);

// The columns `text` takes on a terminal: two for a wide character (CJK, Hangul, fullwidth
// forms, most emoji), none for a combining mark, one for any other character and for each byte
// that is not UTF-8.
std::size_t display_width(std::string_view text);
// terminal_safe, cut before the character (or escape) that would make it wider than `columns`,
// then padded with spaces to `columns`: a left-aligned cell of a table whose columns are counted
// on the screen, not in bytes.
std::string terminal_cell(std::string_view text, std::size_t columns);

// The largest n <= `at` that does not fall inside a UTF-8 sequence of `text`.
std::size_t character_boundary(std::string_view text, std::size_t at);

// `text` with every byte that is not part of a valid UTF-8 sequence replaced by U+FFFD, so that
// a JSON writer (which refuses invalid UTF-8) and every reader can take it. Valid text is
// returned unchanged.
std::string valid_utf8(std::string_view text);

// `text`, written in the character set `encoding` names (a commit's `encoding` header:
// "ISO-8859-1", "Shift_JIS", ...; empty means UTF-8), as UTF-8. Bytes the conversion cannot
// take, and text in an encoding iconv does not know, are kept as valid_utf8 keeps them.
std::string to_utf8(std::string_view text, std::string_view encoding);

// How a message quotes a value it was given, which may be a megabyte long or hold control
// characters: terminal_safe, cut before the character that would make it longer than
// `max_bytes`, then "... (N bytes in all)" when it was cut.
std::string excerpt(std::string_view text, std::size_t max_bytes = 80);

// Text cut to `limit` code points (UTF-8), with "…" when it was cut: a commit subject in a
// progress line or a table. Not an escape: pass the result through the one its place needs.
std::string ellipsize(std::string_view text, std::size_t limit);

// terminal_safe, then & < > " ' as character references: safe in HTML and XML text and
// attribute values (also in XML 1.0, which allows no control characters at all).
std::string html_escape(std::string_view text);

// Inline Markdown text (GitHub Flavoured Markdown) that renders as the characters given, also
// inside a table cell: terminal_safe, markup characters backslash-escaped, < and & as references.
std::string markdown_text(std::string_view text);

enum class InTable { no, yes };
// A Markdown code span holding `text` literally: a backtick fence longer than any run of
// backticks inside. In a table cell, | is escaped as GFM requires.
std::string markdown_code(std::string_view text, InTable in_table = InTable::no);
// A fence for a code block that holds `text`: at least three backticks, more than any run inside.
std::string markdown_fence(std::string_view text);

// An RFC 4180 field: quoted, with quotes doubled, when it holds a comma, quote or line break.
std::string csv_field(std::string_view text);

// A text cell of a CSV file that a spreadsheet may open (a case name, a host, a revision; never a
// number): terminal_safe, then a ' before a first character of = + - @ tab or CR, so that the
// spreadsheet reads text where it would run a formula (OWASP, "CSV Injection"), then csv_field.
std::string csv_text_cell(std::string_view text);

// One argument as a POSIX shell reads it back: bare when it has only safe characters, in single
// quotes otherwise, and in $'...' with escapes when it holds control characters.
std::string shell_quote(std::string_view arg);
std::string shell_command(const std::vector<std::string>& argv);

// The words of a shell command that is one simple command of plain words, as /bin/sh would pass
// them to the program: words of safe characters, '...' and "..." (without $, ` or \ inside),
// separated by blanks, the first neither an assignment nor a shell builtin that changes the
// shell or the words after it (cd, exec, eval, ...). Anything else (a pipe, a redirection, a
// variable, a glob, a second command): none, and the command is the shell's to run.
std::optional<std::vector<std::string>> simple_command_words(std::string_view command);

// GitHub Actions workflow commands (::error ...::message): the message escapes % CR LF, a
// property value also : and , (as the Actions toolkit does); both are terminal_safe too.
std::string github_message(std::string_view text);
std::string github_property(std::string_view text);

} // namespace culprit
