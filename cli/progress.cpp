#include "cli/progress.hpp"

#include <cstdio>

#include <fmt/format.h>
#include <unistd.h>

#include "cli/output.hpp"

namespace culprit::cli {

ProgressLine::ProgressLine(int verbosity)
    : m_active(verbosity >= 0 && isatty(STDERR_FILENO) != 0) {}

ProgressLine::~ProgressLine() {
  clear();
}

void ProgressLine::update(std::string_view text) {
  if (!m_active)
    return;
  fmt::print(stderr, "\r\033[K{}", on_terminal(text));
  std::fflush(stderr);
  m_shown = true;
}

void ProgressLine::clear() {
  if (m_active && m_shown) {
    fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
    m_shown = false;
  }
}

} // namespace culprit::cli
