// The HTML report: one self-contained page. Everything it shows is inline (styles, SVG plots);
// a Content-Security-Policy forbids the page from loading anything, so it opens offline and
// leaks nothing.

#include <fmt/format.h>

#include "core/report/html_style.hpp"
#include "core/report/plots.hpp"
#include "core/report/report.hpp"
#include "core/report/roofline_text.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::report {
namespace {

constexpr std::size_t k_max_plots = 8;

std::string h(std::string_view text) {
  return html_escape(text);
}

std::string code(std::string_view text) {
  return "<code>" + html_escape(text) + "</code>";
}

std::string verdict_span(std::string_view verdict) {
  return fmt::format("<span class=\"v-{}\">{}</span>", css_class_of(verdict), h(verdict));
}

std::string_view header_class(std::string_view status) {
  if (status == "slower" || status == "culprit_found" || status == "failed")
    return "alarm";
  if (status == "faster" || status == "no_change")
    return "ok";
  if (status == "inconclusive" || status == "not_reproduced")
    return "warn";
  return "";
}

std::string level_cell(const evidence::Evidence& e, const evidence::EvidenceComparison& c,
                       Side side) {
  const auto level = compared_level(e, c, side);
  return fmt::format("<td class=\"num\">{}</td>", level == "-" ? "–" : h(level));
}

void write_cases(std::string& out, const evidence::Evidence& e, const ReportView& v) {
  if (v.cases.empty())
    return;
  const auto* first = v.cases.front();
  out += fmt::format("<section id=\"cases\"><h2>Cases</h2>\n<p class=\"muted\">Base {}, head {}; "
                     "threshold {}, {}.</p>\n",
                     code(short_id(first->base)), code(short_id(first->head)),
                     h(format_percent(e.settings.threshold)), h(v.confidence_label));
  out += fmt::format("<table><thead><tr><th>case</th><th class=\"num\">base</th><th "
                     "class=\"num\">head</th><th class=\"num\">ratio</th><th>{}</th><th "
                     "class=\"num\">change</th><th class=\"num\">p</th><th>verdict</th>"
                     "<th>note</th></tr></thead><tbody>\n",
                     h(v.confidence_label));
  for (const auto* c : v.cases)
    out += fmt::format("<tr><td>{}</td>{}{}<td class=\"num\">{}</td><td class=\"num\">{}</td>"
                       "<td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td>"
                       "</tr>\n",
                       code(c->case_name), level_cell(e, *c, Side::base),
                       level_cell(e, *c, Side::head), format_ratio(c->ratio),
                       format_ratio_ci(c->ci), h(format_change(c->ratio)),
                       h(format_p_value(c->p_value)), verdict_span(c->verdict), h(c->note));
  out += "</tbody></table>\n";
  out += fmt::format("<figure>{}<figcaption>The ratio of head to base for each case with its {}; "
                     "the shaded band is no change (within ±{}).</figcaption></figure>\n",
                     forest_plot(e, v), h(v.confidence_label),
                     h(format_percent(e.settings.threshold)));
  out += "</section>\n";
}

std::string resources(const std::optional<evidence::EvidenceKernelResources>& r,
                      std::string_view what) {
  if (!r)
    return "–";
  if (what == "registers")
    return std::to_string(r->registers);
  if (what == "spills")
    return fmt::format("{} / {} B", r->spill_store_bytes, r->spill_load_bytes);
  if (what == "stack")
    return fmt::format("{} B", r->stack_bytes);
  return fmt::format("{} B", r->shared_bytes);
}

void write_kernels(std::string& out, const evidence::EvidenceHints& hints) {
  if (hints.kernels.empty())
    return;
  out += "<table class=\"kernels\"><thead><tr><th>kernel</th><th>arch</th>"
         "<th class=\"num\">registers</th><th class=\"num\">spill stores / loads</th>"
         "<th class=\"num\">stack</th><th class=\"num\">shared</th><th>change</th></tr></thead>"
         "<tbody>\n";
  for (const auto& k : hints.kernels) {
    const auto pair = [&](std::string_view what) {
      const auto before = resources(k.parent, what);
      const auto after = resources(k.culprit, what);
      return before == after ? h(after) : h(before) + " → " + h(after);
    };
    out += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}"
                       "</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                       code(k.name), h(k.arch), pair("registers"), pair("spills"), pair("stack"),
                       pair("shared"),
                       h(k.change == "unchanged" ? ""
                         : k.description.empty() ? k.change
                                                 : k.description));
  }
  out += "</tbody></table>\n";
}

void write_hints(std::string& out, const evidence::EvidenceHints& hints) {
  out += "<h3>What changed</h3>\n<dl class=\"facts\">\n";
  if (hints.diffstat) {
    out +=
        fmt::format("<dt>diff</dt><dd>{}<ul class=\"plain\">", h(diffstat_line(*hints.diffstat)));
    for (const auto& f : hints.diffstat->by_file)
      out += fmt::format("<li>{} {}</li>", code(f.path),
                         f.binary ? std::string("binary")
                                  : fmt::format("+{} −{}", f.insertions, f.deletions));
    out += "</ul></dd>\n";
  }
  if (hints.artifacts) {
    out += fmt::format("<dt>artifacts</dt><dd>{}<ul class=\"plain\">",
                       h(artifacts_line(*hints.artifacts)));
    for (const auto& a : hints.artifacts->changed)
      out += fmt::format("<li>{}: {}</li>", code(a.name), h(size_change_line(a)));
    out += "</ul></dd>\n";
  }
  if (!hints.symbols.empty()) {
    out += "<dt>symbols</dt><dd><ul class=\"plain\">";
    for (const auto& s : hints.symbols)
      out += fmt::format("<li>{} in {}: {}</li>", code(s.name), code(s.artifact),
                         h(size_change_line(s)));
    out += "</ul></dd>\n";
  }
  for (const auto& note : hints.notes)
    out += fmt::format("<dt>note</dt><dd>{}</dd>\n", h(note));
  out += "</dl>\n";
  write_kernels(out, hints);
}

// The counter diff of a culprit's case: each count of the parent and of the culprit, and how it
// moved.
std::string counters_table(const evidence::EvidenceCulpritCase& moved) {
  const auto& counters = *moved.counters;
  if (counters.changes.empty())
    return fmt::format("<dt>counts</dt><dd>none ({})</dd>\n", h(counters.note));
  std::string out = fmt::format(
      "<dt>counts</dt><dd>{}<table class=\"counters\"><thead><tr><th>count</th><th "
      "class=\"num\">parent</th><th class=\"num\">culprit</th><th class=\"num\">change</th>"
      "</tr></thead><tbody>\n",
      counters.case_name == moved.name ? "" : "of the whole program " + code(counters.case_name));
  for (const auto& change : counters.changes)
    out += fmt::format("<tr><td>{}</td><td class=\"num\">{:.0f}</td><td class=\"num\">{:.0f}</td>"
                       "<td class=\"num\">{}</td></tr>\n",
                       h(count_label(change.metric)), change.parent, change.culprit,
                       change.parent > 0 ? h(format_change(change.culprit / change.parent)) : "");
  return out + "</tbody></table></dd>\n";
}

void write_culprits(std::string& out, const evidence::Evidence& e, const ReportView& v) {
  const auto& culprits = e.bisect->culprits;
  if (culprits.empty())
    return;
  out += fmt::format("<section id=\"culprits\"><h2>{}</h2>\n",
                     culprits.size() == 1 ? "Culprit" : "Culprits");
  for (const auto& c : culprits) {
    out += fmt::format("<article class=\"culprit\"><h3>{} {}</h3>\n<dl class=\"facts\">\n",
                       code(short_id(c.commit)), h(c.subject));
    out += fmt::format("<dt>commit</dt><dd>{} (parent {})</dd>\n", code(c.commit),
                       code(short_id(c.parent)));
    out += fmt::format("<dt>author</dt><dd>{}{}</dd>\n<dt>date</dt><dd>{}</dd>\n", h(c.author),
                       c.email.empty() ? "" : " &lt;" + h(c.email) + "&gt;", h(c.date));
    for (const auto& moved : c.cases) {
      auto change = h(culprit_change(moved, v.confidence_label)) + " on " + code(moved.name);
      if (moved.share)
        change += ", " + h(share_text(e, moved));
      out += fmt::format("<dt>change</dt><dd>{}</dd>\n", change);
      for (const auto& line : in_time_lines(e, moved, v.confidence_label))
        out += fmt::format("<dt>in time</dt><dd>{}</dd>\n", h(line.substr(line.find(": ") + 2)));
      if (moved.counters)
        out += counters_table(moved);
    }
    out += "<dt>files</dt><dd>";
    for (std::size_t i = 0; i < c.files.size(); ++i)
      out += (i == 0 ? "" : ", ") + code(c.files[i]);
    out += c.files.empty() ? "none</dd>\n" : "</dd>\n";
    out += "<dt>owners</dt><dd>";
    for (std::size_t i = 0; i < c.owners.size(); ++i)
      out += (i == 0 ? "" : ", ") + h(c.owners[i]);
    out += c.owners.empty() ? "none in CODEOWNERS</dd>\n</dl>\n" : "</dd>\n</dl>\n";
    if (c.hints)
      write_hints(out, *c.hints);
    out += "</article>\n";
  }
  out += "</section>\n";
}

void write_bisection(std::string& out, const evidence::Evidence& e, const ReportView& v) {
  const auto& b = *e.bisect;
  out += fmt::format("<section id=\"bisection\"><h2>Bisection path</h2>\n<p class=\"muted\">{} "
                     "from good {} to bad {}; {} probed. Commits are shown {}.</p>\n",
                     counted(b.commits_in_range, "commit", "commits"), code(short_id(b.good)),
                     code(short_id(b.bad)), b.steps.size(),
                     v.path_order_known ? "in commit order"
                                        : "in an order inferred from the probes (good-like "
                                          "probes before bad-like ones)");
  const auto cases = bisect_cases(e);
  for (std::size_t i = 0; i < cases.size() && i < k_max_plots; ++i)
    if (auto plot = bisection_plot(e, v, cases[i], static_cast<int>(i)); !plot.empty())
      out += fmt::format("<figure>{}<figcaption>{}: the median of each run (dots), the median "
                         "and {} of each commit (bars), oldest first.</figcaption></figure>\n",
                         plot, code(cases[i]), h(v.confidence_label));
  if (!b.candidates.empty()) {
    out += fmt::format("<p>Candidates left ({}):</p>\n<ul>\n", b.candidates.size());
    for (std::size_t i = 0; i < b.candidates.size(); ++i)
      out += fmt::format("<li>{}{}</li>\n", code(b.candidates[i]),
                         i < b.candidate_subjects.size() ? " " + h(b.candidate_subjects[i])
                                                         : std::string());
    out += "</ul>\n";
  }
  out += "<table><thead><tr><th class=\"num\">probe</th><th>commit</th><th>verdict</th>"
         "<th class=\"num\">position</th><th class=\"num\">runs</th><th>note</th></tr></thead>"
         "<tbody>\n";
  for (const auto& p : v.path) {
    std::string position;
    if (p.step != nullptr && p.step->position) {
      position = fmt::format("{:.2f}", *p.step->position);
      if (p.step->ci)
        position += fmt::format(" [{:.2f}, {:.2f}]", (*p.step->ci)[0], (*p.step->ci)[1]);
    }
    out += fmt::format("<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}"
                       "</td><td class=\"num\">{}</td><td>{}{}</td></tr>\n",
                       p.endpoint ? "end" : std::to_string(p.probe), code(short_id(p.commit)),
                       verdict_span(p.role), position,
                       p.step != nullptr && p.step->runs > 0 ? std::to_string(p.step->runs) : "",
                       p.culprit ? "<strong>culprit</strong> " : "",
                       p.step != nullptr ? h(p.step->note) : "");
  }
  out += "</tbody></table>\n</section>\n";
}

void write_drift(std::string& out, const evidence::Evidence& e, const ReportView& v) {
  std::string figures;
  const bool bisect = e.bisect.has_value();
  for (std::size_t i = 0; i < v.cases.size() && i < k_max_plots; ++i) {
    const auto* c = v.cases[i];
    std::vector<Series> series;
    if (const auto* m = find_measurement(e, c->base, c->case_name))
      series.push_back({fmt::format("{} {}", bisect ? "good" : "base", short_id(c->base)), m});
    if (const auto* m = find_measurement(e, c->head, c->case_name))
      series.push_back({fmt::format("{} {}", bisect ? "bad" : "head", short_id(c->head)), m});
    if (auto plot = run_order_plot(c->case_name, series, static_cast<int>(i)); !plot.empty())
      figures += fmt::format("<figure>{}<figcaption>{}: every sample in the order it was taken, "
                             "run medians joined.</figcaption></figure>\n",
                             plot, code(c->case_name));
  }
  if (!figures.empty())
    out += "<section id=\"drift\"><h2>Samples in run order</h2>\n" + figures + "</section>\n";
}

// The measurements table: folded away under the comparisons, shown when there are none (a run).
void write_raw(std::string& out, const evidence::Evidence& e, const ReportView& v) {
  out += v.cases.empty() ? "<details id=\"raw\" open>" : "<details id=\"raw\">";
  out += "<summary>Raw numbers</summary>\n";
  if (!e.measurements.empty())
    out += "<table><thead><tr><th>commit</th><th>case</th><th class=\"num\">runs</th>"
           "<th class=\"num\">median</th><th>CI</th><th>samples, run by run</th></tr></thead>"
           "<tbody>\n";
  for (const auto& m : e.measurements) {
    const auto scale = unit_scale(m.summary.median, m.unit);
    std::string runs;
    for (const auto& run : m.runs) {
      runs += runs.empty() ? "[" : " [";
      for (std::size_t k = 0; k < run.size(); ++k)
        runs += (k == 0 ? "" : " ") + format_significant(run[k] / scale.factor, 4);
      runs += "]";
    }
    out += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}"
                       "</td><td>[{}, {}] {}</td><td>{} {}</td></tr>\n",
                       code(short_id(m.commit)), code(m.case_name), m.runs.size(),
                       h(format_quantity(m.summary.median, m.unit)),
                       format_significant(m.summary.ci[0] / scale.factor, 4),
                       format_significant(m.summary.ci[1] / scale.factor, 4), h(scale.unit),
                       h(runs), h(scale.unit));
  }
  if (!e.measurements.empty())
    out += "</tbody></table>\n";
  if (!e.builds.empty()) {
    out += "<table><thead><tr><th>build of</th><th>key</th><th>status</th><th class=\"num\">"
           "seconds</th><th>message</th></tr></thead><tbody>\n";
    for (const auto& b : e.builds)
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{:.1f}</td>"
                         "<td>{}</td></tr>\n",
                         code(short_id(b.commit)), code(b.key.substr(0, 16)),
                         h(b.status.empty() ? (b.ok ? "ok" : "failed") : b.status), b.seconds,
                         h(b.message));
    out += "</tbody></table>\n";
  }
  out += "</details>\n";
}

} // namespace

namespace {

void write_roofline(std::string& out, const evidence::Evidence& e) {
  const auto section = roofline_section(e);
  if (section.empty())
    return;
  out += "<section id=\"roofline\"><h2>Roofline</h2>\n";
  for (const auto& peaks : section.peaks)
    out += fmt::format("<p class=\"muted\">Peaks of {}</p>\n", h(peaks));
  if (const auto chart = roofline_svg(e); !chart.empty())
    out += fmt::format("<figure>{}<figcaption>Achieved FLOP/s against FLOPs per byte on log "
                       "scales, under the device's memory slope and compute ceiling; an arrow "
                       "goes from a case's base to its head.</figcaption></figure>\n",
                       chart);
  if (!section.rows.empty()) {
    out += "<table><thead><tr><th>case</th><th class=\"num\">achieved</th><th "
           "class=\"num\">FLOP/byte</th><th>of the bound</th><th>bound by</th></tr></thead>"
           "<tbody>\n";
    for (const auto& row : section.rows)
      out += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                         "<td>{}</td><td>{}</td></tr>\n",
                         code(row[0]), h(row[1]), h(row[2]), h(row[3]), h(row[4]));
    out += "</tbody></table>\n";
  }
  if (!section.moves.empty()) {
    out += "<ul class=\"moves\">\n";
    for (const auto& [what, move] : section.moves)
      out += fmt::format("<li>{}: {}</li>\n", h(what), h(move));
    out += "</ul>\n";
  }
  for (const auto& [name, note] : section.notes)
    out += fmt::format("<p class=\"muted\">{}: {}</p>\n", code(name), h(note));
  out += "</section>\n";
}

} // namespace

std::string render_html(const evidence::Evidence& e, const RenderOptions& options) {
  const auto v = make_view(e, options);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'\">\n<title>{}: {}</title>\n<style>{}</style>\n</head>\n<body>\n"
      "<header class=\"{}\"><div class=\"wrap\"><p class=\"kind\">{}</p><h1>{}</h1></div>"
      "</header>\n<main class=\"wrap\">\n",
      h(v.title), h(v.headline), k_html_style, header_class(e.status), h(v.title), h(v.headline));
  for (const auto& warning : e.warnings)
    out += fmt::format("<p class=\"warning\">{}</p>\n", h(warning));
  write_cases(out, e, v);
  const bool measurements_first = v.cases.empty(); // a run: its measurements are the result
  if (measurements_first)
    write_raw(out, e, v);
  write_roofline(out, e);
  if (e.bisect) {
    write_culprits(out, e, v);
    write_bisection(out, e, v);
  }
  write_drift(out, e, v);
  out += fmt::format("<section id=\"reproduce\"><h2>Reproduce</h2>\n<pre><code>{}</code></pre>\n"
                     "</section>\n",
                     h(v.reproduce));
  out += "<section id=\"environment\"><h2>Environment</h2>\n<dl class=\"facts\">\n";
  for (const auto& [label, value] : v.environment)
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", h(label), h(value));
  out += "</dl>\n</section>\n";
  if (!measurements_first)
    write_raw(out, e, v);
  out += fmt::format("<footer>Rendered by culprit from evidence written by culprit {} at {}."
                     "</footer>\n</main>\n</body>\n</html>\n",
                     h(e.tool_version), h(e.created));
  return out;
}

} // namespace culprit::report
