#pragma once
// Reductions across a CUDA thread block: each warp reduces with shuffles, then the first warp
// reduces the warps' results. The tree has depth log2(blockDim.x) (8 for 256 threads).

#include <cuda_runtime.h>

namespace kernels::cuda {

struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// Reduces one value per thread over the block and returns the result to every thread.
// blockDim.x must be a multiple of 32; every thread of the block must call it (it synchronizes).
// `identity` is the value that does not change the result (0 for a sum, -infinity for a max).
template <class Op> __device__ float block_reduce(float value, Op op, float identity) {
  __shared__ float warp_results[32];
  const unsigned lane = threadIdx.x % 32U;
  const unsigned warp = threadIdx.x / 32U;
  for (int offset = 16; offset > 0; offset /= 2)
    value = op(value, __shfl_xor_sync(0xFFFFFFFFU, value, offset));
  if (lane == 0)
    warp_results[warp] = value;
  __syncthreads();
  value = lane < blockDim.x / 32U ? warp_results[lane] : identity;
  for (int offset = 16; offset > 0; offset /= 2)
    value = op(value, __shfl_xor_sync(0xFFFFFFFFU, value, offset));
  __syncthreads(); // every warp has read warp_results before the next call may write it
  return value;
}

} // namespace kernels::cuda
