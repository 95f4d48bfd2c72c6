#include "cli/output.hpp"

#include <cstdio>

#include <fmt/format.h>

namespace culprit::cli {

void print_error(std::string_view message) {
  fmt::print(stderr, "culprit: error: {}\n", message);
}

void print_warning(std::string_view message) {
  fmt::print(stderr, "culprit: warning: {}\n", message);
}

int report(const Error& error) {
  print_error(error.message);
  return static_cast<int>(error.code);
}

} // namespace culprit::cli
