#include "core/report/roofline_text.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "core/report/svg.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::report {
namespace {

const evidence::EvidenceMeasurement* find_measurement(const evidence::Evidence& evidence,
                                                      const std::string& commit,
                                                      const std::string& case_name) {
  for (const auto& m : evidence.measurements)
    if (same_commit(m.commit, commit) && m.case_name == case_name)
      return &m;
  return nullptr;
}

std::string percent(double fraction) {
  return fmt::format("{:.1f}%", fraction * 100);
}

// A rate for people: "41.20 GFLOP/s", "6.100 GB/s".
std::string rate(double per_second, std::string_view what) {
  return fmt::format("{} G{}/s", format_significant(per_second / 1e9), what);
}

// A power of ten of FLOP/s or B/s with an SI prefix: 1e12 -> "1 T".
std::string si_decade(double decade) {
  static constexpr std::array<std::string_view, 7> k_prefixes = {"", "k", "M", "G", "T", "P", "E"};
  const int power = static_cast<int>(std::lround(decade));
  const int group = std::clamp(power >= 0 ? power / 3 : -1, 0, 6);
  const double mantissa = std::pow(10.0, power - (3 * group));
  return fmt::format("{:g} {}", mantissa, k_prefixes[static_cast<std::size_t>(group)]);
}

// A rate with an SI prefix and three significant digits: "156 TFLOP/s", "2.04 TB/s".
std::string si_rate(double per_second, std::string_view what) {
  const double decade = std::floor(std::log10(per_second));
  const int group = std::clamp(static_cast<int>(decade) / 3, 0, 6);
  static constexpr std::array<std::string_view, 7> k_prefixes = {"", "k", "M", "G", "T", "P", "E"};
  return fmt::format("{} {}{}/s", format_significant(per_second / std::pow(10.0, 3 * group), 3),
                     k_prefixes[static_cast<std::size_t>(group)], what);
}

// What a case achieved, in the resource that bounds it.
std::string achieved_text(const evidence::EvidenceRoofline& r) {
  return r.limiter == "compute" ? rate(r.achieved_flops_per_second, "FLOP")
                                : rate(r.achieved_bytes_per_second, "B");
}

} // namespace

// Said of a share above 100%: no call can beat its bound, so the measurement is at fault, not
// the kernel.
constexpr std::string_view k_above_the_roof =
    " (above the roof, a defect of the measurement: the data stays in a cache faster than memory, "
    "the peaks are lower than the device's, or the harness measured something else than the work "
    "it counted)";

std::string fraction_text(double fraction, const std::string& limiter,
                          std::optional<std::array<double, 2>> ci) {
  return fmt::format("{} of its {} bound{}{}", percent(fraction), limiter,
                     ci ? fmt::format(" [{}, {}]", percent((*ci)[0]), percent((*ci)[1]))
                        : std::string(),
                     fraction > 1 ? k_above_the_roof : std::string_view());
}

std::string move_text(const RooflineMove& move) {
  const auto bound =
      move.limiter_before == move.limiter_after
          ? fmt::format("{}-bound before and after", move.limiter_before)
          : fmt::format("{}-bound before, {}-bound after", move.limiter_before, move.limiter_after);
  return fmt::format("{} -> {} of its {} bound [{}, {}]; {}{}", percent(move.before),
                     percent(move.after), move.limiter_after, percent(move.after_ci[0]),
                     percent(move.after_ci[1]), bound,
                     std::max(move.before, move.after) > 1 ? k_above_the_roof : std::string_view());
}

std::string peaks_text(const evidence::EvidencePeaks& peaks) {
  const bool tensor = peaks.compute == "tensor" && peaks.tensor_flops_per_second;
  return fmt::format("{}: {} {}, {} ({})", peaks.device,
                     rate(tensor ? *peaks.tensor_flops_per_second : peaks.flops_per_second, "FLOP"),
                     tensor ? "tensor" : "FP32", rate(peaks.bytes_per_second, "B"), peaks.source);
}

std::optional<RooflineMove> roofline_move(const evidence::Evidence& evidence,
                                          const std::string& base, const std::string& head,
                                          const std::string& case_name, double ratio,
                                          const std::array<double, 2>& ci,
                                          std::optional<std::array<double, 2>> levels) {
  const auto* before = find_measurement(evidence, base, case_name);
  const auto* after = find_measurement(evidence, head, case_name);
  if (before == nullptr || after == nullptr || !before->roofline || !after->roofline ||
      !(ratio > 0) || !(ci[0] > 0))
    return std::nullopt;
  const auto& b = *before->roofline;
  const auto& a = *after->roofline;
  // The base's share at the level the comparison shows for it; the head's from the ratio.
  const double base_level = levels && (*levels)[0] > 0 ? (*levels)[0] : before->summary.median;
  const double start = b.bound_seconds / base_level;
  const double scale = b.bound_seconds > 0 ? a.bound_seconds / b.bound_seconds : 1.0;
  return RooflineMove{.case_name = case_name,
                      .before = start,
                      .after = start * scale / ratio,
                      .after_ci = {start * scale / ci[1], start * scale / ci[0]},
                      .limiter_before = b.limiter,
                      .limiter_after = a.limiter};
}

namespace {

// How a comparison moved its case against the roofline, at the levels its estimator compared.
std::optional<RooflineMove> comparison_move(const evidence::Evidence& evidence,
                                            const evidence::EvidenceComparison& c) {
  std::optional<std::array<double, 2>> levels;
  if (c.estimator && c.estimator->base_level > 0)
    levels = std::array{c.estimator->base_level, c.estimator->head_level};
  return roofline_move(evidence, c.base, c.head, c.case_name, c.ratio, c.ci, levels);
}

} // namespace

RooflineSection roofline_section(const evidence::Evidence& evidence) {
  RooflineSection section;
  for (const auto& peaks : evidence.roofline_peaks)
    section.peaks.push_back(peaks_text(peaks));
  const bool compared = !evidence.comparisons.empty() || evidence.bisect;
  std::vector<std::string> noted;
  for (const auto& m : evidence.measurements) {
    if (!m.roofline) {
      if (!m.roofline_note.empty() && std::ranges::find(noted, m.case_name) == noted.end()) {
        noted.push_back(m.case_name);
        section.notes.emplace_back(m.case_name, m.roofline_note);
      }
      continue;
    }
    if (compared)
      continue;
    const auto& r = *m.roofline;
    section.rows.push_back(
        {m.case_name, achieved_text(r), format_significant(r.intensity),
         fmt::format("{} [{}, {}]", percent(r.fraction), percent(r.fraction_ci[0]),
                     percent(r.fraction_ci[1])),
         r.fraction > 1 ? r.limiter + std::string(k_above_the_roof) : r.limiter});
  }
  for (const auto& c : evidence.comparisons) {
    if (const auto move = comparison_move(evidence, c))
      section.moves.emplace_back(
          fmt::format("{} ({} -> {})", c.case_name, short_id(c.base), short_id(c.head)),
          move_text(*move));
  }
  if (evidence.bisect)
    for (const auto& culprit : evidence.bisect->culprits)
      for (const auto& moved : culprit.cases)
        if (const auto move = roofline_move(evidence, culprit.parent, culprit.commit, moved.name,
                                            moved.ratio, moved.ci))
          section.moves.emplace_back(
              fmt::format("{} at culprit {}", moved.name, short_id(culprit.commit)),
              move_text(*move));
  return section;
}

std::string render_roofline_table(const evidence::Evidence& evidence, bool notes) {
  const bool rooflines = std::ranges::any_of(evidence.measurements,
                                             [](const auto& m) { return m.roofline.has_value(); });
  // Each reason once, with the cases it holds for, in the order they first appear.
  std::vector<std::pair<std::string, std::vector<std::string>>> reasons;
  for (const auto& m : evidence.measurements) {
    if (m.roofline || m.roofline_note.empty() || !notes)
      continue;
    auto it =
        std::ranges::find_if(reasons, [&](const auto& r) { return r.first == m.roofline_note; });
    if (it == reasons.end())
      it = reasons.insert(reasons.end(), {m.roofline_note, {}});
    if (std::ranges::find(it->second, m.case_name) == it->second.end())
      it->second.push_back(m.case_name);
  }
  if (!rooflines && reasons.empty())
    return {};
  std::string out;
  for (const auto& peaks : evidence.roofline_peaks)
    out += fmt::format("roofline: {}\n", terminal_safe(peaks_text(peaks)));
  std::size_t width = 4;
  for (const auto& m : evidence.measurements)
    if (m.roofline)
      width = std::max(width, terminal_safe(m.case_name).size());
  width = std::min<std::size_t>(width, 40);
  if (rooflines)
    out += fmt::format("{:<{}}  {:>16}  {:>12}  {:<20}  {}\n", "case", width, "achieved",
                       "FLOP/byte", "of the bound", "bound by");
  for (const auto& m : evidence.measurements) {
    if (!m.roofline)
      continue;
    const auto name = terminal_safe(ellipsize(m.case_name, width));
    const auto& r = *m.roofline;
    out += fmt::format("{:<{}}  {:>16}  {:>12}  {:<20}  {}\n", name, width, achieved_text(r),
                       format_significant(r.intensity),
                       fmt::format("{} [{}, {}]", percent(r.fraction), percent(r.fraction_ci[0]),
                                   percent(r.fraction_ci[1])),
                       r.fraction > 1 ? r.limiter + std::string(k_above_the_roof) : r.limiter);
  }
  constexpr std::size_t k_named = 3;
  constexpr std::string_view k_no_roofline = "no roofline: ";
  for (const auto& [note, cases] : reasons) {
    std::string_view reason = note;
    if (reason.starts_with(k_no_roofline))
      reason.remove_prefix(k_no_roofline.size());
    std::vector<std::string> named;
    for (std::size_t i = 0; i < std::min(cases.size(), k_named); ++i)
      named.push_back(terminal_safe(cases[i]));
    const auto more =
        cases.size() > k_named ? fmt::format(" and {} more", cases.size() - k_named) : "";
    out += fmt::format("no roofline for {}{}: {}\n", fmt::join(named, ", "), more,
                       terminal_safe(reason));
  }
  return out;
}

std::string render_roofline_moves(const evidence::Evidence& evidence) {
  std::string out;
  for (const auto& c : evidence.comparisons) {
    if (const auto move = comparison_move(evidence, c))
      out += fmt::format("roofline: {}: {}\n", terminal_safe(c.case_name), move_text(*move));
  }
  return out;
}

namespace {

// The FLOP/s ceiling a device's cases are bound by: its tensor peak where that is the one named.
double ceiling_flops(const evidence::EvidencePeaks& p) {
  return p.compute == "tensor" && p.tensor_flops_per_second ? *p.tensor_flops_per_second
                                                            : p.flops_per_second;
}

// Each case's measured points (intensity, achieved FLOP/s) in the order of the measurements, and
// the span of everything the chart must show.
struct RooflinePoints {
  struct Point {
    const evidence::EvidenceMeasurement* m;
    double x, y;
  };
  std::map<std::string, std::vector<Point>> by_case;
  std::vector<std::string> order;
  double x_lo = HUGE_VAL, x_hi = 0, y_lo = HUGE_VAL, y_hi = 0;
};

RooflinePoints roofline_points(const evidence::Evidence& evidence) {
  RooflinePoints out;
  for (const auto& m : evidence.measurements) {
    if (!m.roofline || !(m.roofline->intensity > 0) || !(m.roofline->achieved_flops_per_second > 0))
      continue;
    const auto& r = *m.roofline;
    auto& points = out.by_case[m.case_name];
    if (points.empty())
      out.order.push_back(m.case_name);
    points.push_back({&m, r.intensity, r.achieved_flops_per_second});
    out.x_lo = std::min(out.x_lo, r.intensity);
    out.x_hi = std::max(out.x_hi, r.intensity);
    out.y_lo = std::min(out.y_lo, r.achieved_flops_per_second);
    out.y_hi = std::max(out.y_hi, r.achieved_flops_per_second);
  }
  for (const auto& p : evidence.roofline_peaks) {
    const double flops = ceiling_flops(p);
    const double ridge = flops / p.bytes_per_second;
    out.x_lo = std::min(out.x_lo, ridge);
    out.x_hi = std::max(out.x_hi, ridge);
    out.y_hi = std::max(out.y_hi, flops);
  }
  return out;
}

// The chart's geometry: whole decades around everything, so that the slope reads as 1:1.
struct RooflineFrame {
  static constexpr double width = 760;
  static constexpr double height = 420;
  static constexpr double left = 80, right = 200, top = 20, bottom = 50;
  double dx0, dx1, dy0, dy1;
  svg::LinearScale x{dx0, dx1, left, width - right};
  svg::LinearScale y{dy0, dy1, height - bottom, top};
};

RooflineFrame roofline_frame(const RooflinePoints& points) {
  const double dx0 = std::floor(std::log10(points.x_lo)) - 1;
  const double dx1 = std::ceil(std::log10(points.x_hi)) + 1;
  const double dy0 = std::floor(std::log10(points.y_lo)) - 1;
  const double dy1 = std::ceil(std::log10(points.y_hi)) + 0.3;
  return {dx0, dx1, dy0, dy1};
}

void draw_roofline_axes(svg::Canvas& c, const RooflineFrame& f) {
  using F = RooflineFrame;
  // Decades are counted in integers (a double counter is a trap: see svg::nice_ticks).
  for (auto k = static_cast<long>(std::ceil(f.dx0)); static_cast<double>(k) <= f.dx1; ++k) {
    const auto d = static_cast<double>(k);
    c.line(f.x(d), F::top, f.x(d), F::height - F::bottom, "grid");
    c.text(f.x(d), F::height - F::bottom + 16, fmt::format("{:g}", std::pow(10.0, d)), "tick",
           svg::Canvas::Anchor::middle);
  }
  for (auto k = static_cast<long>(std::ceil(f.dy0)); static_cast<double>(k) <= f.dy1; ++k) {
    const auto d = static_cast<double>(k);
    c.line(F::left, f.y(d), F::width - F::right, f.y(d), "grid");
    c.text(F::left - 6, f.y(d) + 4, si_decade(d), "tick", svg::Canvas::Anchor::end);
  }
  c.text((F::left + F::width - F::right) / 2, F::height - 10,
         "arithmetic intensity, FLOPs per byte", "axis-title", svg::Canvas::Anchor::middle);
  c.text(16, (F::top + F::height - F::bottom) / 2, "FLOP/s", "axis-title",
         svg::Canvas::Anchor::middle, -90);
}

// Each device's memory slope up to its ridge point, then its compute ceiling, both labelled.
void draw_roofs(svg::Canvas& c, const RooflineFrame& f, const evidence::Evidence& evidence) {
  for (const auto& p : evidence.roofline_peaks) {
    const double flops = ceiling_flops(p);
    const double ridge = std::log10(flops / p.bytes_per_second);
    const double peak = std::log10(flops);
    const double slope_start = std::max(f.dx0, f.dy0 - std::log10(p.bytes_per_second));
    c.polyline({{f.x(slope_start), f.y(slope_start + std::log10(p.bytes_per_second))},
                {f.x(ridge), f.y(peak)},
                {f.x(f.dx1), f.y(peak)}},
               "roof");
    c.text(f.x(f.dx1) - 6, f.y(peak) - 8, si_rate(flops, "FLOP"), "legend",
           svg::Canvas::Anchor::end, 0, p.device);
    c.text(f.x(ridge) - 8, f.y(peak) - 8, si_rate(p.bytes_per_second, "B"), "legend",
           svg::Canvas::Anchor::end, 0, p.device);
  }
}

// One case: an arrow from each commit's point to the next one's, the points with their figures
// as tooltips, and its line in the legend.
void draw_case(svg::Canvas& c, const RooflineFrame& f, std::size_t index, const std::string& name,
               const std::vector<RooflinePoints::Point>& points) {
  using F = RooflineFrame;
  const auto css = fmt::format("s{}", index % 6);
  for (std::size_t k = 0; k + 1 < points.size(); ++k) {
    const double x1 = f.x(std::log10(points[k].x));
    const double y1 = f.y(std::log10(points[k].y));
    const double x2 = f.x(std::log10(points[k + 1].x));
    const double y2 = f.y(std::log10(points[k + 1].y));
    c.line(x1, y1, x2, y2, "arrow " + css);
    // Its head shows which way the case moved, however short the move (8% is a pixel or two on
    // these decades).
    const double length = std::hypot(x2 - x1, y2 - y1);
    if (length > 0.01) {
      const double ux = (x2 - x1) / length;
      const double uy = (y2 - y1) / length;
      c.polyline({{x2 - (7 * ux) - (4 * uy), y2 - (7 * uy) + (4 * ux)},
                  {x2, y2},
                  {x2 - (7 * ux) + (4 * uy), y2 - (7 * uy) - (4 * ux)}},
                 "arrow " + css);
    }
  }
  for (std::size_t k = 0; k < points.size(); ++k) {
    const auto& m = *points[k].m;
    const auto& r = *m.roofline;
    c.circle(f.x(std::log10(points[k].x)), f.y(std::log10(points[k].y)), 4.5,
             fmt::format("pt {}{}", css, k == 0 ? "" : " head"),
             fmt::format("{} at {}: {}, {} FLOPs/byte, {}", m.case_name, short_id(m.commit),
                         achieved_text(r), format_significant(r.intensity),
                         fraction_text(r.fraction, r.limiter, r.fraction_ci)));
  }
  const double ly = F::top + 40 + (static_cast<double>(index) * 18);
  c.circle(F::width - F::right + 18, ly - 4, 4, "pt " + css);
  c.text(F::width - F::right + 28, ly, ellipsize(name, 22), "legend " + css,
         svg::Canvas::Anchor::start, 0, name);
}

} // namespace

std::string roofline_svg(const evidence::Evidence& evidence) {
  const auto points = roofline_points(evidence);
  if (points.order.empty() || evidence.roofline_peaks.empty())
    return {};
  const auto frame = roofline_frame(points);
  svg::Canvas c(RooflineFrame::width, RooflineFrame::height, "roofline-plot", "Roofline",
                "Achieved FLOP/s of each case against its arithmetic intensity (FLOPs per byte), "
                "on log scales, under the memory slope and the compute ceiling of the device; a "
                "case measured at two commits is drawn at both, with an arrow from base to head.");
  draw_roofline_axes(c, frame);
  draw_roofs(c, frame, evidence);
  for (std::size_t i = 0; i < points.order.size(); ++i)
    draw_case(c, frame, i, points.order[i], points.by_case.at(points.order[i]));
  return c.finish();
}

} // namespace culprit::report
