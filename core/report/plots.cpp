#include "core/report/plots.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/report/svg.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::report {
namespace {

using svg::Canvas;

constexpr double k_width = 760;
constexpr std::size_t k_max_dots = 2000; // per series; beyond it only run medians are drawn

// A fixed spread in [-0.5, 0.5) so that the dots of one column do not sit on one another.
double jitter(std::size_t k) {
  const double golden = 0.6180339887498949;
  return std::fmod(static_cast<double>(k) * golden, 1.0) - 0.5;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double x) {
    if (std::isfinite(x)) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  }
  [[nodiscard]] bool empty() const { return lo > hi; }
};

std::string y_title(const evidence::EvidenceMeasurement& m, const UnitScale& scale) {
  return scale.unit.empty() ? m.metric : fmt::format("{} ({})", m.metric, scale.unit);
}

struct Column {
  const PathPoint* point;
  const evidence::EvidenceMeasurement* measurement;
  std::vector<double> medians;
};

void draw_column(Canvas& c, const Column& col, double x, double width, const svg::LinearScale& y) {
  const auto role = css_class_of(col.point->role);
  const auto id = short_id(col.point->commit);
  const auto& m = *col.measurement;
  c.line(x, y(m.summary.ci[0]), x, y(m.summary.ci[1]), fmt::format("ci {}", role));
  c.line(x - width * 0.3, y(m.summary.median), x + width * 0.3, y(m.summary.median),
         fmt::format("median {}", role));
  for (std::size_t k = 0; k < col.medians.size(); ++k)
    c.circle(x + jitter(k) * width * 0.5, y(col.medians[k]), 2.6, fmt::format("pt {}", role),
             fmt::format("{} run {}: {}", id, k + 1, format_quantity(col.medians[k], m.unit)));
}

} // namespace

std::string_view css_class_of(std::string_view verdict) {
  static constexpr std::array<std::string_view, 9> k_known = {
      "slower", "faster", "same",         "inconclusive", "good",
      "bad",    "skip",   "intermediate", "unresolved"};
  const auto* it = std::ranges::find(k_known, verdict);
  return it != k_known.end() ? *it : std::string_view("other");
}

std::string bisection_plot(const evidence::Evidence& e, const ReportView& v,
                           const std::string& case_name, int index) {
  std::vector<Column> columns;
  Range range;
  const evidence::EvidenceMeasurement* any = nullptr;
  for (const auto& p : v.path) {
    Column col{&p, find_measurement(e, p.commit, case_name), {}};
    if (col.measurement != nullptr) {
      any = col.measurement;
      col.medians = run_medians(*col.measurement);
      for (const double x : col.medians)
        range.add(x);
      range.add(col.measurement->summary.ci[0]);
      range.add(col.measurement->summary.ci[1]);
    }
    columns.push_back(std::move(col));
  }
  if (any == nullptr || range.empty())
    return "";
  const auto scale = unit_scale(std::max(std::abs(range.lo), std::abs(range.hi)), any->unit);
  const double left = 72;
  const double right = 16;
  const double top = 26;
  const double bottom = 72;
  const double width = std::max(k_width, left + right + static_cast<double>(columns.size()) * 16);
  const double height = 330;
  const auto [lo, hi] = svg::padded(range.lo, range.hi, 0.08);
  const svg::LinearScale y{lo, hi, height - bottom, top};
  const double col_w = (width - left - right) / static_cast<double>(columns.size());
  Canvas c(width, height, fmt::format("bisection-plot-{}", index),
           fmt::format("Bisection path of {}", case_name),
           "The median of each run of each commit on the bisection path, in commit order, with "
           "the measurement's median and confidence interval; good and bad are coloured and the "
           "culprit is shaded.");
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].point->culprit) {
      const double x = left + static_cast<double>(i) * col_w;
      c.rect(x, top, col_w, height - bottom - top, "culprit-band");
      c.text(x + col_w / 2, top - 8, "culprit", "annotation", Canvas::Anchor::middle);
    }
  c.y_axis(left, width - right, y, svg::nice_ticks(lo, hi, 5),
           [&](double t) { return format_number(t / scale.factor); });
  c.text(16, (top + height - bottom) / 2, y_title(*any, scale), "axis-title",
         Canvas::Anchor::middle, -90);
  for (const auto& end : {columns.front(), columns.back()})
    if (end.measurement != nullptr)
      c.line(left, y(end.measurement->summary.median), width - right,
             y(end.measurement->summary.median),
             fmt::format("ref {}", css_class_of(end.point->role)));
  const std::size_t label_every = columns.size() > 40 ? (columns.size() + 39) / 40 : 1;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const auto& col = columns[i];
    const double x = left + (static_cast<double>(i) + 0.5) * col_w;
    const auto role = css_class_of(col.point->role);
    const auto id = short_id(col.point->commit).substr(0, 7);
    if (col.measurement != nullptr)
      draw_column(c, col, x, col_w, y);
    else
      c.text(x, height - bottom - 6, "×", fmt::format("missing {}", role), Canvas::Anchor::middle,
             0,
             fmt::format("{}: {}{}", id, col.point->role,
                         col.point->step != nullptr && !col.point->step->note.empty()
                             ? " (" + col.point->step->note + ")"
                             : ""));
    if (i % label_every == 0 || col.point->endpoint || col.point->culprit)
      c.text(x, height - bottom + 14,
             col.point->endpoint ? fmt::format("{} {}", col.point->role, id) : id,
             fmt::format("xlabel {}", role), Canvas::Anchor::end, -40);
  }
  return c.finish();
}

std::string forest_plot(const evidence::Evidence& e, const ReportView& v) {
  if (v.cases.empty())
    return "";
  const double threshold = e.settings.threshold;
  Range range;
  range.add(1 - threshold);
  range.add(1 + threshold);
  for (const auto* c : v.cases) {
    range.add(c->ratio);
    range.add(c->ci[0]);
    range.add(c->ci[1]);
  }
  const double label_w = 290;
  const double right = 150;
  const double row_h = 24;
  const double top = 30;
  const double bottom = 40;
  const double height = top + row_h * static_cast<double>(v.cases.size()) + bottom;
  const auto [lo, hi] = svg::padded(range.lo, range.hi, 0.08);
  const svg::LinearScale x{lo, hi, label_w, k_width - right};
  const double rows_bottom = height - bottom;
  Canvas c(k_width, height, "forest-plot", "Ratios and confidence intervals per case",
           "For each case the ratio of head to base with its confidence interval; the shaded "
           "band is no change within the threshold.");
  c.rect(x(1 - threshold), top, x(1 + threshold) - x(1 - threshold), rows_bottom - top, "band",
         fmt::format("no change: within ±{}", format_percent(threshold)));
  for (const double t : svg::nice_ticks(lo, hi, 6)) {
    c.line(x(t), top, x(t), rows_bottom, "grid");
    c.text(x(t), rows_bottom + 16, fmt::format("{:.3g}", t), "tick", Canvas::Anchor::middle);
  }
  c.line(x(1), top - 4, x(1), rows_bottom, "ref");
  c.text(label_w, top - 12,
         fmt::format("ratio head / base ({}); shaded: no change (±{})", v.confidence_label,
                     format_percent(threshold)),
         "axis-title");
  for (std::size_t i = 0; i < v.cases.size(); ++i) {
    const auto* cmp = v.cases[i];
    const double y = top + (static_cast<double>(i) + 0.5) * row_h;
    const auto verdict = css_class_of(cmp->verdict);
    const auto summary =
        fmt::format("{}: ratio {} {} {}, {}", cmp->case_name, format_ratio(cmp->ratio),
                    v.confidence_label, format_ratio_ci(cmp->ci), cmp->verdict);
    c.text(label_w - 10, y + 4, ellipsize(cmp->case_name, 42), "label", Canvas::Anchor::end, 0,
           cmp->case_name);
    c.line(x(cmp->ci[0]), y, x(cmp->ci[1]), y, fmt::format("ci {}", verdict));
    for (const double end : cmp->ci)
      c.line(x(end), y - 5, x(end), y + 5, fmt::format("ci {}", verdict));
    c.circle(x(cmp->ratio), y, 4.5, fmt::format("pt {}", verdict), summary);
    c.text(k_width - right + 10, y + 4, format_change(cmp->ratio),
           fmt::format("value {}", verdict));
    c.text(k_width - 8, y + 4, cmp->verdict, fmt::format("value {}", verdict), Canvas::Anchor::end);
  }
  return c.finish();
}

std::string run_order_plot(const std::string& case_name, const std::vector<Series>& series,
                           int index) {
  Range range;
  std::size_t longest = 0;
  for (const auto& [label, m] : series) {
    std::size_t samples = 0;
    for (const auto& run : m->runs) {
      samples += run.size();
      for (const double x : run)
        range.add(x);
    }
    longest = std::max(longest, samples);
  }
  if (series.empty() || range.empty())
    return "";
  const auto& first = *series[0].measurement;
  const auto scale = unit_scale(std::max(std::abs(range.lo), std::abs(range.hi)), first.unit);
  const double left = 72;
  const double right = 140;
  const double top = 16;
  const double bottom = 40;
  const double height = 240;
  const auto [lo, hi] = svg::padded(range.lo, range.hi, 0.06);
  const svg::LinearScale y{lo, hi, height - bottom, top};
  const svg::LinearScale x{0, static_cast<double>(std::max<std::size_t>(longest, 2) - 1), left + 6,
                           k_width - right};
  Canvas c(k_width, height, fmt::format("run-order-plot-{}", index),
           fmt::format("Samples of {} in run order", case_name),
           "Every sample of each commit in the order it was taken, run after run, with the run "
           "medians joined; a trend along a line is drift.");
  c.y_axis(left, k_width - right, y, svg::nice_ticks(lo, hi, 4),
           [&](double t) { return format_number(t / scale.factor); });
  c.text(16, (top + height - bottom) / 2, y_title(first, scale), "axis-title",
         Canvas::Anchor::middle, -90);
  c.text((left + k_width - right) / 2, height - 8, "sample, in the order taken (runs in order)",
         "axis-title", Canvas::Anchor::middle);
  for (std::size_t s = 0; s < series.size(); ++s) {
    const auto& m = *series[s].measurement;
    const auto css = fmt::format("s{}", s % 6);
    const auto medians = run_medians(m);
    std::vector<std::pair<double, double>> trend;
    std::size_t offset = 0;
    std::size_t total = 0;
    for (const auto& run : m.runs)
      total += run.size();
    for (std::size_t r = 0; r < m.runs.size(); ++r) {
      const auto& run = m.runs[r];
      if (run.empty())
        continue;
      if (total <= k_max_dots)
        for (std::size_t k = 0; k < run.size(); ++k)
          c.circle(x(static_cast<double>(offset + k)), y(run[k]), 1.8, "sample " + css,
                   fmt::format("{} run {} sample {}: {}", short_id(m.commit), r + 1, k + 1,
                               format_quantity(run[k], m.unit)));
      trend.emplace_back(x(static_cast<double>(offset) + static_cast<double>(run.size() - 1) / 2),
                         y(medians[trend.size()]));
      offset += run.size();
    }
    c.polyline(trend, "trend " + css);
    const double ly = top + 14 + static_cast<double>(s) * 18;
    c.circle(k_width - right + 18, ly - 4, 4, "sample " + css);
    c.text(k_width - right + 28, ly, series[s].label, "legend " + css);
  }
  return c.finish();
}

} // namespace culprit::report
