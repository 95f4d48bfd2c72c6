#include "softmax.cuh"

#include <cmath>
#include <cstddef>

#include "block_reduce.cuh"

namespace kernels::cuda {

__global__ void softmax_kernel(int cols, const float* __restrict__ x, float* __restrict__ y) {
  const float* in = x + static_cast<std::size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<std::size_t>(blockIdx.x) * cols;
  const int first = static_cast<int>(threadIdx.x);
  const int stride = static_cast<int>(blockDim.x);
  float maximum = -INFINITY;
  for (int j = first; j < cols; j += stride)
    maximum = fmaxf(maximum, in[j]);
  maximum = block_reduce(maximum, MaxOp{}, -INFINITY);
  float sum = 0.0F;
  for (int j = first; j < cols; j += stride) {
    const float e = expf(in[j] - maximum);
    out[j] = e;
    sum += e;
  }
  const float inverse = 1.0F / block_reduce(sum, SumOp{}, 0.0F);
  for (int j = first; j < cols; j += stride)
    out[j] *= inverse;
}

cudaError_t softmax_rows(std::int64_t rows, int cols, const float* x, float* y,
                         cudaStream_t stream) {
  constexpr int k_threads = 256;
  softmax_kernel<<<static_cast<unsigned>(rows), k_threads, 0, stream>>>(cols, x, y);
  return cudaGetLastError();
}

} // namespace kernels::cuda
