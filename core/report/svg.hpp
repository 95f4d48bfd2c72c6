#pragma once
// A small SVG writer for the plots of the HTML report: a canvas of fixed view-box size whose
// elements carry CSS classes (the page's stylesheet colours them, and prints them), linear
// scales and readable tick values. Text is escaped here, so callers pass plain strings.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace culprit::report::svg {

// Maps [d0, d1] onto [r0, r1]. A degenerate domain maps everything to the middle of the range.
struct LinearScale {
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
  [[nodiscard]] double operator()(double value) const;
};

// About `count` round values (1, 2 or 5 times a power of ten apart) within [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int count);

// [lo, hi] widened by `fraction` of its width on each side, and made non-empty.
std::pair<double, double> padded(double lo, double hi, double fraction);

class Canvas {
public:
  // `label` is the plot's accessible name; `description` says what it shows.
  Canvas(double width, double height, std::string_view id, std::string_view label,
         std::string_view description);

  void line(double x1, double y1, double x2, double y2, std::string_view css_class);
  void rect(double x, double y, double w, double h, std::string_view css_class,
            std::string_view tooltip = {});
  void circle(double cx, double cy, double r, std::string_view css_class,
              std::string_view tooltip = {});
  void polyline(const std::vector<std::pair<double, double>>& points, std::string_view css_class);
  enum class Anchor { start, middle, end };
  void text(double x, double y, std::string_view text, std::string_view css_class,
            Anchor anchor = Anchor::start, double rotate_degrees = 0,
            std::string_view tooltip = {});
  // A y axis at x with tick labels; `format` turns a tick value into its label.
  template <class Format>
  void y_axis(double x, double x_end, const LinearScale& y, const std::vector<double>& ticks,
              Format format) {
    for (const double t : ticks) {
      line(x, y(t), x_end, y(t), "grid");
      text(x - 6, y(t) + 4, format(t), "tick", Anchor::end);
    }
    line(x, y.r0, x, y.r1, "axis");
  }

  [[nodiscard]] std::string finish() const;

private:
  std::string m_out;
};

} // namespace culprit::report::svg
