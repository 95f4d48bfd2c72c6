#pragma once
// Progress on stderr, never with --quiet. On a terminal, one line that rewrites itself. Anywhere
// else (a CI log, a file) whole lines, so that a long command is never silent: one for each step
// (a probe, a tracked commit, a change point), and one at least every 30 s in between with the
// latest state (what is being measured, runs so far, what is left).

#include <chrono>
#include <string>
#include <string_view>

#include "cli/command.hpp"

namespace culprit::cli {

class ProgressLine {
public:
  explicit ProgressLine(Verbosity verbosity);
  // For tests: whether stderr is a terminal, and how often a line comes without a step.
  ProgressLine(Verbosity verbosity, bool terminal, std::chrono::steady_clock::duration every);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ProgressLine(ProgressLine&&) = delete;
  ProgressLine& operator=(ProgressLine&&) = delete;

  // The latest state: shown at once on a terminal, elsewhere when the last line is old enough.
  void update(std::string_view text);
  // A new step: shown at once everywhere.
  void step(std::string_view text);
  // Clears the line (before printing results).
  void clear();
  [[nodiscard]] bool active() const { return m_terminal; }

private:
  void print_line(std::string_view text);

  bool m_enabled = false;
  bool m_terminal = false;
  bool m_shown = false;
  std::chrono::steady_clock::duration m_every;
  std::chrono::steady_clock::time_point m_last_line;
  std::string m_last_text;
};

} // namespace culprit::cli
