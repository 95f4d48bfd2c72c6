#pragma once
// SGEMM on the GPU: C <- alpha*A*B + beta*C, row-major and dense (see kernels/cpu/sgemm.hpp).
// Each block of 256 threads computes a 64 x 64 tile of C, staging 64 x 16 tiles of A and
// 16 x 64 tiles of B through shared memory; each thread accumulates a 4 x 4 tile in registers.

#include <cuda_runtime.h>

namespace kernels::cuda {

// Launches on `stream`; returns the launch's error. Sides up to 2^20 (the grid's y extent).
cudaError_t sgemm(int m, int n, int k, float alpha, const float* a, const float* b, float beta,
                  float* c, cudaStream_t stream);

} // namespace kernels::cuda
