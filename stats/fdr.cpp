#include "stats/fdr.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "stats/error.hpp"
#include "stats/validate.hpp"

namespace culprit::stats {

Result<FalseDiscoveryControl> benjamini_hochberg(std::span<const double> p_values, double q) {
  CULPRIT_STATS_TRY(check_probability(q, "the false discovery rate q"));
  if (p_values.empty())
    return fail(ErrorKind::empty, "no p-values to correct");
  for (std::size_t i = 0; i < p_values.size(); ++i)
    if (!between(p_values[i], 0.0, 1.0))
      return fail(ErrorKind::invalid_argument, "p-value {} is {}, not a probability in [0, 1]", i,
                  p_values[i]);

  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  for (std::size_t i = 0; i < m; ++i)
    order[i] = i;
  // Ties keep their input order (a total order, so std::sort is stable here).
  std::ranges::sort(order, [&](std::size_t a, std::size_t b) {
    return p_values[a] < p_values[b] || (p_values[a] == p_values[b] && a < b);
  });
  FalseDiscoveryControl result;
  result.adjusted.resize(m);
  double running_min = 1.0;
  for (std::size_t rank = m; rank >= 1; --rank) {
    const std::size_t index = order[rank - 1];
    const double scaled = p_values[index] * static_cast<double>(m) / static_cast<double>(rank);
    running_min = std::min(running_min, scaled);
    result.adjusted[index] = running_min;
  }
  for (std::size_t i = 0; i < m; ++i)
    if (result.adjusted[i] <= q)
      result.discoveries.push_back(i);
  return result;
}

} // namespace culprit::stats
