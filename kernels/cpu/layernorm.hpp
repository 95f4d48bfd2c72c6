#pragma once
// layernorm: for each row r of a row-major rows x cols matrix,
//   y[r][j] = (x[r][j] - mean_r) / sqrt(var_r + epsilon) * gamma[j] + beta[j]
// with the mean and the (biased) variance of the row. Two passes over the row, as the CUDA
// kernel does: the mean first, then the mean of squared deviations from it, which stays
// accurate when the mean is large against the spread (the one-pass E[x^2] - E[x]^2 does not).
// Each sum uses k_layernorm_lanes interleaved partial sums combined pairwise.
// 8 FLOPs per element; 8 bytes per element (read x, write y) plus 8 per column (gamma, beta).

#include <cstddef>

namespace kernels {

constexpr std::size_t k_layernorm_lanes = 16;

void layernorm_rows(std::size_t rows, std::size_t cols, const float* x, const float* gamma,
                    const float* beta, float epsilon, float* y);

} // namespace kernels
