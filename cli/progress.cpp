#include "cli/progress.hpp"

#include <cstdio>

#include <fmt/format.h>
#include <unistd.h>

#include "cli/output.hpp"

namespace culprit::cli {
namespace {

constexpr auto k_line_every = std::chrono::seconds(30);

} // namespace

ProgressLine::ProgressLine(Verbosity verbosity)
    : ProgressLine(verbosity, isatty(STDERR_FILENO) != 0, k_line_every) {}

ProgressLine::ProgressLine(Verbosity verbosity, bool terminal,
                           std::chrono::steady_clock::duration every)
    : m_enabled(verbosity != Verbosity::quiet), m_terminal(m_enabled && terminal), m_every(every),
      m_last_line(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() {
  clear();
}

void ProgressLine::update(std::string_view text) {
  if (!m_enabled)
    return;
  if (m_terminal) {
    write_stderr(fmt::format("\r\033[K{}", terminal_safe(text)));
    m_shown = true;
    return;
  }
  if (std::chrono::steady_clock::now() - m_last_line >= m_every)
    print_line(text);
}

void ProgressLine::step(std::string_view text) {
  if (!m_enabled)
    return;
  if (m_terminal)
    update(text);
  else
    print_line(text);
}

void ProgressLine::print_line(std::string_view text) {
  m_last_line = std::chrono::steady_clock::now();
  if (text == m_last_text)
    return;
  m_last_text = std::string(text);
  write_stderr(fmt::format("culprit: {}\n", terminal_safe(text)));
}

void ProgressLine::clear() {
  if (m_terminal && m_shown) {
    write_stderr("\r\033[K");
    m_shown = false;
  }
}

} // namespace culprit::cli
