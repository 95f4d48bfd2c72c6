#include "stats/replicates.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "stats/parallel.hpp"
#include "stats/rng.hpp"

namespace culprit::stats {

std::vector<double> draw_replicates(std::size_t count, std::uint64_t seed, unsigned threads,
                                    const DrawFn& draw) {
  std::vector<double> replicates(count);
  parallel_blocks(count, threads, [&](std::size_t begin, std::size_t end) {
    std::vector<double> scratch;
    for (std::size_t i = begin; i < end; ++i) {
      Rng rng(seed, i);
      replicates[i] = draw(rng, scratch);
    }
  });
  return replicates;
}

} // namespace culprit::stats
