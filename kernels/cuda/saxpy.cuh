#pragma once
// saxpy on the GPU: y <- a*x + y (see kernels/cpu/saxpy.hpp), a grid-stride loop.

#include <cstdint>

#include <cuda_runtime.h>

namespace kernels::cuda {

// Launches on `stream`; returns the launch's error.
cudaError_t saxpy(std::int64_t n, float a, const float* x, float* y, cudaStream_t stream);

} // namespace kernels::cuda
