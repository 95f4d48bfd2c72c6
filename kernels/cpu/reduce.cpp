#include "reduce.hpp"

#include <algorithm>
#include <vector>

namespace kernels {

namespace {

float block_sum(const float* x, std::size_t count) {
  float lanes[k_reduce_lanes] = {};
  std::size_t i = 0;
  for (; i + k_reduce_lanes <= count; i += k_reduce_lanes) {
    for (std::size_t lane = 0; lane < k_reduce_lanes; ++lane)
      lanes[lane] += x[i + lane];
  }
  for (std::size_t lane = 0; i + lane < count; ++lane)
    lanes[lane] += x[i + lane];
  for (std::size_t width = k_reduce_lanes / 2; width > 0; width /= 2) {
    for (std::size_t lane = 0; lane < width; ++lane)
      lanes[lane] += lanes[lane + width];
  }
  return lanes[0];
}

std::size_t ceil_log2(std::size_t n) {
  std::size_t levels = 0;
  while ((std::size_t{1} << levels) < n)
    ++levels;
  return levels;
}

} // namespace

float reduce_sum(const float* x, std::size_t n) {
  std::vector<float> sums;
  sums.reserve((n + k_reduce_block - 1) / k_reduce_block);
  for (std::size_t start = 0; start < n; start += k_reduce_block)
    sums.push_back(block_sum(x + start, std::min(k_reduce_block, n - start)));
  while (sums.size() > 1) {
    const std::size_t half = sums.size() / 2;
    for (std::size_t i = 0; i < half; ++i)
      sums[i] = sums[2 * i] + sums[2 * i + 1];
    if (sums.size() % 2 == 1)
      sums[half] = sums.back();
    sums.resize(sums.size() - half);
  }
  return sums.empty() ? 0.0F : sums[0];
}

std::size_t reduce_sum_depth(std::size_t n) {
  const std::size_t per_lane = (std::min(n, k_reduce_block) + k_reduce_lanes - 1) / k_reduce_lanes;
  const std::size_t blocks = (n + k_reduce_block - 1) / k_reduce_block;
  return per_lane + ceil_log2(k_reduce_lanes) + ceil_log2(blocks);
}

} // namespace kernels
