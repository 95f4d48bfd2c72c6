#pragma once
// Row softmax on the GPU (see kernels/cpu/softmax.hpp): one block of 256 threads per row; the
// row's maximum and the sum of exponentials are block reductions.

#include <cstdint>

#include <cuda_runtime.h>

namespace kernels::cuda {

// Launches on `stream`; returns the launch's error. rows up to 2^31 - 1.
cudaError_t softmax_rows(std::int64_t rows, int cols, const float* x, float* y,
                         cudaStream_t stream);

} // namespace kernels::cuda
