#pragma once
// reduce: the sum of n floats, computed as the CUDA kernel computes it. The input is cut into
// blocks of k_reduce_block elements; within a block, k_reduce_lanes interleaved partial sums
// (the threads of a CUDA block) are combined pairwise (the shared-memory tree); the block sums
// are then combined pairwise (the second kernel launch). 1 FLOP and 4 bytes per element.

#include <cstddef>

namespace kernels {

constexpr std::size_t k_reduce_lanes = 16;
constexpr std::size_t k_reduce_block = 4096;

float reduce_sum(const float* x, std::size_t n);

// The longest chain of additions that any element goes through in reduce_sum: the depth that
// bounds its rounding error (see kernels/reference/check.hpp).
std::size_t reduce_sum_depth(std::size_t n);

} // namespace kernels
