#pragma once
// The sum of n floats on the GPU (see kernels/cpu/reduce.hpp): a first launch in which each
// block sums a grid-stride share of the input (each thread serially, then the block's tree)
// into one partial sum per block, and a second launch of one block that sums the partials.

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace kernels::cuda {

// How many partial sums the first launch writes: the size of reduce_sum's `partials` buffer.
int reduce_blocks(std::int64_t n);

// Writes the sum of x[0..n) to *result (device memory), using `partials` (device memory of
// reduce_blocks(n) floats). Launches on `stream`; returns the launches' error.
cudaError_t reduce_sum(const float* x, std::int64_t n, float* partials, float* result,
                       cudaStream_t stream);

// The longest chain of additions in reduce_sum's summation tree (see kernels/reference/check.hpp).
std::size_t reduce_sum_depth(std::int64_t n);

} // namespace kernels::cuda
