#include "reduce.cuh"

#include <algorithm>

#include "block_reduce.cuh"

namespace kernels::cuda {

namespace {

constexpr int k_threads = 256;
constexpr int k_tree_depth = 8; // log2(k_threads)
constexpr std::int64_t k_elements_per_thread = 16;
constexpr int k_max_blocks = 1024;

} // namespace

__global__ void reduce_partials_kernel(const float* __restrict__ x, std::int64_t n,
                                       float* __restrict__ partials) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float sum = 0.0F;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    sum += x[i];
  sum = block_reduce(sum, SumOp{}, 0.0F);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = sum;
}

__global__ void reduce_final_kernel(const float* __restrict__ partials, int count,
                                    float* __restrict__ result) {
  float sum = 0.0F;
  for (int i = static_cast<int>(threadIdx.x); i < count; i += static_cast<int>(blockDim.x))
    sum += partials[i];
  sum = block_reduce(sum, SumOp{}, 0.0F);
  if (threadIdx.x == 0)
    *result = sum;
}

int reduce_blocks(std::int64_t n) {
  const std::int64_t per_block = k_threads * k_elements_per_thread;
  return static_cast<int>(std::max<std::int64_t>(
      1, std::min<std::int64_t>(k_max_blocks, (n + per_block - 1) / per_block)));
}

cudaError_t reduce_sum(const float* x, std::int64_t n, float* partials, float* result,
                       cudaStream_t stream) {
  const int blocks = reduce_blocks(n);
  reduce_partials_kernel<<<blocks, k_threads, 0, stream>>>(x, n, partials);
  reduce_final_kernel<<<1, k_threads, 0, stream>>>(partials, blocks, result);
  return cudaGetLastError();
}

std::size_t reduce_sum_depth(std::int64_t n) {
  const std::int64_t threads = static_cast<std::int64_t>(reduce_blocks(n)) * k_threads;
  const auto per_thread = static_cast<std::size_t>((n + threads - 1) / threads);
  const auto final_per_thread =
      static_cast<std::size_t>((reduce_blocks(n) + k_threads - 1) / k_threads);
  return per_thread + k_tree_depth + final_per_thread + k_tree_depth;
}

} // namespace kernels::cuda
