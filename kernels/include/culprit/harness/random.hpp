#pragma once
// Fresh random inputs for kernels: measuring or checking a kernel on zeros hides both bugs
// (a missed element still reads as zero) and timing effects (denormals, early exits).

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace culprit::harness {

// Fills data[0..count) with values drawn uniformly from [low, high), reproducibly from `seed`.
inline void fill_uniform(float* data, std::size_t count, std::uint64_t seed, float low,
                         float high) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<float> distribution(low, high);
  for (std::size_t i = 0; i < count; ++i)
    data[i] = distribution(engine);
}

inline std::vector<float> uniform_vector(std::size_t count, std::uint64_t seed, float low,
                                         float high) {
  std::vector<float> values(count);
  fill_uniform(values.data(), count, seed, low, high);
  return values;
}

} // namespace culprit::harness
