#pragma once
// A progress line on stderr that rewrites itself: shown only on a terminal, never with --quiet.

#include <string_view>

namespace culprit::cli {

class ProgressLine {
public:
  explicit ProgressLine(int verbosity);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ProgressLine(ProgressLine&&) = delete;
  ProgressLine& operator=(ProgressLine&&) = delete;

  void update(std::string_view text);
  // Clears the line (before printing results).
  void clear();
  [[nodiscard]] bool active() const { return m_active; }

private:
  bool m_active = false;
  bool m_shown = false;
};

} // namespace culprit::cli
