#pragma once
// softmax: y[r][j] = exp(x[r][j] - max_r) / sum_j exp(x[r][j] - max_r) for each row r of a
// row-major rows x cols matrix. Subtracting the row's maximum first keeps exp from overflowing
// (inputs of 100 would overflow a float exp). Computed as the CUDA kernel computes it: one row at
// a time, the maximum, then k_softmax_lanes interleaved partial sums of the exponentials
// combined pairwise, then a multiplication by the reciprocal of the sum.
// 5 FLOPs per element (compare, subtract, exp, add, multiply); 8 bytes (read x, write y).

#include <cstddef>

namespace kernels {

constexpr std::size_t k_softmax_lanes = 16;

void softmax_rows(std::size_t rows, std::size_t cols, const float* x, float* y);

} // namespace kernels
