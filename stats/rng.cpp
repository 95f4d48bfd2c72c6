#include "stats/rng.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace culprit::stats {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  state += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = state;
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

} // namespace

Rng::Rng(std::uint64_t seed, std::uint64_t stream) {
  // Mix the seed before adding the stream, so that (seed, stream) and (seed + 1, stream - 1) do
  // not start from the same SplitMix64 state.
  std::uint64_t mixer = seed;
  std::uint64_t state = splitmix64(mixer) ^ (stream * 0xD1B54A32D192ED03ULL);
  for (auto& word : m_state)
    word = splitmix64(state);
}

double Rng::normal() {
  if (m_has_spare) {
    m_has_spare = false;
    return m_spare_normal;
  }
  double u = 0.0;
  double v = 0.0;
  double s = 0.0;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * std::log(s) / s);
  m_spare_normal = v * factor;
  m_has_spare = true;
  return u * factor;
}

double Rng::gamma(double shape) {
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) * U^(1/a).
    return gamma(shape + 1.0) * std::pow(uniform_open(), 1.0 / shape);
  }
  const double d = shape - (1.0 / 3.0);
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    double x = 0.0;
    double v = 0.0;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform_open();
    if (u < 1.0 - (0.0331 * (x * x) * (x * x)))
      return d * v;
    if (std::log(u) < (0.5 * x * x) + (d * (1.0 - v + std::log(v))))
      return d * v;
  }
}

double Rng::beta(double a, double b) {
  if (a == 1.0)
    return 1.0 - std::pow(uniform_open(), 1.0 / b);
  if (b == 1.0)
    return std::pow(uniform_open(), 1.0 / a);
  const double x = gamma(a);
  const double y = gamma(b);
  return x / (x + y);
}

double Rng::order_statistic(std::size_t k, std::size_t n) {
  if (n > k_direct_order_statistic || k < 1 || k > n)
    return beta(static_cast<double>(k), static_cast<double>(n + 1 - k));
  // Sorted as they are drawn (an insertion sort: a handful of comparisons for the few uniforms of
  // a point's samples, where std::nth_element's setup cost more than the draws).
  std::array<double, k_direct_order_statistic> sorted; // only [0, n) is written and read
  for (std::size_t i = 0; i < n; ++i) {
    const double u = uniform();
    std::size_t at = i;
    for (; at > 0 && sorted[at - 1] > u; --at)
      sorted[at] = sorted[at - 1];
    sorted[at] = u;
  }
  return sorted[k - 1];
}

} // namespace culprit::stats
