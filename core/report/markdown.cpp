// The Markdown report: for a pull-request comment or a bug. The verdict is the first line; the
// raw numbers are folded away in a <details> block.

#include <fmt/format.h>

#include "core/report/report.hpp"
#include "core/report/roofline_text.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::report {
namespace {

constexpr std::size_t k_max_files = 20;
constexpr std::size_t k_max_raw_rows = 200;

// A code span in a table cell, where GFM needs | escaped.
std::string cell(std::string_view text) {
  return markdown_code(text, InTable::yes);
}

std::string code(std::string_view text) {
  return markdown_code(text);
}

std::string code_list(const std::vector<std::string>& items, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < limit; ++i)
    out += (i == 0 ? "" : ", ") + code(items[i]);
  if (items.size() > limit)
    out += fmt::format(" and {} more", items.size() - limit);
  return out;
}

std::string text_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items)
    out += (out.empty() ? "" : ", ") + markdown_text(item);
  return out;
}

std::string verdict_cell(std::string_view verdict) {
  const auto text = markdown_text(verdict);
  return verdict == "slower" || verdict == "faster" ? "**" + text + "**" : text;
}

std::string level_of(const evidence::Evidence& e, const evidence::EvidenceComparison& c,
                     Side side) {
  const auto level = compared_level(e, c, side);
  return level == "-" ? "–" : markdown_text(level);
}

void write_cases(std::string& out, const evidence::Evidence& e, const ReportView& v) {
  if (v.cases.empty())
    return;
  out += fmt::format("| case | base | head | ratio | {} | change | verdict |\n",
                     markdown_text(v.confidence_label));
  out += "|:--|--:|--:|--:|:--|--:|:--|\n";
  for (const auto* c : v.cases)
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", cell(c->case_name),
                       level_of(e, *c, Side::base), level_of(e, *c, Side::head),
                       format_ratio(c->ratio), format_ratio_ci(c->ci),
                       markdown_text(format_change(c->ratio)), verdict_cell(c->verdict));
  const auto* first = v.cases.front();
  out +=
      fmt::format("\nBase {}, head {}; threshold {}.\n", code(short_id(first->base)),
                  code(short_id(first->head)), markdown_text(format_percent(e.settings.threshold)));
  std::string notes;
  for (const auto* c : v.cases)
    if (!c->note.empty())
      notes += fmt::format("- {}: {}\n", code(c->case_name), markdown_text(c->note));
  if (!notes.empty())
    out += "\n" + notes;
}

void write_hints(std::string& out, const evidence::EvidenceHints& h) {
  if (h.diffstat)
    out += fmt::format("- **Diff:** {}\n", markdown_text(diffstat_line(*h.diffstat)));
  if (h.artifacts)
    out += fmt::format("- **Artifacts:** {}\n", markdown_text(artifacts_line(*h.artifacts)));
  for (const auto& a :
       h.artifacts ? h.artifacts->changed : std::vector<evidence::EvidenceSizeChange>{})
    out += fmt::format("  - {}: {}\n", code(a.name), markdown_text(size_change_line(a)));
  if (!h.symbols.empty()) {
    out += "- **Symbols whose size changed most:**\n";
    for (const auto& s : h.symbols)
      out += fmt::format("  - {} in {}: {}\n", code(s.name), code(s.artifact),
                         markdown_text(size_change_line(s)));
  }
  for (const auto& note : h.notes)
    out += fmt::format("- *{}*\n", markdown_text(note));
  if (const auto kernels = changed_kernels(h); !kernels.empty()) {
    out += "\n| kernel | arch | what changed (ptxas) |\n|:--|:--|:--|\n";
    for (const auto* k : kernels)
      out += fmt::format("| {} | {} | {} |\n", cell(k->name), cell(k->arch),
                         markdown_text(k->description));
  } else if (!h.kernels.empty()) {
    out +=
        fmt::format("- **Kernels:** {} compared by ptxas, resources unchanged\n", h.kernels.size());
  }
}

void write_culprits(std::string& out, const evidence::Evidence& e, const ReportView& v) {
  for (const auto& c : e.bisect->culprits) {
    out += fmt::format("\n#### Culprit {}: {}\n\n", code(short_id(c.commit)),
                       markdown_text(c.subject));
    out += fmt::format("- **Commit:** {} (parent {})\n", code(c.commit), code(short_id(c.parent)));
    out += fmt::format("- **Author:** {}{}, {}\n", markdown_text(c.author),
                       c.email.empty() ? "" : " " + markdown_text("<" + c.email + ">"),
                       markdown_text(c.date));
    const auto change = [&](const evidence::EvidenceCulpritCase& moved) {
      auto text =
          markdown_text(culprit_change(moved, v.confidence_label)) + " on " + code(moved.name);
      if (moved.share)
        text += ", " + markdown_text(share_text(e, moved));
      for (const auto& line : in_time_lines(e, moved, v.confidence_label))
        text += "; " + markdown_text(line);
      if (const auto counts = counters_line(moved); !counts.empty())
        text += "; " + markdown_text(counts);
      return text;
    };
    if (c.cases.size() == 1) {
      out += fmt::format("- **Change:** {}\n", change(c.cases.front()));
    } else {
      out += fmt::format("- **Changes ({} cases):**\n", c.cases.size());
      for (const auto& moved : c.cases)
        out += fmt::format("  - {}\n", change(moved));
    }
    out += fmt::format("- **Files:** {}\n",
                       c.files.empty() ? std::string("none") : code_list(c.files, k_max_files));
    out += fmt::format("- **Owners:** {}\n",
                       c.owners.empty() ? std::string("none in CODEOWNERS") : text_list(c.owners));
    if (c.hints)
      write_hints(out, *c.hints);
  }
}

void write_bisection(std::string& out, const evidence::Evidence& e, const ReportView& v) {
  const auto& b = *e.bisect;
  const auto skipped = std::ranges::count_if(
      b.steps, [](const evidence::EvidenceStep& s) { return s.classified == "skip"; });
  out += fmt::format("\n**Bisection:** {} from good {} to bad {}; {} probed, {} skipped.\n",
                     counted(b.commits_in_range, "commit", "commits"), code(short_id(b.good)),
                     code(short_id(b.bad)), b.steps.size(), skipped);
  if (!b.candidates.empty()) {
    out += fmt::format("**Candidates left ({}):**\n", b.candidates.size());
    for (std::size_t i = 0; i < b.candidates.size(); ++i)
      out +=
          fmt::format("- {}{}\n", code(short_id(b.candidates[i])),
                      i < b.candidate_subjects.size() ? " " + markdown_text(b.candidate_subjects[i])
                                                      : std::string());
  }
  out +=
      fmt::format("\n<details><summary>Bisection path ({})</summary>\n\n",
                  v.path_order_known ? "in commit order" : "in an order inferred from the probes");
  out += "| probe | commit | verdict | position | runs | note |\n|--:|:--|:--|--:|--:|:--|\n";
  for (const auto& p : v.path) {
    std::string position;
    if (p.step != nullptr && p.step->position)
      position = fmt::format("{:.2f}", *p.step->position);
    std::string note = p.culprit ? "**culprit**" : "";
    if (p.step != nullptr && !p.step->note.empty())
      note += (note.empty() ? "" : " ") + markdown_text(p.step->note);
    out += fmt::format(
        "| {} | {} | {} | {} | {} | {} |\n", p.endpoint ? "end" : std::to_string(p.probe),
        cell(short_id(p.commit)), markdown_text(p.role), position,
        p.step != nullptr && p.step->runs > 0 ? std::to_string(p.step->runs) : "", note);
  }
  out += "\n</details>\n";
}

// Folded away under the comparisons; open when there are none (a run).
void write_raw(std::string& out, const evidence::Evidence& e, const ReportView& v) {
  if (e.measurements.empty())
    return;
  if (!out.ends_with("\n\n"))
    out += "\n";
  out += v.cases.empty() ? "<details open><summary>Measurements</summary>\n\n"
                         : "<details><summary>Raw numbers</summary>\n\n";
  out += "| commit | case | runs | median | CI | run medians |\n|:--|:--|--:|--:|:--|:--|\n";
  for (std::size_t i = 0; i < e.measurements.size() && i < k_max_raw_rows; ++i) {
    const auto& m = e.measurements[i];
    const auto scale = unit_scale(m.summary.median, m.unit);
    std::string medians;
    for (const double x : run_medians(m))
      medians += (medians.empty() ? "" : " ") + format_significant(x / scale.factor, 4);
    out += fmt::format(
        "| {} | {} | {} | {} | {} | {} |\n", cell(short_id(m.commit)), cell(m.case_name),
        m.runs.size(), markdown_text(format_quantity(m.summary.median, m.unit)),
        fmt::format("[{}, {}] {}", format_significant(m.summary.ci[0] / scale.factor, 4),
                    format_significant(m.summary.ci[1] / scale.factor, 4),
                    markdown_text(scale.unit)),
        medians);
  }
  if (e.measurements.size() > k_max_raw_rows)
    out += fmt::format("\n{} more measurements are in the evidence JSON.\n",
                       e.measurements.size() - k_max_raw_rows);
  out += "\n</details>\n";
}

} // namespace

namespace {

void write_roofline(std::string& out, const evidence::Evidence& e) {
  const auto section = roofline_section(e);
  if (section.empty())
    return;
  out += "\n**Roofline:**\n\n";
  for (const auto& peaks : section.peaks)
    out += fmt::format("- peaks of {}\n", markdown_text(peaks));
  for (const auto& [what, move] : section.moves)
    out += fmt::format("- {}: {}\n", markdown_text(what), markdown_text(move));
  for (const auto& [name, note] : section.notes)
    out += fmt::format("- {}: {}\n", code(name), markdown_text(note));
  if (!section.rows.empty()) {
    out += "\n| case | achieved | FLOP/byte | of the bound | bound by |\n|:--|--:|--:|:--|:--|\n";
    for (const auto& row : section.rows)
      out += fmt::format("| {} | {} | {} | {} | {} |\n", cell(row[0]), markdown_text(row[1]),
                         markdown_text(row[2]), markdown_text(row[3]), markdown_text(row[4]));
  }
}

} // namespace

std::string render_markdown(const evidence::Evidence& e, const RenderOptions& options) {
  const auto v = make_view(e, options);
  std::string out =
      fmt::format("### {}: {}\n\n", markdown_text(v.title), markdown_text(v.headline));
  write_cases(out, e, v);
  const bool measurements_first = v.cases.empty(); // a run: its measurements are the result
  if (measurements_first)
    write_raw(out, e, v);
  write_roofline(out, e);
  if (e.bisect) {
    write_culprits(out, e, v);
    write_bisection(out, e, v);
  }
  for (const auto& warning : e.warnings)
    out += fmt::format("\n> **Warning:** {}\n", markdown_text(warning));
  const auto fence = markdown_fence(v.reproduce);
  out +=
      fmt::format("\n**Reproduce:**\n\n{}sh\n{}\n{}\n", fence, terminal_safe(v.reproduce), fence);
  out += "\n**Environment:**\n\n";
  for (const auto& [label, value] : v.environment)
    out += fmt::format("- {}: {}\n", markdown_text(label), markdown_text(value));
  if (!measurements_first)
    write_raw(out, e, v);
  return out;
}

} // namespace culprit::report
