#pragma once
// The library's random number generator: xoshiro256** (Blackman & Vigna, "Scrambled linear
// pseudorandom number generators", ACM TOMS 2021), seeded through SplitMix64.
//
// A generator is named by (seed, stream). Resampling code gives every replicate its own stream
// (its index), so a replicate's draws do not depend on which thread computed it or in what order:
// results for a given seed are identical whatever the number of threads. Every variate is
// computed here, not by <random> distributions, so results are also the same across standard
// libraries.

#include <cstddef>
#include <cstdint>

namespace culprit::stats {

// A 128-bit product is the fast way to an unbiased bounded integer; __extension__ keeps
// -Wpedantic quiet about the GCC/Clang type.
__extension__ using Uint128 = unsigned __int128;

class Rng {
public:
  Rng(std::uint64_t seed, std::uint64_t stream);

  std::uint64_t next() {
    const std::uint64_t result = rotl(m_state[1] * 5, 7) * 9;
    const std::uint64_t shifted = m_state[1] << 17;
    m_state[2] ^= m_state[0];
    m_state[3] ^= m_state[1];
    m_state[1] ^= m_state[2];
    m_state[0] ^= m_state[3];
    m_state[2] ^= shifted;
    m_state[3] = rotl(m_state[3], 45);
    return result;
  }

  // Uniform on [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11U) * 0x1.0p-53; }

  // Uniform on (0, 1): safe to take the logarithm of.
  double uniform_open() { return (static_cast<double>(next() >> 12U) + 0.5) * 0x1.0p-52; }

  // Uniform integer on [0, bound), bound > 0, without modulo bias (Lemire, "Fast random integer
  // generation in an interval", ACM TOMACS 2019).
  std::size_t index(std::size_t bound) {
    const auto range = static_cast<std::uint64_t>(bound);
    auto product = static_cast<Uint128>(next()) * range;
    auto low = static_cast<std::uint64_t>(product);
    if (low < range) {
      const std::uint64_t threshold = (0 - range) % range;
      while (low < threshold) {
        product = static_cast<Uint128>(next()) * range;
        low = static_cast<std::uint64_t>(product);
      }
    }
    return static_cast<std::size_t>(product >> 64U);
  }

  // Standard normal (Marsaglia's polar method).
  double normal();
  // Gamma with the given shape > 0 and scale 1 (Marsaglia & Tsang, ACM TOMS 2000).
  double gamma(double shape);
  // Beta(a, b), a > 0, b > 0, as a ratio of gammas.
  double beta(double a, double b);
  // The k-th smallest of n uniforms on [0, 1), 1 <= k <= n: a Beta(k, n + 1 - k) variate (the
  // bootstrap of a quantile draws its order statistics so). Up to k_direct_order_statistic
  // uniforms it is drawn as what it is, n uniforms and a selection, several times faster than the
  // two gammas of beta(); beyond that, by beta().
  double order_statistic(std::size_t k, std::size_t n);
  static constexpr std::size_t k_direct_order_statistic = 16;

private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::uint64_t m_state[4]{};
  double m_spare_normal = 0.0;
  bool m_has_spare = false;
};

} // namespace culprit::stats
