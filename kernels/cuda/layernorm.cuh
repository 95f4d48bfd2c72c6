#pragma once
// Row layernorm on the GPU (see kernels/cpu/layernorm.hpp): one block of 256 threads per row;
// the mean, then the mean of squared deviations, are block reductions.

#include <cstdint>

#include <cuda_runtime.h>

namespace kernels::cuda {

// Launches on `stream`; returns the launch's error. rows up to 2^31 - 1.
cudaError_t layernorm_rows(std::int64_t rows, int cols, const float* x, const float* gamma,
                           const float* beta, float epsilon, float* y, cudaStream_t stream);

} // namespace kernels::cuda
