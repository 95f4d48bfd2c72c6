#pragma once
// Many cases at once: control of the false discovery rate by the step-up procedure of
// Benjamini & Hochberg ("Controlling the false discovery rate", JRSS B 1995). With m p-values
// sorted ascending, reject the k smallest where k is the largest i with p_(i) <= i q / m. The
// adjusted p-value of p_(i) is min over j >= i of min(1, p_(j) m / j); a case is a discovery
// when its adjusted p-value is <= q. Valid for independent or positively dependent tests (for
// cases measured in the same runs, positive dependence is the usual situation).

#include <cstddef>
#include <span>
#include <vector>

#include "stats/error.hpp"

namespace culprit::stats {

struct FalseDiscoveryControl {
  std::vector<double> adjusted;         // in the order of the input
  std::vector<std::size_t> discoveries; // indices into the input, ascending
};

// p-values in [0, 1], at least one; q in (0, 1).
Result<FalseDiscoveryControl> benjamini_hochberg(std::span<const double> p_values, double q);

} // namespace culprit::stats
