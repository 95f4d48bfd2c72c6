#include "sgemm.hpp"

#include <algorithm>

namespace kernels {

namespace {

// A 64 x 128 tile of A (32 KiB) and a 128 x 256 tile of B (128 KiB) stay in L2 while a
// 64 x 256 tile of C is updated.
constexpr std::size_t k_tile_m = 64;
constexpr std::size_t k_tile_n = 256;
constexpr std::size_t k_tile_k = 128;

} // namespace

void sgemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, const float* b,
           float beta, float* c) {
  for (std::size_t i = 0; i < m * n; ++i)
    c[i] = beta == 0.0F ? 0.0F : beta * c[i]; // beta == 0 must not turn garbage or NaN into C
  for (std::size_t i0 = 0; i0 < m; i0 += k_tile_m) {
    const std::size_t i1 = std::min(m, i0 + k_tile_m);
    for (std::size_t p0 = 0; p0 < k; p0 += k_tile_k) {
      const std::size_t p1 = std::min(k, p0 + k_tile_k);
      for (std::size_t j0 = 0; j0 < n; j0 += k_tile_n) {
        const std::size_t j1 = std::min(n, j0 + k_tile_n);
        for (std::size_t i = i0; i < i1; ++i) {
          for (std::size_t p = p0; p < p1; ++p) {
            const float scaled = alpha * a[i * k + p];
            for (std::size_t j = j0; j < j1; ++j)
              c[i * n + j] += scaled * b[p * n + j];
          }
        }
      }
    }
  }
}

} // namespace kernels
