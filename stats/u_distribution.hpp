#pragma once
// The null distribution of the Mann-Whitney U statistic, exactly, for samples without ties.

#include <cstddef>
#include <vector>

namespace culprit::stats {

// Samples up to these sizes get the exact distribution (scipy's rule, with a bound on the work).
constexpr std::size_t k_exact_small_sample = 8;
constexpr std::size_t k_exact_large_sample = 1000;

bool exact_u_is_practical(std::size_t m, std::size_t n);

// P(U <= k) for k = 0..max_k, for samples of sizes m and n, from the recursion
// f(m, n, k) = f(m - 1, n, k - n) + f(m, n - 1, k) (Mann & Whitney 1947, Theorem 2.5 in the
// numbering of scipy's sources). Work m n max_k; only sums of non-negative counts, so it is
// accurate in the far tails too.
std::vector<double> u_cdf(std::size_t m, std::size_t n, std::size_t max_k);

} // namespace culprit::stats
