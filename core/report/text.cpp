// The text report: aligned plain text for a terminal or a CI log.

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/report/report.hpp"
#include "core/report/roofline_text.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::report {
namespace {

// The width of text on a terminal, counting each UTF-8 code point as one column.
std::size_t columns(std::string_view text) {
  return static_cast<std::size_t>(std::ranges::count_if(
      text, [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }));
}

std::string pad(std::string text, std::size_t width) {
  const auto w = columns(text);
  if (w < width)
    text.append(width - w, ' ');
  return text;
}

class Writer {
public:
  explicit Writer(bool color) : m_color(color) {}

  void line(std::string_view text = {}) {
    while (text.ends_with(' '))
      text.remove_suffix(1);
    m_out += text;
    m_out += '\n';
  }
  void heading(std::string_view text) {
    line();
    line(paint(text, "1"));
  }
  // "  label      value"; further values on their own lines, aligned.
  void field(std::string_view label, const std::vector<std::string>& values) {
    for (std::size_t i = 0; i < values.size(); ++i)
      line(fmt::format("  {}{}", pad(i == 0 ? std::string(label) : "", 11), values[i]));
  }
  void field(std::string_view label, std::string value) {
    field(label, std::vector{std::move(value)});
  }

  // Rows of cells (already safe), the first a header; columns in `right` align right.
  void table(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right,
             std::size_t colored_column = std::string::npos) {
    std::vector<std::size_t> widths;
    for (const auto& row : rows)
      for (std::size_t i = 0; i < row.size(); ++i) {
        widths.resize(std::max(widths.size(), row.size()));
        widths[i] = std::max(widths[i], columns(row[i]));
      }
    for (std::size_t r = 0; r < rows.size(); ++r) {
      std::string text = " ";
      for (std::size_t i = 0; i < rows[r].size(); ++i) {
        const auto& cell = rows[r][i];
        const auto fill = std::string(widths[i] - columns(cell), ' ');
        const bool last = i + 1 == rows[r].size();
        auto shown = r > 0 && i == colored_column ? verdict(cell) : cell;
        text += (i == 0 ? " " : "  ") +
                (i < right.size() && right[i] ? fill + shown : shown + (last ? "" : fill));
      }
      line(text);
    }
  }

  [[nodiscard]] std::string paint(std::string_view text, std::string_view code) const {
    if (!m_color)
      return std::string(text);
    return fmt::format("\x1b[{}m{}\x1b[0m", code, text);
  }
  [[nodiscard]] std::string verdict(std::string_view word) const {
    if (word == "slower" || word == "bad")
      return paint(word, "31");
    if (word == "faster" || word == "good")
      return paint(word, "32");
    if (word == "inconclusive" || word == "skip" || word == "intermediate")
      return paint(word, "33");
    return std::string(word);
  }

  std::string take() { return std::move(m_out); }

private:
  bool m_color;
  std::string m_out;
};

std::string level_of(const evidence::Evidence& e, const evidence::EvidenceComparison& c,
                     Side side) {
  return terminal_safe(compared_level(e, c, side));
}

void write_cases(Writer& w, const evidence::Evidence& e, const ReportView& v) {
  if (v.cases.empty())
    return;
  const auto* first = v.cases.front();
  w.heading(fmt::format("Cases (base {}, head {}; threshold {})", short_id(first->base),
                        short_id(first->head), format_percent(e.settings.threshold)));
  std::vector<std::vector<std::string>> rows{
      {"case", "base", "head", "ratio", v.confidence_label, "change", "verdict"}};
  for (const auto* c : v.cases) {
    auto name = terminal_safe(c->case_name);
    if (!same_commit(c->base, first->base) || !same_commit(c->head, first->head))
      name += fmt::format(" ({}..{})", short_id(c->base), short_id(c->head));
    rows.push_back({name, level_of(e, *c, Side::base), level_of(e, *c, Side::head),
                    format_ratio(c->ratio), format_ratio_ci(c->ci), format_change(c->ratio),
                    terminal_safe(c->verdict)});
  }
  w.table(rows, {false, true, true, true, false, true, false}, 6);
  for (const auto* c : v.cases)
    if (!c->note.empty())
      w.line(fmt::format("  {}: {}", terminal_safe(c->case_name), terminal_safe(c->note)));
}

// Without comparisons (a run), the measurements themselves.
void write_measurements(Writer& w, const evidence::Evidence& e, const ReportView& v) {
  if (!v.cases.empty() || e.measurements.empty())
    return;
  w.heading("Measurements");
  std::vector<std::vector<std::string>> rows{
      {"case", "commit", "runs", "median", v.confidence_label, "cv"}};
  for (const auto& m : e.measurements)
    rows.push_back({terminal_safe(m.case_name), terminal_safe(short_id(m.commit)),
                    std::to_string(m.runs.size()),
                    terminal_safe(format_quantity(m.summary.median, m.unit)),
                    terminal_safe(fmt::format("[{}, {}]", format_quantity(m.summary.ci[0], m.unit),
                                              format_quantity(m.summary.ci[1], m.unit))),
                    format_cv(m.summary.cv)});
  w.table(rows, {false, false, true, true, false, true});
}

std::vector<std::string> safe_all(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const auto& item : items)
    out.push_back(terminal_safe(item));
  return out;
}

void write_hints(Writer& w, const evidence::EvidenceHints& h) {
  if (h.diffstat) {
    std::vector<std::string> lines{diffstat_line(*h.diffstat)};
    lines.reserve(1 + h.diffstat->by_file.size());
    for (const auto& f : h.diffstat->by_file)
      lines.push_back(fmt::format("{} {}", terminal_safe(f.path),
                                  f.binary ? std::string("binary")
                                           : fmt::format("+{} -{}", f.insertions, f.deletions)));
    w.field("diff", lines);
  }
  if (const auto kernels = changed_kernels(h); !kernels.empty()) {
    std::vector<std::string> lines;
    lines.reserve(kernels.size());
    for (const auto* k : kernels)
      lines.push_back(fmt::format("{} ({}): {}", terminal_safe(k->name), terminal_safe(k->arch),
                                  terminal_safe(k->description)));
    w.field("kernels", lines);
  } else if (!h.kernels.empty()) {
    w.field("kernels", fmt::format("{} kernels, resources unchanged", h.kernels.size()));
  }
  if (h.artifacts) {
    std::vector<std::string> lines{artifacts_line(*h.artifacts)};
    lines.reserve(1 + h.artifacts->changed.size());
    for (const auto& a : h.artifacts->changed)
      lines.push_back(fmt::format("{}: {}", terminal_safe(a.name), size_change_line(a)));
    w.field("artifacts", lines);
  }
  std::vector<std::string> symbols;
  symbols.reserve(h.symbols.size());
  for (const auto& s : h.symbols)
    symbols.push_back(fmt::format("{} in {}: {}", terminal_safe(s.name), terminal_safe(s.artifact),
                                  size_change_line(s)));
  if (!symbols.empty())
    w.field("symbols", symbols);
  if (!h.notes.empty())
    w.field("notes", safe_all(h.notes));
}

void write_culprits(Writer& w, const evidence::Evidence& e, const ReportView& v) {
  const auto& culprits = e.bisect->culprits;
  for (std::size_t i = 0; i < culprits.size(); ++i) {
    const auto& c = culprits[i];
    const auto cases =
        c.cases.size() == 1 ? std::string() : fmt::format(", {} cases", c.cases.size());
    w.heading(culprits.size() == 1 ? fmt::format("Culprit {}{}", short_id(c.commit), cases)
                                   : fmt::format("Culprit {} of {}: {}{}", i + 1, culprits.size(),
                                                 short_id(c.commit), cases));
    w.field("subject", terminal_safe(c.subject));
    w.field("author",
            terminal_safe(c.email.empty() ? c.author : fmt::format("{} <{}>", c.author, c.email)));
    w.field("date", terminal_safe(c.date));
    w.field("commit", terminal_safe(c.commit));
    w.field("parent", terminal_safe(c.parent));
    std::vector<std::string> changes;
    for (const auto& moved : c.cases) {
      auto change = culprit_change(moved, v.confidence_label) + " on " + terminal_safe(moved.name);
      if (moved.share)
        change += ", " + share_text(e, moved);
      for (const auto& line : in_time_lines(e, moved, v.confidence_label))
        change += "; " + terminal_safe(line);
      if (const auto counts = counters_line(moved); !counts.empty())
        change += "; " + terminal_safe(counts);
      changes.push_back(std::move(change));
    }
    w.field(c.cases.size() == 1 ? "change" : "changes", changes);
    w.field("files", c.files.empty() ? std::vector<std::string>{"(none)"} : safe_all(c.files));
    w.field("owners", c.owners.empty() ? std::string("(none in CODEOWNERS)")
                                       : fmt::format("{}", fmt::join(safe_all(c.owners), ", ")));
    if (c.hints)
      write_hints(w, *c.hints);
  }
}

void write_roofline(Writer& w, const evidence::Evidence& e) {
  const auto section = roofline_section(e);
  if (section.empty())
    return;
  w.heading("Roofline");
  for (const auto& peaks : section.peaks)
    w.field("peaks", terminal_safe(peaks));
  if (!section.rows.empty()) {
    std::vector<std::vector<std::string>> rows{
        {"case", "achieved", "FLOP/byte", "of the bound", "bound by"}};
    for (const auto& row : section.rows)
      rows.push_back({terminal_safe(row[0]), row[1], row[2], row[3], row[4]});
    w.table(rows, {false, true, true, false, false});
  }
  for (const auto& [what, move] : section.moves)
    w.line(fmt::format("  {}: {}", terminal_safe(what), move));
  for (const auto& [name, note] : section.notes)
    w.line(fmt::format("  {}: {}", terminal_safe(name), terminal_safe(note)));
}

std::string step_position(const evidence::EvidenceStep* s) {
  if (s == nullptr || !s->position)
    return "";
  auto text = fmt::format("{:.2f}", *s->position);
  if (s->ci)
    text += fmt::format(" [{:.2f}, {:.2f}]", (*s->ci)[0], (*s->ci)[1]);
  return text;
}

void write_bisection(Writer& w, const evidence::Evidence& e, const ReportView& v) {
  const auto& b = *e.bisect;
  w.heading(
      fmt::format("Bisection: {} from good {} to bad {}, {} probed ({})",
                  counted(b.commits_in_range, "commit", "commits"), short_id(b.good),
                  short_id(b.bad), b.steps.size(),
                  v.path_order_known ? "in commit order" : "in an order inferred from the probes"));
  std::vector<std::vector<std::string>> rows{
      {"probe", "commit", "verdict", "position (0 good, 1 bad)", "runs", "note"}};
  for (const auto& p : v.path) {
    rows.push_back({p.endpoint ? "end" : std::to_string(p.probe), terminal_safe(short_id(p.commit)),
                    terminal_safe(p.role), step_position(p.step),
                    p.step != nullptr && p.step->runs > 0 ? std::to_string(p.step->runs) : "",
                    (p.culprit ? std::string("culprit ") : std::string()) +
                        (p.step != nullptr ? terminal_safe(p.step->note) : "")});
  }
  w.table(rows, {true, false, false, false, true, false}, 2);
  if (!b.candidates.empty()) {
    w.heading("Candidates");
    for (std::size_t i = 0; i < b.candidates.size(); ++i)
      w.line("  " + terminal_safe(b.candidate_line(i, std::string::npos)));
  }
}

} // namespace

std::string render_text(const evidence::Evidence& e, const RenderOptions& options) {
  const auto v = make_view(e, options);
  Writer w(options.color);
  w.line(w.paint(fmt::format("{}: {}", v.title, terminal_safe(v.headline)), "1"));
  write_cases(w, e, v);
  write_measurements(w, e, v);
  write_roofline(w, e);
  if (e.bisect) {
    write_culprits(w, e, v);
    write_bisection(w, e, v);
  }
  w.heading("Reproduce");
  w.line("  " + terminal_safe(v.reproduce));
  w.heading("Environment");
  for (const auto& [label, value] : v.environment)
    w.field(label, terminal_safe(value));
  if (!e.warnings.empty()) {
    w.heading("Warnings");
    for (const auto& warning : e.warnings)
      w.line("  " + terminal_safe(warning));
  }
  return w.take();
}

} // namespace culprit::report
