#include "layernorm.cuh"

#include <cstddef>

#include "block_reduce.cuh"

namespace kernels::cuda {

__global__ void layernorm_kernel(int cols, const float* __restrict__ x,
                                 const float* __restrict__ gamma, const float* __restrict__ beta,
                                 float epsilon, float* __restrict__ y) {
  const float* in = x + static_cast<std::size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<std::size_t>(blockIdx.x) * cols;
  const int first = static_cast<int>(threadIdx.x);
  const int stride = static_cast<int>(blockDim.x);
  const auto count = static_cast<float>(cols);
  float sum = 0.0F;
  for (int j = first; j < cols; j += stride)
    sum += in[j];
  const float mean = block_reduce(sum, SumOp{}, 0.0F) / count;
  float squares = 0.0F;
  for (int j = first; j < cols; j += stride) {
    const float deviation = in[j] - mean;
    squares += deviation * deviation;
  }
  const float inverse_std = rsqrtf(block_reduce(squares, SumOp{}, 0.0F) / count + epsilon);
  for (int j = first; j < cols; j += stride)
    out[j] = (in[j] - mean) * inverse_std * gamma[j] + beta[j];
}

cudaError_t layernorm_rows(std::int64_t rows, int cols, const float* x, const float* gamma,
                           const float* beta, float epsilon, float* y, cudaStream_t stream) {
  constexpr int k_threads = 256;
  layernorm_kernel<<<static_cast<unsigned>(rows), k_threads, 0, stream>>>(cols, x, gamma, beta,
                                                                          epsilon, y);
  return cudaGetLastError();
}

} // namespace kernels::cuda
