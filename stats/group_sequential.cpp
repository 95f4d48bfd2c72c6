#include "stats/group_sequential.hpp"

#include <cmath>
#include <cstddef>
#include <numbers>
#include <span>
#include <vector>

#include <boost/math/distributions/complement.hpp>
#include <boost/math/distributions/normal.hpp>

#include "stats/error.hpp"
#include "stats/validate.hpp"

namespace culprit::stats {
namespace {

// Simpson's rule on this many points (odd) over the continuation region: boundaries to about
// 1e-4, which is far below what matters for a decision.
constexpr std::size_t k_grid_points = 301;
constexpr double k_max_boundary = 40.0;

// The standard normal's density and upper tail, inline: the integration evaluates them
// millions of times.
double density_at(double z) {
  constexpr double k_inverse_sqrt_two_pi = 0.3989422804014327;
  return k_inverse_sqrt_two_pi * std::exp(-0.5 * z * z);
}

double upper_tail(double z) {
  return 0.5 * std::erfc(z / std::numbers::sqrt2);
}

double upper_quantile(double p) {
  return boost::math::quantile(boost::math::complement(boost::math::normal(), p));
}

// A density of the score statistic S = Z sqrt(t) on an evenly spaced grid over [-b, b].
struct GridDensity {
  std::vector<double> points;
  std::vector<double> weighted; // density times the Simpson weight
};

GridDensity make_grid(double half_width) {
  GridDensity grid;
  grid.points.resize(k_grid_points);
  const double step = 2.0 * half_width / static_cast<double>(k_grid_points - 1);
  for (std::size_t i = 0; i < k_grid_points; ++i)
    grid.points[i] = -half_width + step * static_cast<double>(i);
  grid.weighted.assign(k_grid_points, 0.0);
  return grid;
}

double simpson_weight(std::size_t i, double step) {
  if (i == 0 || i == k_grid_points - 1)
    return step / 3.0;
  return (i % 2 == 1 ? 4.0 : 2.0) * step / 3.0;
}

// Probability of leaving [-half_width, half_width] at the next look, an increment of
// information `increment` later, without having left before.
double exit_probability(const GridDensity& density, double half_width, double increment) {
  const double scale = std::sqrt(increment);
  double total = 0.0;
  for (std::size_t i = 0; i < density.points.size(); ++i) {
    const double u = density.points[i];
    total += density.weighted[i] *
             (upper_tail((half_width - u) / scale) + upper_tail((half_width + u) / scale));
  }
  return total;
}

GridDensity propagate(const GridDensity& density, double half_width, double increment) {
  GridDensity next = make_grid(half_width);
  const double scale = std::sqrt(increment);
  const double step = next.points[1] - next.points[0];
  for (std::size_t j = 0; j < k_grid_points; ++j) {
    double value = 0.0;
    for (std::size_t i = 0; i < density.points.size(); ++i)
      value += density.weighted[i] * density_at((next.points[j] - density.points[i]) / scale);
    next.weighted[j] = value / scale * simpson_weight(j, step);
  }
  return next;
}

} // namespace

double obrien_fleming_spending(double t, double alpha) {
  const double z = upper_quantile(alpha / 4.0);
  return 2.0 * 2.0 * upper_tail(z / std::sqrt(t));
}

Result<std::vector<double>> obrien_fleming_boundaries(std::span<const double> information,
                                                      double alpha) {
  CULPRIT_STATS_TRY(check_probability(alpha, "the error rate alpha"));
  if (information.empty() || information.back() != 1.0)
    return fail(ErrorKind::invalid_argument,
                "information fractions must end with 1 (the last look)");
  double previous = 0.0;
  for (const double t : information) {
    if (!(t > previous))
      return fail(ErrorKind::invalid_argument,
                  "information fractions must increase strictly from above 0 to 1");
    previous = t;
  }

  std::vector<double> boundaries;
  boundaries.reserve(information.size());
  double spent = 0.0;
  double previous_t = 0.0;
  GridDensity density;
  for (std::size_t k = 0; k < information.size(); ++k) {
    const double t = information[k];
    const double cumulative = obrien_fleming_spending(t, alpha);
    const double target = cumulative - spent;
    double boundary = k_max_boundary;
    if (k == 0) {
      if (target > 0.0)
        boundary = upper_quantile(target / 2.0);
    } else {
      const double increment = t - previous_t;
      double low = 0.0;
      double high = k_max_boundary;
      for (int iteration = 0; iteration < 60; ++iteration) {
        const double middle = (low + high) / 2.0;
        if (exit_probability(density, middle * std::sqrt(t), increment) > target)
          low = middle;
        else
          high = middle;
      }
      boundary = (low + high) / 2.0;
    }
    boundaries.push_back(boundary);
    const double half_width = boundary * std::sqrt(t);
    if (k == 0) {
      density = make_grid(half_width);
      const double step = density.points[1] - density.points[0];
      const double scale = std::sqrt(t);
      for (std::size_t i = 0; i < k_grid_points; ++i)
        density.weighted[i] =
            density_at(density.points[i] / scale) / scale * simpson_weight(i, step);
    } else if (k + 1 < information.size()) {
      density = propagate(density, half_width, t - previous_t);
    }
    spent = cumulative;
    previous_t = t;
  }
  return boundaries;
}

} // namespace culprit::stats
