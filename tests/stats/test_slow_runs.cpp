#include "stats/slow_runs.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "stats/interference.hpp"
#include "stats/paired.hpp"
#include "stats/rng.hpp"

namespace culprit::stats {
namespace {

// Runs of a machine whose states last longer than a run: each run's level is its fast level, or
// 1.5-2x that when the machine was slow for the whole run. The state persists from one run to
// the next with probability `stay` (the runs of a block are made one after the other).
struct Machine {
  double stay = 0.8;
  double noise = 0.01;
  // A third state, between fast and slow, this much slower than fast; 0: two states. When the
  // machine leaves a state it takes either of the other two.
  double middle = 0.0;
};

struct SlowRunBlocks {
  std::vector<double> base;
  std::vector<double> head;
  std::vector<bool> base_slow;
  std::vector<bool> head_slow;
};

SlowRunBlocks simulate(const Machine& machine, std::size_t blocks, double ratio, Rng& rng) {
  SlowRunBlocks out;
  int state = 0; // fast, slow, middle
  double factor = 1.5;
  const auto next = [&](double level, std::vector<double>& values, std::vector<bool>& states) {
    if (rng.uniform() > machine.stay) {
      state = machine.middle > 0.0 ? (state + 1 + (rng.uniform() < 0.5 ? 1 : 0)) % 3 : 1 - state;
      factor = 1.5 + (0.5 * rng.uniform());
    }
    const double wobble = 1.0 + (machine.noise * (rng.uniform() - 0.5));
    const std::array<double, 3> factors = {1.0, factor, 1.0 + machine.middle};
    values.push_back(level * wobble * factors.at(static_cast<std::size_t>(state)));
    states.push_back(state != 0);
  };
  for (std::size_t i = 0; i < blocks; ++i) {
    if (rng.uniform() < 0.5) {
      next(1e-3, out.base, out.base_slow);
      next(1e-3 * ratio, out.head, out.head_slow);
    } else {
      next(1e-3 * ratio, out.head, out.head_slow);
      next(1e-3, out.base, out.base_slow);
    }
  }
  return out;
}

// The blocks of two sides (times) to compare.
std::optional<BlockSelection> select_two(const std::vector<double>& base,
                                         const std::vector<double>& head) {
  const std::array<std::vector<double>, 2> sides = {base, head};
  return select_blocks(sides, Direction::lower_is_better);
}

TEST(SlowRuns, RunsSlowFromStartToEndAreTheUpperOfTwoStates) {
  const std::vector<double> levels = {1.00, 1.01, 1.62, 0.99, 1.80, 1.00, 1.02, 1.95,
                                      1.01, 0.98, 1.70, 1.00, 1.01, 1.55, 1.00, 0.99};
  const auto found = find_slow_runs(levels, Direction::lower_is_better);
  ASSERT_TRUE(found);
  ASSERT_EQ(found->slow.size(), levels.size());
  for (std::size_t i = 0; i < levels.size(); ++i)
    EXPECT_EQ(found->slow[i], levels[i] > 1.3) << i;
  EXPECT_DOUBLE_EQ(found->share, 5.0 / 16.0);
  EXPECT_NEAR(found->factor, 1.70 / 1.00, 0.02);
  EXPECT_NEAR(found->threshold, std::sqrt(found->factor), 1e-12);
}

TEST(SlowRuns, AThroughputIsSlowWhereItIsLow) {
  const std::vector<double> rates = {100, 99, 60, 101, 55, 100, 98, 58, 100, 100};
  const auto found = find_slow_runs(rates, Direction::higher_is_better);
  ASSERT_TRUE(found);
  for (std::size_t i = 0; i < rates.size(); ++i)
    EXPECT_EQ(found->slow[i], rates[i] < 80) << i;
}

TEST(SlowRuns, OneStateOrAGapUnderTenPercentIsNotTwo) {
  Rng rng(7, 0);
  std::vector<double> one_state;
  for (int i = 0; i < 40; ++i)
    one_state.push_back(1.0 + (0.02 * (rng.uniform() - 0.5)));
  EXPECT_FALSE(find_slow_runs(one_state, Direction::lower_is_better));
  // Far apart against their spread, but only 5% apart: not a slow state.
  const std::vector<double> close = {1.0, 1.0, 1.05, 1.0, 1.05, 1.0, 1.05, 1.0};
  EXPECT_FALSE(find_slow_runs(close, Direction::lower_is_better));
  // Fewer than four runs, or one slow run alone, say nothing.
  EXPECT_FALSE(find_slow_runs(std::vector<double>{1.0, 1.8, 1.0}, Direction::lower_is_better));
  EXPECT_FALSE(find_slow_runs(std::vector<double>{1.0, 1.0, 1.0, 1.0, 1.0, 1.8},
                              Direction::lower_is_better));
  EXPECT_FALSE(find_slow_runs(std::vector<double>{1.0, 0.0, 1.8, 1.8}, Direction::lower_is_better));
}

// Eight blocks of two sides: fast, fast, mixed, mixed, slow, fast, slow, fast.
const std::vector<double> k_base = {1.00, 1.01, 1.70, 1.00, 1.60, 0.99, 1.80, 1.00};
const std::vector<double> k_head = {1.06, 1.05, 1.06, 1.75, 1.70, 1.06, 1.92, 1.07};

TEST(SlowRuns, BlocksWithARunInEachStateAreLeftOut) {
  const auto selection = select_two(k_base, k_head);
  ASSERT_TRUE(selection);
  EXPECT_EQ(selection->fast_blocks, 4U);
  EXPECT_EQ(selection->slow_blocks, 2U);
  EXPECT_EQ(selection->mixed_blocks, 2U);
  EXPECT_TRUE(selection->slow_blocks_used) << "their ratios agree with the fast blocks'";
  EXPECT_EQ(selection->kept, (std::vector<std::size_t>{0, 1, 4, 5, 6, 7}));
  EXPECT_EQ(selection->runs, 16U);
  EXPECT_EQ(selection->slow_runs, 6U);
  EXPECT_DOUBLE_EQ(selection->slow_share(), 6.0 / 16.0);
  EXPECT_EQ(kept_values(k_head, *selection),
            (std::vector<double>{1.06, 1.05, 1.70, 1.06, 1.92, 1.07}));
}

TEST(SlowRuns, TheSidesAreCutToTheKeptBlocksOnlyWhenEnoughAreLeft) {
  std::array<std::vector<double>, 2> sides = {k_base, k_head};
  EXPECT_FALSE(keep_selected_blocks(sides, Direction::lower_is_better, 7));
  EXPECT_EQ(sides[0], k_base) << "fewer than 7 kept: the sides as they were";
  const auto kept = keep_selected_blocks(sides, Direction::lower_is_better);
  ASSERT_TRUE(kept);
  EXPECT_EQ(sides[0], (std::vector<double>{1.00, 1.01, 1.60, 0.99, 1.80, 1.00}));
  EXPECT_EQ(sides[1], kept_values(k_head, *kept));
}

TEST(SlowRuns, SlowBlocksThatScatterMoreThanTwiceTheFastOnesAreLeftOut) {
  // The slow blocks' runs were slowed by different factors: their ratios say nothing.
  const std::vector<double> base = {1.00, 1.01, 1.50, 1.00, 1.95, 0.99, 1.50, 1.00};
  const std::vector<double> head = {1.06, 1.05, 1.98, 1.06, 1.55, 1.07, 2.00, 1.05};
  const auto selection = select_two(base, head);
  ASSERT_TRUE(selection);
  EXPECT_EQ(selection->slow_blocks, 3U);
  EXPECT_FALSE(selection->slow_blocks_used);
  EXPECT_EQ(selection->kept, (std::vector<std::size_t>{0, 1, 3, 5, 7}));
}

TEST(SlowRuns, ASideWhoseRunsDoNotSplitTakesTheOthersThreshold) {
  // Head has one slow run only: too few to be a state of its own, but past the base's threshold
  // from head's own lower quartile.
  const std::vector<double> base = {1.00, 1.70, 1.00, 1.80, 1.01, 1.00, 1.75, 0.99};
  const std::vector<double> head = {1.06, 1.06, 1.05, 1.90, 1.06, 1.07, 1.06, 1.05};
  const auto selection = select_two(base, head);
  ASSERT_TRUE(selection);
  EXPECT_EQ(selection->slow_runs, 4U);
  EXPECT_EQ(selection->slow_blocks, 1U);  // block 3
  EXPECT_EQ(selection->mixed_blocks, 2U); // blocks 1 and 6
}

// The runs of one softmax case of a demo on a shared VM (microseconds, each run's min): the
// machine sat in three states, 146, 186 and 210-250. The base's runs split at 146 | 186; the
// head's, with two runs at 146, do not split, and the base's threshold taken from their lower
// quartile (186) put 186 among their fast runs. A run at 186 was then slow on the base and fast
// on the head, and the blocks kept said "18% slower" of a case that had not changed. A side
// whose fast runs reach far below their median holds two states there: every block is compared.
TEST(SlowRuns, ASideWhoseFastRunsHoldTwoStatesMeansEveryBlockIsCompared) {
  const std::vector<double> base = {186.3, 185.8, 185.8, 210.9, 186.5, 186.3, 185.4, 186.4,
                                    218.9, 185.7, 185.5, 185.8, 216.1, 185.5, 222.3, 213.8,
                                    221.7, 185.5, 186.5, 187.9, 209.2, 185.4, 146.7, 199.0,
                                    214.6, 246.2, 146.2, 146.2, 149.8, 146.2};
  const std::vector<double> head = {207.3, 185.4, 210.4, 185.7, 220.7, 219.8, 217.6, 216.0,
                                    185.6, 216.9, 217.2, 221.4, 185.5, 218.9, 185.5, 185.4,
                                    186.3, 210.3, 211.6, 190.1, 185.4, 146.9, 209.3, 198.2,
                                    203.4, 146.3, 205.8, 200.4, 220.1, 208.1};
  const auto base_states = find_slow_runs(base, Direction::lower_is_better);
  ASSERT_TRUE(base_states);
  EXPECT_NEAR(base_states->factor, 186.0 / 146.3, 0.02);
  EXPECT_FALSE(find_slow_runs(head, Direction::lower_is_better));
  EXPECT_FALSE(select_two(base, head));
  // The same the other way round, and with a throughput.
  EXPECT_FALSE(select_two(head, base));
  std::vector<double> base_rates;
  std::vector<double> head_rates;
  for (std::size_t i = 0; i < base.size(); ++i) {
    base_rates.push_back(1.0 / base[i]);
    head_rates.push_back(1.0 / head[i]);
  }
  const std::array<std::vector<double>, 2> rates = {base_rates, head_rates};
  EXPECT_FALSE(select_blocks(rates, Direction::higher_is_better));
}

TEST(SlowRuns, NoStatesOrTooFewBlocksLeftMeanEveryBlockIsCompared) {
  const std::vector<double> quiet = {1.00, 1.01, 0.99, 1.00, 1.02, 1.00};
  const std::array<std::vector<double>, 2> both_quiet = {quiet, quiet};
  EXPECT_FALSE(select_blocks(both_quiet, Direction::lower_is_better));
  // Every block mixed: nothing would be left.
  const std::vector<double> base = {1.0, 1.8, 1.0, 1.7, 1.0, 1.9};
  const std::vector<double> head = {1.8, 1.0, 1.7, 1.0, 1.9, 1.0};
  const std::array<std::vector<double>, 2> crossed = {base, head};
  EXPECT_FALSE(select_blocks(crossed, Direction::lower_is_better));
  const std::array<std::vector<double>, 2> uneven = {base, quiet};
  EXPECT_FALSE(select_blocks(std::span(uneven).first(0), Direction::lower_is_better));
  const std::array<std::vector<double>, 2> lengths = {base, std::vector<double>{1.0}};
  EXPECT_FALSE(select_blocks(lengths, Direction::lower_is_better));
}

// By simulation: with no change, the selected blocks' paired intervals cover 1 about 95% of the
// time; with a 6% change they cover 1.06 as often, and they are far narrower than all blocks'.
TEST(SlowRuns, SelectedBlocksKeepTheIntervalsHonestAndNarrow) {
  Rng rng(2026, 0);
  constexpr int k_trials = 400;
  for (const double ratio : {1.0, 1.06}) {
    int covered = 0;
    double narrow = 0;
    double wide = 0;
    for (int trial = 0; trial < k_trials; ++trial) {
      const auto blocks = simulate(Machine{}, 30, ratio, rng);
      const std::array<std::vector<double>, 2> sides = {blocks.base, blocks.head};
      const auto selection = select_blocks(sides, Direction::lower_is_better);
      ASSERT_TRUE(selection) << trial;
      const auto kept = compare_paired(kept_values(blocks.base, *selection),
                                       kept_values(blocks.head, *selection));
      const auto all = compare_paired(blocks.base, blocks.head);
      ASSERT_TRUE(kept && all);
      covered += kept->ratio.lower <= ratio && ratio <= kept->ratio.upper ? 1 : 0;
      narrow += std::log(kept->ratio.upper / kept->ratio.lower);
      wide += std::log(all->ratio.upper / all->ratio.lower);
    }
    const double coverage = static_cast<double>(covered) / k_trials;
    EXPECT_GE(coverage, 0.92) << "ratio " << ratio;
    EXPECT_LE(coverage, 0.98) << "ratio " << ratio;
    EXPECT_LT(narrow, wide / 3) << "ratio " << ratio;
  }
}

// By simulation, on a machine in three states (fast, 25% slower, 1.5-2x slower): whether the
// blocks are selected or every block is compared, the intervals cover the true ratio about 95%
// of the time.
TEST(SlowRuns, AMachineInThreeStatesKeepsTheIntervalsHonest) {
  Rng rng(2027, 0);
  constexpr int k_trials = 600;
  const Machine machine{.stay = 0.6, .noise = 0.01, .middle = 0.25};
  for (const double ratio : {1.0, 1.06}) {
    int covered = 0;
    int selected = 0;
    for (int trial = 0; trial < k_trials; ++trial) {
      const auto blocks = simulate(machine, 30, ratio, rng);
      const std::array<std::vector<double>, 2> sides = {blocks.base, blocks.head};
      const auto selection = select_blocks(sides, Direction::lower_is_better);
      selected += selection ? 1 : 0;
      const auto compared = selection ? compare_paired(kept_values(blocks.base, *selection),
                                                       kept_values(blocks.head, *selection))
                                      : compare_paired(blocks.base, blocks.head);
      ASSERT_TRUE(compared);
      covered += compared->ratio.lower <= ratio && ratio <= compared->ratio.upper ? 1 : 0;
    }
    const double coverage = static_cast<double>(covered) / k_trials;
    EXPECT_GE(coverage, 0.92) << "ratio " << ratio << ", " << selected << " selections";
    EXPECT_LE(coverage, 0.98) << "ratio " << ratio << ", " << selected << " selections";
  }
}

TEST(SlowRuns, TheStatesFoundAreTheStatesTheMachineWasIn) {
  Rng rng(11, 0);
  const auto blocks = simulate(Machine{}, 60, 1.06, rng);
  const auto found = find_slow_runs(blocks.base, Direction::lower_is_better);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->slow, blocks.base_slow);
}

} // namespace
} // namespace culprit::stats
