#include "stats/parallel.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace culprit::stats {

unsigned resolve_threads(unsigned requested) {
  if (requested > 0)
    return requested;
  return std::max(1U, std::thread::hardware_concurrency());
}

// A thread costs tens of microseconds to start, which `min_items_per_thread` items must be worth.
void parallel_blocks(std::size_t count, unsigned threads,
                     const std::function<void(std::size_t, std::size_t)>& body,
                     std::size_t min_items_per_thread) {
  if (count == 0)
    return;
  const std::size_t by_work =
      std::max<std::size_t>(1, count / std::max<std::size_t>(1, min_items_per_thread));
  const std::size_t workers = std::min<std::size_t>(resolve_threads(threads), by_work);
  if (workers == 1) {
    body(0, count);
    return;
  }
  std::vector<std::jthread> pool;
  pool.reserve(workers - 1);
  const std::size_t block = (count + workers - 1) / workers;
  for (std::size_t worker = 1; worker < workers; ++worker) {
    const std::size_t begin = worker * block;
    const std::size_t end = std::min(count, begin + block);
    if (begin < end)
      pool.emplace_back([&body, begin, end] { body(begin, end); });
  }
  body(0, std::min(count, block));
}

} // namespace culprit::stats
