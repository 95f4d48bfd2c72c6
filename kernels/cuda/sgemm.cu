#include "sgemm.cuh"

#include <cstddef>

namespace kernels::cuda {

namespace {

constexpr int k_block_m = 64;
constexpr int k_block_n = 64;
constexpr int k_block_k = 16;
constexpr int k_thread_m = 4;
constexpr int k_thread_n = 4;
constexpr int k_threads = (k_block_m / k_thread_m) * (k_block_n / k_thread_n);

} // namespace

__global__ void sgemm_kernel(int m, int n, int k, float alpha, const float* __restrict__ a,
                             const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ float a_tile[k_block_k][k_block_m]; // transposed: a thread reads a column of it
  __shared__ float b_tile[k_block_k][k_block_n];
  const int thread_col = static_cast<int>(threadIdx.x) % (k_block_n / k_thread_n);
  const int thread_row = static_cast<int>(threadIdx.x) / (k_block_n / k_thread_n);
  const int row0 = static_cast<int>(blockIdx.y) * k_block_m;
  const int col0 = static_cast<int>(blockIdx.x) * k_block_n;
  float accumulators[k_thread_m][k_thread_n] = {};

  for (int p0 = 0; p0 < k; p0 += k_block_k) {
    for (int e = static_cast<int>(threadIdx.x); e < k_block_m * k_block_k; e += k_threads) {
      const int row = row0 + e / k_block_k;
      const int p = p0 + e % k_block_k;
      a_tile[e % k_block_k][e / k_block_k] =
          row < m && p < k ? a[static_cast<std::size_t>(row) * k + p] : 0.0F;
    }
    for (int e = static_cast<int>(threadIdx.x); e < k_block_k * k_block_n; e += k_threads) {
      const int p = p0 + e / k_block_n;
      const int col = col0 + e % k_block_n;
      b_tile[e / k_block_n][e % k_block_n] =
          p < k && col < n ? b[static_cast<std::size_t>(p) * n + col] : 0.0F;
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < k_block_k; ++p) {
      float a_values[k_thread_m];
      float b_values[k_thread_n];
#pragma unroll
      for (int i = 0; i < k_thread_m; ++i)
        a_values[i] = a_tile[p][thread_row * k_thread_m + i];
#pragma unroll
      for (int j = 0; j < k_thread_n; ++j)
        b_values[j] = b_tile[p][thread_col * k_thread_n + j];
#pragma unroll
      for (int i = 0; i < k_thread_m; ++i) {
#pragma unroll
        for (int j = 0; j < k_thread_n; ++j)
          accumulators[i][j] += a_values[i] * b_values[j];
      }
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < k_thread_m; ++i) {
#pragma unroll
    for (int j = 0; j < k_thread_n; ++j) {
      const int row = row0 + thread_row * k_thread_m + i;
      const int col = col0 + thread_col * k_thread_n + j;
      if (row < m && col < n) {
        float& out = c[static_cast<std::size_t>(row) * n + col];
        out = alpha * accumulators[i][j] + (beta == 0.0F ? 0.0F : beta * out);
      }
    }
  }
}

cudaError_t sgemm(int m, int n, int k, float alpha, const float* a, const float* b, float beta,
                  float* c, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((n + k_block_n - 1) / k_block_n),
                  static_cast<unsigned>((m + k_block_m - 1) / k_block_m));
  sgemm_kernel<<<grid, k_threads, 0, stream>>>(m, n, k, alpha, a, b, beta, c);
  return cudaGetLastError();
}

} // namespace kernels::cuda
