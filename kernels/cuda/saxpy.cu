#include "saxpy.cuh"

#include <algorithm>

namespace kernels::cuda {

__global__ void saxpy_kernel(std::int64_t n, float a, const float* __restrict__ x,
                             float* __restrict__ y) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    y[i] = a * x[i] + y[i];
}

cudaError_t saxpy(std::int64_t n, float a, const float* x, float* y, cudaStream_t stream) {
  constexpr int k_threads = 256;
  constexpr std::int64_t k_max_blocks = 65536;
  const auto blocks = static_cast<unsigned>(
      std::max<std::int64_t>(1, std::min(k_max_blocks, (n + k_threads - 1) / k_threads)));
  saxpy_kernel<<<blocks, k_threads, 0, stream>>>(n, a, x, y);
  return cudaGetLastError();
}

} // namespace kernels::cuda
