#include "softmax.hpp"

#include <algorithm>
#include <cmath>

namespace kernels {

void softmax_rows(std::size_t rows, std::size_t cols, const float* x, float* y) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* in = x + r * cols;
    float* out = y + r * cols;
    float maximum = in[0];
    for (std::size_t j = 1; j < cols; ++j)
      maximum = std::max(maximum, in[j]);
    float lanes[k_softmax_lanes] = {};
    for (std::size_t j = 0; j < cols; ++j) {
      out[j] = std::exp(in[j] - maximum);
      lanes[j % k_softmax_lanes] += out[j];
    }
    for (std::size_t width = k_softmax_lanes / 2; width > 0; width /= 2) {
      for (std::size_t lane = 0; lane < width; ++lane)
        lanes[lane] += lanes[lane + width];
    }
    const float inverse = 1.0F / lanes[0];
    for (std::size_t j = 0; j < cols; ++j)
      out[j] *= inverse;
  }
}

} // namespace kernels
