#include "stats/change_points.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "stats/error.hpp"
#include "stats/parallel.hpp"
#include "stats/rng.hpp"
#include "stats/validate.hpp"

namespace culprit::stats {
namespace {

// A split costs n log n in the segment's length, and the permutation test pays it again for
// every permutation; beyond this a series with several steps would take minutes.
constexpr std::size_t k_max_series = 50000;

// From this length on a split is searched through the ranks of the values (O(n log n)) rather
// than by summing every pair (O(n^2)); below it the pairs are cheaper, and short series keep the
// sums of the definition exactly.
constexpr std::size_t k_sorted_from = 64;

// Points searched (permutations times the series' length) that are worth starting a thread for.
constexpr std::size_t k_permutation_work = 4096;

// The sums of absolute differences as value `moved` goes from the right side to the left: what
// it adds to the left's pairs and takes from the right's. Shared by both searches.
struct SplitSums {
  double within_left = 0.0;
  double within_right = 0.0;
  double between = 0.0;
  Split best;

  void move(double to_left, double to_right, std::size_t tau, std::size_t length,
            std::size_t min_segment) {
    within_left += to_left;
    within_right -= to_right;
    between += to_right - to_left;
    if (tau < min_segment)
      return;
    const auto n = static_cast<double>(tau);
    const auto total = static_cast<double>(length);
    const double m = total - n;
    const double energy = (2.0 * between / (n * m)) - (2.0 * within_left / (n * (n - 1.0))) -
                          (2.0 * within_right / (m * (m - 1.0)));
    const double statistic = n * m / total * energy;
    if (!best.found || statistic > best.statistic)
      best = Split{.tau = tau, .statistic = statistic, .found = true};
  }
};

Split split_by_pairs(std::span<const double> segment, std::size_t min_segment) {
  const std::size_t length = segment.size();
  SplitSums sums;
  for (std::size_t i = 0; i < length; ++i)
    for (std::size_t j = i + 1; j < length; ++j)
      sums.within_right += std::abs(segment[i] - segment[j]);
  for (std::size_t moved = 0; moved + min_segment < length; ++moved) {
    double to_left = 0.0;
    for (std::size_t i = 0; i < moved; ++i)
      to_left += std::abs(segment[i] - segment[moved]);
    double to_right = 0.0;
    for (std::size_t j = moved + 1; j < length; ++j)
      to_right += std::abs(segment[moved] - segment[j]);
    sums.move(to_left, to_right, moved + 1, length, min_segment);
  }
  return sums.best;
}

// A segment by the ranks of its values, which is all that a permutation of it keeps: the values
// sorted (ties in the order of the series) and centred on the median, which no permutation moves,
// so that the sums stay small beside the differences; each rank's distances to all the other
// values (two prefix sums); and the sum over every pair.
struct RankedSegment {
  std::vector<double> sorted;
  std::vector<double> to_all;
  double within = 0.0;
  std::vector<std::size_t> rank_at; // of the value at each position, as the segment is
};

RankedSegment rank_segment(std::span<const double> segment) {
  const std::size_t length = segment.size();
  std::vector<std::size_t> order(length);
  for (std::size_t i = 0; i < length; ++i)
    order[i] = i;
  std::ranges::sort(order, [&](std::size_t i, std::size_t j) {
    return segment[i] < segment[j] || (segment[i] == segment[j] && i < j);
  });
  RankedSegment ranked;
  ranked.sorted.resize(length);
  ranked.rank_at.resize(length);
  const double centre = segment[order[length / 2]];
  double total = 0.0;
  for (std::size_t r = 0; r < length; ++r) {
    ranked.sorted[r] = segment[order[r]] - centre;
    ranked.rank_at[order[r]] = r;
    total += ranked.sorted[r];
  }
  ranked.to_all.resize(length);
  double below = 0.0;
  for (std::size_t r = 0; r < length; ++r) {
    const double value = ranked.sorted[r];
    const double above = total - below - value;
    ranked.to_all[r] = (value * static_cast<double>(r) - below) +
                       (above - value * static_cast<double>(length - r - 1));
    ranked.within += value * static_cast<double>(r) - below;
    below += value;
  }
  return ranked;
}

// The scratch of split_ranked, kept across the permutations of one thread.
struct Fenwick {
  std::vector<std::size_t> counts;
  std::vector<double> partial;
};

// The search in O(n log n) over a segment whose value at position i has rank rank_at[i]: its
// distances to the values already moved left come from a Fenwick tree over the ranks (how many
// moved values rank below it, and their sum), and those to the right are the rest.
Split split_ranked(const RankedSegment& ranked, std::span<const std::size_t> rank_at,
                   std::size_t min_segment, Fenwick& tree) {
  const std::size_t length = rank_at.size();
  SplitSums sums;
  sums.within_right = ranked.within;
  tree.counts.assign(length + 1, 0);
  tree.partial.assign(length + 1, 0.0);
  double moved_sum = 0.0;
  for (std::size_t moved = 0; moved + min_segment < length; ++moved) {
    const std::size_t rank = rank_at[moved];
    const double value = ranked.sorted[rank];
    std::size_t count_below = 0;
    double sum_below = 0.0;
    for (std::size_t k = rank; k > 0; k &= k - 1) {
      count_below += tree.counts[k];
      sum_below += tree.partial[k];
    }
    const double to_left =
        (value * static_cast<double>(count_below) - sum_below) +
        ((moved_sum - sum_below) - value * static_cast<double>(moved - count_below));
    for (std::size_t k = rank + 1; k <= length; k += k & (~k + 1)) {
      ++tree.counts[k];
      tree.partial[k] += value;
    }
    moved_sum += value;
    sums.move(to_left, ranked.to_all[rank] - to_left, moved + 1, length, min_segment);
  }
  return sums.best;
}

Split split_by_ranks(std::span<const double> segment, std::size_t min_segment) {
  const RankedSegment ranked = rank_segment(segment);
  Fenwick tree;
  return split_ranked(ranked, ranked.rank_at, min_segment, tree);
}

// The segments between consecutive bounds, each long one ranked once a round: the search of the
// series and every permutation of it read the same ranks, and a permutation shuffles the ranks,
// not the values, and needs no sort.
struct Segments {
  std::span<const double> series;
  std::span<const std::size_t> bounds;
  std::vector<std::optional<RankedSegment>> ranked; // for the segments searched through ranks
};

Segments segments_of(std::span<const double> series, std::span<const std::size_t> bounds,
                     std::size_t min_segment) {
  Segments segments{.series = series, .bounds = bounds, .ranked = {}};
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
    const std::size_t length = bounds[s + 1] - bounds[s];
    segments.ranked.push_back(length >= 2 * min_segment && length >= k_sorted_from
                                  ? std::optional(rank_segment(series.subspan(bounds[s], length)))
                                  : std::nullopt);
  }
  return segments;
}

struct Candidate {
  std::size_t index = 0;
  double statistic = 0.0;
  bool found = false;
};

// What a search keeps across the permutations of one thread.
struct Scratch {
  std::vector<double> shuffled;
  std::vector<std::size_t> ranks;
  Fenwick tree;
};

// The best split over every segment; with `rng`, after shuffling the values of each segment
// within it (the ranks of a ranked one): the same draws, and so the same permutation, either way.
Candidate best_in(const Segments& segments, std::size_t min_segment, Rng* rng, Scratch& scratch) {
  const auto shuffle = [rng](auto& items) {
    for (std::size_t i = items.size() - 1; i > 0; --i)
      std::swap(items[i], items[rng->index(i + 1)]);
  };
  Candidate best;
  for (std::size_t s = 0; s + 1 < segments.bounds.size(); ++s) {
    const std::size_t begin = segments.bounds[s];
    const auto segment = segments.series.subspan(begin, segments.bounds[s + 1] - begin);
    Split split;
    if (const auto& ranked = segments.ranked[s]; ranked && rng == nullptr) {
      split = split_ranked(*ranked, ranked->rank_at, min_segment, scratch.tree);
    } else if (ranked) {
      scratch.ranks.assign(ranked->rank_at.begin(), ranked->rank_at.end());
      shuffle(scratch.ranks);
      split = split_ranked(*ranked, scratch.ranks, min_segment, scratch.tree);
    } else if (rng == nullptr) {
      split = best_split(segment, min_segment);
    } else {
      scratch.shuffled.assign(segment.begin(), segment.end());
      shuffle(scratch.shuffled);
      split = best_split(scratch.shuffled, min_segment);
    }
    if (split.found && (!best.found || split.statistic > best.statistic))
      best = Candidate{.index = begin + split.tau, .statistic = split.statistic, .found = true};
  }
  return best;
}

// The most permuted statistics at least as large as the observed one that still leave its
// p-value, (1 + count) / (1 + permutations), at or below the significance level.
std::size_t most_exceeding(const ChangePointOptions& options) {
  const auto within = [&](std::size_t count) {
    return static_cast<double>(count + 1) / static_cast<double>(options.permutations + 1) <=
           options.significance;
  };
  auto count = static_cast<std::size_t>(options.significance *
                                        static_cast<double>(options.permutations + 1));
  while (count > 0 && !within(count))
    --count;
  while (within(count + 1))
    ++count;
  return count;
}

// How many of the permutations give a best statistic at least as large as `observed`; none when
// more than most_exceeding do, for then the candidate is not significant. The permutations run in
// rounds, and the count stops as soon as it passes that bound: a candidate where nothing changed
// is typically exceeded by every other permutation, so it is dismissed after a round instead of
// all of them. Permutation r always draws from stream (iteration, r), so the answer is the one the
// full count gives, whatever the threads and rounds.
std::optional<std::size_t> count_exceeding(const Segments& segments, double observed,
                                           std::uint64_t iteration,
                                           const ChangePointOptions& options) {
  const std::size_t bound = most_exceeding(options);
  const std::size_t round =
      std::max<std::size_t>(16, std::size_t{4} * resolve_threads(options.threads));
  // A permutation searches the whole series again: over a thousand points that is tens of
  // microseconds, worth a thread for a few of them, where a short series' are not.
  const std::size_t per_thread =
      std::max<std::size_t>(1, k_permutation_work / segments.series.size());
  std::size_t exceeding = 0;
  for (std::size_t done = 0; done < options.permutations; done += round) {
    const std::size_t count = std::min(round, options.permutations - done);
    std::atomic<std::size_t> at_least_as_large{0};
    parallel_blocks(
        count, options.threads,
        [&](std::size_t begin, std::size_t end) {
          Scratch scratch;
          std::size_t found = 0;
          for (std::size_t r = done + begin; r < done + end; ++r) {
            Rng rng(options.seed, (iteration << 32U) + r);
            if (best_in(segments, options.min_segment, &rng, scratch).statistic >= observed)
              ++found;
          }
          at_least_as_large += found;
        },
        per_thread);
    exceeding += at_least_as_large.load();
    if (exceeding > bound)
      return std::nullopt;
  }
  return exceeding;
}

Status check_options(const ChangePointOptions& options) {
  CULPRIT_STATS_TRY(check_probability(options.significance, "the significance level"));
  if (options.min_segment < 2)
    return fail(ErrorKind::invalid_argument,
                "the minimum segment must hold at least 2 values, not {}", options.min_segment);
  if (static_cast<double>(options.permutations + 1) * options.significance < 1.0)
    return fail(ErrorKind::invalid_argument,
                "{} permutations can never reach a p-value of {}; use at least {}",
                options.permutations, options.significance,
                static_cast<std::size_t>(std::ceil(1.0 / options.significance)) - 1);
  return {};
}

} // namespace

Split best_split(std::span<const double> segment, std::size_t min_segment) {
  if (segment.size() < 2 * min_segment)
    return {};
  return segment.size() < k_sorted_from ? split_by_pairs(segment, min_segment)
                                        : split_by_ranks(segment, min_segment);
}

Result<std::vector<ChangePoint>> e_divisive(std::span<const double> series,
                                            const ChangePointOptions& options) {
  CULPRIT_STATS_TRY(check_options(options));
  CULPRIT_STATS_TRY(check_sample(series, "series", 1));
  if (series.size() > k_max_series)
    return fail(ErrorKind::too_large,
                "a series of {} values is too long for E-divisive (at most {}: each permutation "
                "searches the whole series again); split the history into ranges",
                series.size(), k_max_series);
  std::vector<std::size_t> bounds{0, series.size()};
  std::vector<ChangePoint> found;
  for (std::uint64_t iteration = 0;; ++iteration) {
    const Segments segments = segments_of(series, bounds, options.min_segment);
    Scratch scratch;
    const Candidate candidate = best_in(segments, options.min_segment, nullptr, scratch);
    if (!candidate.found)
      break;
    const auto exceeding = count_exceeding(segments, candidate.statistic, iteration, options);
    if (!exceeding)
      break;
    const double p_value =
        static_cast<double>(*exceeding + 1) / static_cast<double>(options.permutations + 1);
    found.push_back(ChangePoint{
        .index = candidate.index, .p_value = p_value, .statistic = candidate.statistic});
    bounds.push_back(candidate.index);
    std::ranges::sort(bounds);
  }
  std::ranges::sort(found, {}, &ChangePoint::index);
  return found;
}

} // namespace culprit::stats
