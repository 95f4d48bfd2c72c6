#pragma once
// Where bytes go: results to stdout, messages to stderr. Only cli/ decides this, and every byte
// that reaches a terminal from outside culprit (revisions, commit subjects, case names, host
// names, file names) goes through terminal_safe() (core/util/escape.hpp), the one escaping
// function for terminals.

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "core/util/error.hpp"
#include "core/util/escape.hpp"

namespace culprit::cli {

// "culprit: error: <message>" on stderr, one line: control characters are escaped, and a message
// that would fill the screen is cut in its middle, keeping what it says to do at its end.
// Diagnostics on standard error. One that cannot be written (stderr closed, on a full disk, or a
// pipe whose reader has gone) is dropped: the command's exit code says what happened, never an
// abort or a death by SIGPIPE.
void write_stderr(std::string_view text);
void print_error(std::string_view message);
void print_warning(std::string_view message);
// Prints an Error as print_error does and returns its exit code.
int print_failure(const Error& error);

// A summary onto `stream`, standard output or standard error (summary_stream), never throwing
// as fmt::print does when a write fails: onto standard error it is a diagnostic (write_stderr);
// onto standard output a failure stays in the stream's error flag, and finish_stdout reports it
// once the evidence is written.
void write_to(std::FILE* stream, std::string_view text);
template <class... Args>
void print_to(std::FILE* stream, fmt::format_string<Args...> format, Args&&... args) {
  write_to(stream, fmt::format(format, std::forward<Args>(args)...));
}

// Writes `text` to standard output and flushes it: a full disk, /dev/full or a closed descriptor
// is an infrastructure error that says so.
Status write_stdout(std::string_view text);
// Flushes standard output and tells whether everything written to it since the start arrived.
Status finish_stdout();

} // namespace culprit::cli
