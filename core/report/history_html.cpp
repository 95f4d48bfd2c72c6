// The HTML and Markdown writers of a history, and the SVG trend chart both use.
#include <algorithm>
#include <cmath>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "core/report/history.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::report {
namespace {

constexpr double k_trend_width = 760;
constexpr double k_trend_height = 240;
constexpr double k_trend_left = 80;
constexpr double k_trend_right = 16;
constexpr double k_trend_top = 16;
constexpr double k_trend_bottom = 28;

constexpr std::string_view k_style = R"css(
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 62em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0; }
td, th { border: 1px solid #ccc; padding: .25em .6em; text-align: left; font-size: .9em; }
code { font-size: .9em; }
.regression { color: #b00020; } .improvement { color: #1b7f3b; }
.open-regressions td { vertical-align: top; } .state { font-weight: 600; }
svg .band { fill: #9ec5fe; fill-opacity: .45; stroke: none; }
svg .line { fill: none; stroke: #1f4e99; stroke-width: 1.5; }
svg .point { fill: #1f4e99; }
svg .change { stroke: #b00020; stroke-width: 1.5; stroke-dasharray: 5 3; }
svg .change.improvement { stroke: #1b7f3b; }
svg .mark { fill: #b00020; } svg .mark.acknowledged { fill: #d06000; }
svg .mark.fixed { fill: #1b7f3b; } svg .mark.wontfix, svg .mark.went-away, svg .mark.invalid {
fill: #888; } svg .mark.new, svg .mark.confirmed { fill: #e08080; }
svg .axis { stroke: #555; } svg .grid { stroke: #e4e4e4; }
svg text { font-size: 11px; fill: #444; }
)css";

std::string label_of(const std::string& commit, const CommitLabels& labels) {
  const auto it = labels.find(commit);
  if (it == labels.end())
    return commit.substr(0, 12);
  return fmt::format("{} {} ({}, {})", commit.substr(0, 12), it->second.subject, it->second.author,
                     it->second.date);
}

struct Scale {
  double d0, d1, r0, r1;
  [[nodiscard]] double operator()(double v) const {
    return d1 == d0 ? (r0 + r1) / 2 : r0 + ((v - d0) / (d1 - d0) * (r1 - r0));
  }
};

std::string change_table_html(const std::vector<history::ChangePoint>& changes,
                              const CommitLabels& labels) {
  if (changes.empty())
    return "<p>No change points.</p>\n";
  std::string out = "<table><tr><th>kind</th><th>before</th><th>after</th><th>change</th>"
                    "<th>p-value</th><th>rests on</th></tr>\n";
  for (const auto& c : changes)
    out += fmt::format("<tr class=\"{0}\"><td>{0}</td><td><code>{1}</code></td><td><code>{2}"
                       "</code> {3}</td><td>{4}</td><td>{5:.3g}</td><td>{6}</td></tr>\n",
                       change_kind(c), c.before.substr(0, 12), c.commit.substr(0, 12),
                       html_escape(labels.contains(c.commit) ? labels.at(c.commit).subject : ""),
                       html_escape(step_text(c)), c.p_value, html_escape(sessions_text(c)));
  return out + "</table>\n";
}

std::string change_table_markdown(const std::vector<history::ChangePoint>& changes,
                                  const CommitLabels& labels) {
  if (changes.empty())
    return "No change points.\n";
  std::string out = "| kind | before | after | change | p-value | rests on |\n"
                    "|---|---|---|---|---|---|\n";
  for (const auto& c : changes)
    out += fmt::format("| {} | `{}` | `{}` {} | {} | {:.3g} | {} |\n", change_kind(c),
                       c.before.substr(0, 12), c.commit.substr(0, 12),
                       markdown_text(labels.contains(c.commit) ? labels.at(c.commit).subject : ""),
                       markdown_text(step_text(c)), c.p_value, markdown_text(sessions_text(c)));
  return out;
}

// The anchor of the n-th series (from 1), and of a regression.
std::string series_anchor(std::size_t n) {
  return fmt::format("series-{}", n);
}

// The series a regression's case is drawn in: its number from 1, 0 when none.
std::size_t series_of(const history::History& history, const history::RegressionCase& slowed) {
  for (std::size_t i = 0; i < history.series.size(); ++i) {
    const auto& series = history.series[i];
    if (same_case(slowed, series.case_name, series.metric))
      return i + 1;
  }
  return 0;
}

// A regression's culprit, or the commits of its change point while it is not bisected.
std::string where_of(const history::Regression& r) {
  return r.culprit.empty()
             ? fmt::format("{}..{}", r.range_before.substr(0, 12), r.range_after.substr(0, 12))
             : r.culprit.substr(0, 12);
}

std::string regressions_html(const history::History& history,
                             const std::vector<history::Regression>& regressions) {
  if (regressions.empty()) // no triage has found one: nothing to say
    return "";
  std::vector<const history::Regression*> open;
  for (const auto& r : regressions)
    if (is_open(r.state))
      open.push_back(&r);
  std::string out = fmt::format("<section class=\"open-regressions\"><h2>Open regressions "
                                "<small>[{}]</small></h2>\n",
                                open.size());
  if (open.empty())
    return out + "<p>None: every regression triage found is fixed or set aside.</p></section>\n";
  out += "<table><tr><th>id</th><th>state</th><th>culprit</th><th>owners</th><th>cases</th>"
         "<th>first seen</th></tr>\n";
  for (const auto* r : open) {
    std::string cases;
    for (const auto& c : r->cases) {
      const auto n = series_of(history, c);
      const auto text = html_escape(fmt::format("{} {:+.1f}%", c.case_name, (c.ratio - 1) * 100));
      cases += (cases.empty() ? "" : "<br>") +
               (n == 0 ? text : fmt::format("<a href=\"#{}\">{}</a>", series_anchor(n), text));
    }
    std::string owners;
    for (const auto& owner : r->owners)
      owners += (owners.empty() ? "" : ", ") + html_escape(owner);
    out += fmt::format("<tr class=\"regression\" id=\"{0}\"><td><code>{0}</code></td><td "
                       "class=\"state\">{1}</td><td><code>{2}</code> {3} ({4})</td><td>{5}</td>"
                       "<td>{6}</td><td>{7:%Y-%m-%d}</td></tr>\n",
                       html_escape(r->id), to_string(r->state), where_of(*r),
                       html_escape(r->subject), html_escape(r->author), owners, cases,
                       std::chrono::floor<std::chrono::seconds>(r->first_seen));
  }
  return out + "</table></section>\n";
}

// Under a series: the regressions (open or not) that slowed its case, linked to their row.
std::string series_regressions_html(const history::History& history, std::size_t n,
                                    const std::vector<history::Regression>& regressions) {
  std::string out;
  for (const auto& r : regressions)
    for (const auto& c : r.cases)
      if (series_of(history, c) == n)
        out += fmt::format(
            "<li class=\"regression\">{} <code>{}</code> {}: {:+.1f}% at "
            "<code>{}</code> {}{}</li>\n",
            is_open(r.state) ? fmt::format("<a href=\"#{0}\">{0}</a>", html_escape(r.id))
                             : html_escape(r.id),
            to_string(r.state), html_escape(c.case_name), (c.ratio - 1) * 100, where_of(r),
            html_escape(r.subject),
            r.fixed_by.empty()
                ? ""
                : fmt::format(", fixed by <code>{}</code>", r.fixed_by.substr(0, 12)));
  return out.empty() ? out : "<ul class=\"series-regressions\">\n" + out + "</ul>\n";
}

// The regressions drawn on the n-th series (from 1), where they can be placed.
std::vector<RegressionMark> marks_of(const history::History& history, std::size_t n,
                                     const std::vector<history::Regression>& regressions,
                                     const std::vector<history::RegressionPlace>& places) {
  std::vector<RegressionMark> marks;
  const auto& points = history.series[n - 1].points;
  for (const auto& r : regressions) {
    if (std::ranges::none_of(r.cases, [&](const auto& c) { return series_of(history, c) == n; }))
      continue;
    // One not bisected yet is drawn at the first point of its new level.
    const auto at = std::ranges::find(points, r.culprit.empty() ? r.range_after : r.culprit,
                                      &history::SeriesPoint::commit);
    if (at != points.end() && at != points.begin()) {
      marks.push_back({&r, static_cast<std::size_t>(at - points.begin())});
      continue;
    }
    const auto place = std::ranges::find_if(places, [&](const history::RegressionPlace& p) {
      return p.regression == r.id && p.series + 1 == n;
    });
    if (place != places.end() && place->index > 0 && place->index < points.size())
      marks.push_back({&r, place->index});
  }
  return marks;
}

} // namespace

std::string trend_svg(const history::Series& series,
                      const std::vector<history::ChangePoint>& changes, const CommitLabels& labels,
                      const std::vector<RegressionMark>& marks) {
  const auto title = html_escape(fmt::format("{} [{}]", series.case_name, series.metric));
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" "
      "role=\"img\" aria-label=\"trend of {}\"><title>trend of {}</title>\n",
      k_trend_width, k_trend_height, k_trend_width, k_trend_height, title, title);
  if (series.points.empty())
    return out + "</svg>\n";
  double low = series.points.front().ci[0];
  double high = series.points.front().ci[1];
  for (const auto& p : series.points) {
    low = std::min({low, p.ci[0], p.median});
    high = std::max({high, p.ci[1], p.median});
  }
  const double pad = (high - low) * 0.08 + (high == low ? std::abs(high) * 0.05 + 1e-12 : 0);
  const Scale y{low - pad, high + pad, k_trend_height - k_trend_bottom, k_trend_top};
  const Scale x{0, static_cast<double>(std::max<std::size_t>(series.points.size() - 1, 1)),
                k_trend_left, k_trend_width - k_trend_right};
  for (int t = 0; t <= 4; ++t) {
    const double value = y.d0 + ((y.d1 - y.d0) * t / 4);
    out += fmt::format("<line class=\"grid\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" "
                       "y2=\"{:.1f}\"/><text x=\"{:.1f}\" y=\"{:.1f}\" "
                       "text-anchor=\"end\">{}</text>\n",
                       k_trend_left, y(value), k_trend_width - k_trend_right, y(value),
                       k_trend_left - 6, y(value) + 4,
                       html_escape(format_quantity(value, series.unit)));
  }
  out += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n",
                     k_trend_left, k_trend_top, k_trend_height - k_trend_bottom);
  std::string band;
  std::string line;
  for (std::size_t i = 0; i < series.points.size(); ++i)
    band += fmt::format("{:.1f},{:.1f} ", x(static_cast<double>(i)), y(series.points[i].ci[1]));
  for (std::size_t i = series.points.size(); i-- > 0;)
    band += fmt::format("{:.1f},{:.1f} ", x(static_cast<double>(i)), y(series.points[i].ci[0]));
  for (std::size_t i = 0; i < series.points.size(); ++i)
    line += fmt::format("{:.1f},{:.1f} ", x(static_cast<double>(i)), y(series.points[i].median));
  out += fmt::format("<polygon class=\"band\" points=\"{}\"/>\n", band);
  out += fmt::format("<polyline class=\"line\" points=\"{}\"/>\n", line);
  for (const auto& c : changes) {
    const double at = x(static_cast<double>(c.index) - 0.5);
    out += fmt::format(
        "<line class=\"change {}\" x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\"><title>{} "
        "{:+.1f}% (p = {:.3g}) between {} and {}</title></line>\n",
        change_kind(c), at, k_trend_top, at, k_trend_height - k_trend_bottom, change_kind(c),
        (c.ratio - 1) * 100, c.p_value, html_escape(label_of(c.before, labels)),
        html_escape(label_of(c.commit, labels)));
  }
  for (const auto& mark : marks) {
    const auto& r = *mark.regression;
    const double at = x(static_cast<double>(mark.index) - 0.5);
    const auto slowed = std::ranges::find_if(
        r.cases, [&](const auto& c) { return same_case(c, series.case_name, series.metric); });
    const auto triangle = fmt::format(
        "<polygon class=\"mark {}\" points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\"><title>{} "
        "{}: {}{}</title></polygon>",
        to_string(r.state), at - 6, k_trend_top - 8, at + 6, k_trend_top - 8, at, k_trend_top + 2,
        html_escape(r.id), to_string(r.state),
        slowed == r.cases.end() ? "" : fmt::format("{:+.1f}% at ", (slowed->ratio - 1) * 100),
        html_escape(label_of(r.culprit.empty() ? r.range_after : r.culprit, labels)));
    out += is_open(r.state) ? fmt::format("<a href=\"#{}\">{}</a>\n", html_escape(r.id), triangle)
                            : triangle + "\n";
  }
  for (std::size_t i = 0; i < series.points.size(); ++i) {
    const auto& p = series.points[i];
    out +=
        fmt::format("<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\"><title>{}: "
                    "{}, {}, host {}</title></circle>\n",
                    x(static_cast<double>(i)), y(p.median), html_escape(label_of(p.commit, labels)),
                    html_escape(point_level(p, series.unit)), counted(p.runs, "run", "runs"),
                    html_escape(p.host_id.substr(0, 12)));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text><text x=\"{}\" y=\"{}\" "
                     "text-anchor=\"end\">{}</text>\n",
                     k_trend_left, k_trend_height - 8, series.points.front().commit.substr(0, 12),
                     k_trend_width - k_trend_right, k_trend_height - 8,
                     series.points.back().commit.substr(0, 12));
  return out + "</svg>\n";
}

std::string render_html(const history::History& history, const CommitLabels& labels,
                        const std::vector<history::Regression>& regressions,
                        const std::vector<history::RegressionPlace>& places) {
  std::string out =
      fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<title>culprit history</title><style>{}</style></head><body>\n"
                  "<h1>Performance history</h1>\n<p>{} series, {}"
                  "{}.</p>\n",
                  k_style, history.series.size(),
                  counted(history.change_points.size(), "change point", "change points"),
                  history.hosts.size() > 1
                      ? html_escape(fmt::format("; points of {} hosts: {}", history.hosts.size(),
                                                fmt::join(history.hosts, ", ")))
                      : std::string());
  out += regressions_html(history, regressions);
  std::size_t n = 0;
  for (const auto& series : history.series) {
    const auto changes = changes_of(history, series);
    out +=
        fmt::format("<section id=\"{}\"><h2>{} <small>[{}, {}]</small></h2>\n", series_anchor(++n),
                    html_escape(series.case_name), html_escape(series.metric),
                    counted(series.points.size(), "point", "points"));
    out += trend_svg(series, changes, labels, marks_of(history, n, regressions, places));
    out += series_regressions_html(history, n, regressions);
    out += change_table_html(changes, labels) + "</section>\n";
  }
  return out + "</body></html>\n";
}

MarkdownHistory render_markdown(const history::History& history, const CommitLabels& labels,
                                std::string_view chart_prefix) {
  MarkdownHistory result;
  auto& out = result.markdown;
  out = fmt::format("# Performance history\n\n{} series, {}.\n", history.series.size(),
                    counted(history.change_points.size(), "change point", "change points"));
  if (history.hosts.size() > 1)
    out += markdown_text(fmt::format("Points of {} hosts: {}.", history.hosts.size(),
                                     fmt::join(history.hosts, ", "))) +
           "\n";
  std::size_t n = 0;
  for (const auto& series : history.series) {
    const auto changes = changes_of(history, series);
    const auto chart = fmt::format("{}-{}.svg", chart_prefix, ++n);
    std::vector<double> medians;
    medians.reserve(series.points.size());
    for (const auto& point : series.points)
      medians.push_back(point.median);
    out += fmt::format("\n## {} [{}]\n\n", markdown_text(series.case_name),
                       markdown_text(series.metric));
    if (!chart_prefix.empty())
      out += fmt::format("![trend of {}]({})\n\n", markdown_text(series.case_name), chart);
    out += fmt::format("`{}` {}\n\n", sparkline(medians, Glyphs::unicode),
                       counted(series.points.size(), "point", "points"));
    out += change_table_markdown(changes, labels);
    if (!chart_prefix.empty())
      result.charts.emplace_back(chart, trend_svg(series, changes, labels));
  }
  return result;
}

} // namespace culprit::report
