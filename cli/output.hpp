#pragma once
// Where bytes go: results to stdout, messages to stderr. Only cli/ decides this.

#include <string_view>

#include "core/error.hpp"

namespace culprit::cli {

// "culprit: error: <message>" on stderr, one line.
void print_error(std::string_view message);
void print_warning(std::string_view message);
// Reports an Error and returns its exit code.
int report(const Error& error);

} // namespace culprit::cli
