#include "layernorm.hpp"

#include <cmath>

namespace kernels {

namespace {

float combine(float (&lanes)[k_layernorm_lanes]) {
  for (std::size_t width = k_layernorm_lanes / 2; width > 0; width /= 2) {
    for (std::size_t lane = 0; lane < width; ++lane)
      lanes[lane] += lanes[lane + width];
  }
  return lanes[0];
}

} // namespace

void layernorm_rows(std::size_t rows, std::size_t cols, const float* x, const float* gamma,
                    const float* beta, float epsilon, float* y) {
  const float count = static_cast<float>(cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* in = x + r * cols;
    float* out = y + r * cols;
    float sums[k_layernorm_lanes] = {};
    for (std::size_t j = 0; j < cols; ++j)
      sums[j % k_layernorm_lanes] += in[j];
    const float mean = combine(sums) / count;
    float squares[k_layernorm_lanes] = {};
    for (std::size_t j = 0; j < cols; ++j) {
      const float deviation = in[j] - mean;
      squares[j % k_layernorm_lanes] += deviation * deviation;
    }
    const float inverse_std = 1.0F / std::sqrt(combine(squares) / count + epsilon);
    for (std::size_t j = 0; j < cols; ++j)
      out[j] = (in[j] - mean) * inverse_std * gamma[j] + beta[j];
  }
}

} // namespace kernels
