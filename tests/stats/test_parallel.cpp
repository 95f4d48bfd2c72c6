// Splitting work over threads: every item exactly once, and a thread only where it is worth one.
#include "stats/parallel.hpp"

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace culprit::stats {
namespace {

struct SplitBlocks {
  std::vector<int> visits;
  std::set<std::thread::id> threads;
};

SplitBlocks split(std::size_t count, unsigned threads, std::size_t min_items_per_thread) {
  SplitBlocks blocks;
  blocks.visits.assign(count, 0);
  std::mutex mutex;
  parallel_blocks(
      count, threads,
      [&](std::size_t begin, std::size_t end) {
        const std::scoped_lock lock(mutex);
        blocks.threads.insert(std::this_thread::get_id());
        for (std::size_t i = begin; i < end; ++i)
          ++blocks.visits[i];
      },
      min_items_per_thread);
  return blocks;
}

TEST(Parallel, EveryItemIsVisitedOnceWhateverTheThreads) {
  for (const std::size_t count : {1UL, 7UL, 64UL, 1000UL, 1001UL}) {
    for (const unsigned threads : {1U, 2U, 3U, 8U}) {
      for (const std::size_t per_thread : {1UL, 4UL, 64UL}) {
        const auto blocks = split(count, threads, per_thread);
        EXPECT_EQ(blocks.visits, std::vector<int>(count, 1))
            << count << " items, " << threads << " threads, " << per_thread << " per thread";
        EXPECT_LE(blocks.threads.size(), threads);
      }
    }
  }
}

TEST(Parallel, AThreadIsStartedOnlyForEnoughItems) {
  // Sixteen bootstrap replicates are not worth a thread; sixteen permutations of a long series
  // (a few items a thread) are.
  EXPECT_EQ(split(16, 4, 64).threads.size(), 1U);
  EXPECT_EQ(split(16, 4, 4).threads.size(), 4U);
  EXPECT_EQ(split(16, 4, 8).threads.size(), 2U);
  EXPECT_EQ(split(200, 4, 64).threads.size(), 3U);
  // No item count below one, however it is asked.
  EXPECT_EQ(split(3, 2, 0).visits, std::vector<int>(3, 1));
  EXPECT_EQ(split(0, 2, 1).threads.size(), 0U);
}

} // namespace
} // namespace culprit::stats
