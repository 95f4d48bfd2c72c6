#pragma once
// saxpy: y <- a*x + y over n floats. The memory-bound reference kernel: 2 FLOPs for 12 bytes
// moved per element (read x and y, write y), far below any machine's ridge point.

#include <cstddef>

namespace kernels {

void saxpy(std::size_t n, float a, const float* x, float* y);

} // namespace kernels
