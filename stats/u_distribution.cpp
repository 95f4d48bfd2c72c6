#include "stats/u_distribution.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

#include <boost/math/special_functions/binomial.hpp>

namespace culprit::stats {

bool exact_u_is_practical(std::size_t m, std::size_t n) {
  return std::min(m, n) <= k_exact_small_sample && std::max(m, n) <= k_exact_large_sample;
}

std::vector<double> u_cdf(std::size_t m, std::size_t n, std::size_t max_k) {
  const std::size_t small = std::min(m, n);
  const std::size_t large = std::max(m, n);
  // counts[i][k]: arrangements of i values of the small sample and j of the large one with
  // U = k, for the current j.
  std::vector<std::vector<double>> counts(small + 1, std::vector<double>(max_k + 1, 0.0));
  for (auto& row : counts)
    row[0] = 1.0;
  for (std::size_t j = 1; j <= large; ++j)
    for (std::size_t i = 1; i <= small; ++i)
      for (std::size_t k = j; k <= max_k; ++k)
        counts[i][k] += counts[i - 1][k - j];

  const auto total = boost::math::binomial_coefficient<double>(static_cast<unsigned>(small + large),
                                                               static_cast<unsigned>(small));
  std::vector<double> cdf(max_k + 1);
  double running = 0.0;
  for (std::size_t k = 0; k <= max_k; ++k) {
    running += counts[small][k];
    cdf[k] = std::min(1.0, running / total);
  }
  return cdf;
}

} // namespace culprit::stats
