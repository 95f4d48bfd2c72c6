#pragma once
// Drawing bootstrap replicates on several threads, deterministically: replicate i is
// draw(Rng(seed, i), scratch) whichever thread computes it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "stats/rng.hpp"

namespace culprit::stats {

// draw must be safe to call concurrently (distinct generators, distinct scratch buffers).
using DrawFn = std::function<double(Rng& rng, std::vector<double>& scratch)>;

std::vector<double> draw_replicates(std::size_t count, std::uint64_t seed, unsigned threads,
                                    const DrawFn& draw);

} // namespace culprit::stats
