#include "stats/slow_runs.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "stats/interference.hpp"
#include "stats/summary.hpp"

namespace culprit::stats {
namespace {

// A block whose runs are all slow is compared unless its runs scatter more than this many times
// the fast blocks' (medians of the blocks' spreads).
constexpr double k_slow_block_scatter = 2.0;
// Fewer fast blocks than this say too little about their own scatter to judge the slow ones by:
// the slow blocks are then compared.
constexpr std::size_t k_min_fast_blocks = 3;

// Whether a side's fast runs are one state: none lies further below their median than half the
// threshold (in logarithms). The fastest a run can be is a floor, so a fast state has no long
// lower tail; a side whose "fast" runs reach far down holds two states there. That happens on a
// machine in three states when one side splits between the upper two: a run in the middle state
// is then fast on that side and slow on a side that split between the lower two, and the blocks
// kept would carry the gap between them.
bool fast_runs_are_one_state(std::span<const double> oriented, const std::vector<bool>& slow,
                             double log_threshold) {
  std::vector<double> fast;
  for (std::size_t i = 0; i < oriented.size(); ++i)
    if (!slow[i])
      fast.push_back(oriented[i]);
  if (fast.empty())
    return true;
  std::ranges::sort(fast);
  return quantile_of_sorted(fast, 0.5) - fast.front() <= log_threshold / 2.0;
}

} // namespace

double BlockSelection::slow_share() const {
  return runs == 0 ? 0.0 : static_cast<double>(slow_runs) / static_cast<double>(runs);
}

std::optional<BlockSelection> select_blocks(std::span<const std::vector<double>> sides,
                                            Direction direction) {
  if (sides.empty())
    return std::nullopt;
  const std::size_t blocks = sides.front().size();
  if (std::ranges::any_of(sides, [&](const auto& side) { return side.size() != blocks; }))
    return std::nullopt;
  std::vector<std::optional<SlowRuns>> states;
  double threshold = 0.0; // the smallest of the sides that split, as a factor of the fast level
  for (const auto& side : sides) {
    states.push_back(find_slow_runs(side, direction));
    if (states.back() && (threshold == 0.0 || states.back()->threshold < threshold))
      threshold = states.back()->threshold;
  }
  if (threshold == 0.0)
    return std::nullopt;
  const double sign = direction == Direction::lower_is_better ? 1.0 : -1.0;
  for (std::size_t s = 0; s < sides.size(); ++s) {
    std::vector<double> oriented;
    for (const double value : sides[s])
      oriented.push_back(sign * std::log(value));
    if (!states[s]) {
      // A side that did not split: slow where its run is past the threshold from its lower
      // quartile (a side with fewer than two slow runs, or none, has fast runs there).
      std::vector<double> sorted = oriented;
      std::ranges::sort(sorted);
      const double bound = quantile_of_sorted(sorted, 0.25) + std::log(threshold);
      SlowRuns own;
      for (const double value : oriented)
        own.slow.push_back(value > bound);
      states[s] = std::move(own);
    }
    if (!fast_runs_are_one_state(oriented, states[s]->slow, std::log(threshold)))
      return std::nullopt;
  }

  BlockSelection selection;
  std::vector<std::size_t> fast;
  std::vector<std::size_t> slow;
  std::vector<double> fast_spread;
  std::vector<double> slow_spread;
  for (std::size_t i = 0; i < blocks; ++i) {
    std::size_t slow_here = 0;
    double low = 0.0;
    double high = 0.0;
    for (std::size_t s = 0; s < sides.size(); ++s) {
      slow_here += states[s]->slow[i] ? 1 : 0;
      const double value = std::log(sides[s][i]);
      low = s == 0 ? value : std::min(low, value);
      high = s == 0 ? value : std::max(high, value);
    }
    selection.runs += sides.size();
    selection.slow_runs += slow_here;
    if (slow_here == 0) {
      fast.push_back(i);
      fast_spread.push_back(high - low);
    } else if (slow_here == sides.size()) {
      slow.push_back(i);
      slow_spread.push_back(high - low);
    } else {
      ++selection.mixed_blocks;
    }
  }
  selection.fast_blocks = fast.size();
  selection.slow_blocks = slow.size();
  selection.slow_blocks_used =
      !slow.empty() && (fast.size() < k_min_fast_blocks ||
                        median(slow_spread).value_or(0.0) <=
                            k_slow_block_scatter * median(fast_spread).value_or(0.0));
  selection.kept = fast;
  if (selection.slow_blocks_used) {
    selection.kept.insert(selection.kept.end(), slow.begin(), slow.end());
    std::ranges::sort(selection.kept);
  }
  if (selection.kept.size() < 2)
    return std::nullopt;
  return selection;
}

std::vector<double> kept_values(std::span<const double> values, const BlockSelection& selection) {
  std::vector<double> kept;
  kept.reserve(selection.kept.size());
  for (const std::size_t i : selection.kept)
    if (i < values.size())
      kept.push_back(values[i]);
  return kept;
}

std::optional<BlockSelection> keep_selected_blocks(std::span<std::vector<double>> sides,
                                                   Direction direction, std::size_t at_least) {
  auto selection = select_blocks(sides, direction);
  if (!selection || selection->kept.size() < at_least)
    return std::nullopt;
  for (auto& side : sides)
    side = kept_values(side, *selection);
  return selection;
}

} // namespace culprit::stats
