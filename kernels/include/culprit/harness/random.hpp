#pragma once
// Fresh random inputs for kernels: measuring or checking a kernel on zeros hides both bugs
// (a missed element still reads as zero) and timing effects (denormals, early exits).
//
// The generator is SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014), written out here rather than taken from <random>: that header alone
// adds about half a second to the compile time of every benchmark source, and the data a
// kernel is timed on needs no more than a well-mixed, reproducible stream.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace culprit::harness {

// The values of SplitMix64 seeded with `seed`, one per call.
class SplitMix64 {
public:
  explicit SplitMix64(std::uint64_t seed) : m_state(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
  }

  // Uniform on [0, 1): the top 24 bits, the precision of a float's significand.
  float next_unit_float() { return static_cast<float>(next() >> 40U) * (1.0F / 16777216.0F); }

private:
  std::uint64_t m_state;
};

// Fills data[0..count) with values drawn uniformly from [low, high), reproducibly from `seed`.
inline void fill_uniform(float* data, std::size_t count, std::uint64_t seed, float low,
                         float high) {
  SplitMix64 generator(seed);
  const float width = high - low;
  for (std::size_t i = 0; i < count; ++i) {
    const float value = low + width * generator.next_unit_float();
    data[i] = value < high ? value : low; // rounding may reach `high`, which is excluded
  }
}

inline std::vector<float> uniform_vector(std::size_t count, std::uint64_t seed, float low,
                                         float high) {
  std::vector<float> values(count);
  fill_uniform(values.data(), count, seed, low, high);
  return values;
}

} // namespace culprit::harness
