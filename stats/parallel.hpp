#pragma once
// Splitting independent work items (bootstrap replicates, permutations) over threads.
// Work item i always computes the same thing whichever thread runs it, so callers that seed
// item i's generator with i get results that do not depend on the number of threads.

#include <cstddef>
#include <functional>

namespace culprit::stats {

// 0 means std::thread::hardware_concurrency() (or 1 when that is unknown).
unsigned resolve_threads(unsigned requested);

// Calls body(begin, end) on contiguous blocks that cover [0, count), on at most `threads`
// threads (resolved as above), fewer when there are too few items to be worth a thread: a thread
// takes at least `min_items_per_thread` of them (64 suits items of a microsecond or so, such as
// bootstrap replicates; items that cost a millisecond are worth a thread each).
// Returns when every block is done. body must be safe to call concurrently on disjoint blocks.
void parallel_blocks(std::size_t count, unsigned threads,
                     const std::function<void(std::size_t begin, std::size_t end)>& body,
                     std::size_t min_items_per_thread = 64);

} // namespace culprit::stats
