#pragma once
// sgemm: C <- alpha*A*B + beta*C for row-major A (m x k), B (k x n) and C (m x n), each stored
// densely (leading dimension = width). Tiled for the caches as the CUDA kernel is tiled for
// shared memory: a tile of A's rows meets a tile of B's rows and updates a tile of C, the
// innermost loop running along a row of B and of C so that it streams and vectorizes.
// 2*m*n*k FLOPs; at least 4*(m*k + k*n + m*n) bytes, plus 4*m*n when beta is not zero.

#include <cstddef>

namespace kernels {

void sgemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, const float* b,
           float beta, float* c);

} // namespace kernels
