#include "core/report/svg.hpp"

#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "core/util/escape.hpp"

namespace culprit::report::svg {
namespace {

std::string_view anchor_name(Canvas::Anchor anchor) {
  switch (anchor) {
  case Canvas::Anchor::middle:
    return "middle";
  case Canvas::Anchor::end:
    return "end";
  default:
    return "start";
  }
}

std::string tooltip_element(std::string_view tooltip) {
  return tooltip.empty() ? std::string() : "<title>" + html_escape(tooltip) + "</title>";
}

} // namespace

double LinearScale::operator()(double value) const {
  if (d1 == d0 || !std::isfinite(value))
    return (r0 + r1) / 2;
  return r0 + (value - d0) / (d1 - d0) * (r1 - r0);
}

std::vector<double> nice_ticks(double lo, double hi, int count) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || count < 1)
    return {lo};
  const double raw = (hi - lo) / count;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * power) {
      step = m * power;
      break;
    }
  // Ticks are whole multiples of step, counted in integers so that no rounding error accumulates.
  // A range too narrow for its magnitude (step below lo's precision) gets the one tick.
  const double first_multiple = std::ceil(lo / step);
  if (!(std::abs(first_multiple) < 0x1p52))
    return {lo};
  std::vector<double> ticks;
  for (auto k = static_cast<std::int64_t>(first_multiple);; ++k) {
    const double t = static_cast<double>(k) * step;
    if (t > hi + step * 1e-9)
      return ticks;
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  }
}

std::pair<double, double> padded(double lo, double hi, double fraction) {
  if (!(hi > lo)) {
    const double half = std::abs(lo) > 0 ? std::abs(lo) * 0.05 : 1.0;
    return {lo - half, hi + half};
  }
  const double margin = (hi - lo) * fraction;
  return {lo - margin, hi + margin};
}

Canvas::Canvas(double width, double height, std::string_view id, std::string_view label,
               std::string_view description) {
  m_out = fmt::format("<svg id=\"{}\" class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" "
                      "viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\" aria-label=\"{}\">"
                      "<desc>{}</desc>\n",
                      html_escape(id), width, height, html_escape(label), html_escape(description));
}

void Canvas::line(double x1, double y1, double x2, double y2, std::string_view css_class) {
  m_out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                       "class=\"{}\"/>\n",
                       x1, y1, x2, y2, css_class);
}

void Canvas::rect(double x, double y, double w, double h, std::string_view css_class,
                  std::string_view tooltip) {
  m_out +=
      fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                  "class=\"{}\">{}</rect>\n",
                  x, y, std::max(w, 0.0), std::max(h, 0.0), css_class, tooltip_element(tooltip));
}

void Canvas::circle(double cx, double cy, double r, std::string_view css_class,
                    std::string_view tooltip) {
  m_out +=
      fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" class=\"{}\">{}</circle>\n", cx,
                  cy, r, css_class, tooltip_element(tooltip));
}

void Canvas::polyline(const std::vector<std::pair<double, double>>& points,
                      std::string_view css_class) {
  if (points.size() < 2)
    return;
  std::string coordinates;
  for (const auto& [x, y] : points)
    coordinates += fmt::format("{}{:.1f},{:.1f}", coordinates.empty() ? "" : " ", x, y);
  m_out += fmt::format("<polyline points=\"{}\" class=\"{}\"/>\n", coordinates, css_class);
}

void Canvas::text(double x, double y, std::string_view text, std::string_view css_class,
                  Anchor anchor, double rotate_degrees, std::string_view tooltip) {
  const auto rotate =
      rotate_degrees == 0
          ? std::string()
          : fmt::format(" transform=\"rotate({:.0f} {:.1f} {:.1f})\"", rotate_degrees, x, y);
  m_out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"{}\" text-anchor=\"{}\"{}>{}{}"
                       "</text>\n",
                       x, y, css_class, anchor_name(anchor), rotate, tooltip_element(tooltip),
                       html_escape(text));
}

std::string Canvas::finish() const {
  return m_out + "</svg>\n";
}

} // namespace culprit::report::svg
