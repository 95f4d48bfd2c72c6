#include "saxpy.hpp"

namespace kernels {

void saxpy(std::size_t n, float a, const float* x, float* y) {
  for (std::size_t i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

} // namespace kernels
