#include "stats/resampler.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "stats/rng.hpp"
#include "stats/statistic.hpp"
#include "stats/summary.hpp"
#include "stats/types.hpp"

namespace culprit::stats {
namespace {

// Beyond this many values a custom statistic's jackknife (n evaluations on n - 1 values) would
// take quadratic time; leave out groups instead.
constexpr std::size_t k_jackknife_groups = 1000;
constexpr std::size_t k_max_plain_jackknife = 2000;

std::size_t scaled_index(double uniform, std::size_t size) {
  const auto index = static_cast<std::size_t>(uniform * static_cast<double>(size));
  return std::min(index, size - 1);
}

// A quantile (median, minimum, ...) of one sample, by order statistics of uniforms.
class QuantileResampler final : public Resampler {
public:
  QuantileResampler(std::span<const double> sample, double q)
      : m_sorted(sample.begin(), sample.end()), m_q(q) {
    std::ranges::sort(m_sorted);
    const double position = static_cast<double>(m_sorted.size() - 1) * q;
    m_rank = static_cast<std::size_t>(std::floor(position)) + 1;
    m_fraction = position - static_cast<double>(m_rank - 1);
  }

  [[nodiscard]] double estimate() const override { return quantile_of_sorted(m_sorted, m_q); }

  [[nodiscard]] double replicate(Rng& rng, std::vector<double>& /*scratch*/) const override {
    const std::size_t n = m_sorted.size();
    const double first = rng.order_statistic(m_rank, n);
    const double low = m_sorted[scaled_index(first, n)];
    if (m_fraction == 0.0)
      return low;
    // The next order statistic is the smallest of the n - rank uniforms above the first.
    const double second = first + ((1.0 - first) * rng.beta(1.0, static_cast<double>(n - m_rank)));
    return interpolate(low, m_sorted[scaled_index(second, n)], m_fraction);
  }

  [[nodiscard]] std::vector<double> jackknife() const override {
    const std::size_t n = m_sorted.size();
    const double position = static_cast<double>(n - 2) * m_q;
    const auto below = static_cast<std::size_t>(std::floor(position));
    const std::size_t above = std::min(below + 1, n - 2);
    const double fraction = position - static_cast<double>(below);
    std::vector<double> values;
    values.reserve(n);
    for (std::size_t left_out = 0; left_out < n; ++left_out) {
      const auto at = [&](std::size_t i) { return m_sorted[i < left_out ? i : i + 1]; };
      values.push_back(interpolate(at(below), at(above), fraction));
    }
    return values;
  }

private:
  std::vector<double> m_sorted;
  double m_q;
  std::size_t m_rank = 1; // 1-based rank of the lower order statistic
  double m_fraction = 0.0;
};

class MeanResampler final : public Resampler {
public:
  explicit MeanResampler(std::span<const double> sample) : m_values(sample.begin(), sample.end()) {
    for (const double value : m_values)
      m_sum += value;
  }

  [[nodiscard]] double estimate() const override {
    return m_sum / static_cast<double>(m_values.size());
  }

  [[nodiscard]] double replicate(Rng& rng, std::vector<double>& /*scratch*/) const override {
    const std::size_t n = m_values.size();
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i)
      sum += m_values[rng.index(n)];
    return sum / static_cast<double>(n);
  }

  [[nodiscard]] std::vector<double> jackknife() const override {
    std::vector<double> values;
    values.reserve(m_values.size());
    const auto rest = static_cast<double>(m_values.size() - 1);
    for (const double value : m_values)
      values.push_back((m_sum - value) / rest);
    return values;
  }

private:
  std::vector<double> m_values;
  double m_sum = 0.0;
};

class FunctionResampler final : public Resampler {
public:
  FunctionResampler(std::span<const double> sample, StatisticFn statistic)
      : m_values(sample.begin(), sample.end()), m_statistic(std::move(statistic)) {}

  [[nodiscard]] double estimate() const override { return m_statistic(m_values); }

  [[nodiscard]] double replicate(Rng& rng, std::vector<double>& scratch) const override {
    const std::size_t n = m_values.size();
    scratch.resize(n);
    for (double& value : scratch)
      value = m_values[rng.index(n)];
    return m_statistic(scratch);
  }

  [[nodiscard]] std::vector<double> jackknife() const override {
    const std::size_t n = m_values.size();
    const std::size_t groups = n <= k_max_plain_jackknife ? n : k_jackknife_groups;
    std::vector<double> values;
    values.reserve(groups);
    std::vector<double> rest;
    for (std::size_t group = 0; group < groups; ++group) {
      const std::size_t begin = group * n / groups;
      const std::size_t end = (group + 1) * n / groups;
      rest.assign(m_values.begin(), m_values.begin() + static_cast<std::ptrdiff_t>(begin));
      rest.insert(rest.end(), m_values.begin() + static_cast<std::ptrdiff_t>(end), m_values.end());
      values.push_back(m_statistic(rest));
    }
    return values;
  }

private:
  std::vector<double> m_values;
  StatisticFn m_statistic;
};

// Runs with replacement, then samples with replacement within each drawn run; the statistic of
// the pooled samples. A replicate never materialises the pooled resample: the mean sums as it
// draws; the minimum of a run's resample is an order statistic (as above); the median counts how
// often each sample is drawn, in the order of the pooled sorted samples, and walks the counts.
class TwoLevelResampler final : public Resampler {
public:
  TwoLevelResampler(Runs runs, Statistic statistic)
      : m_runs(std::move(runs)), m_statistic(statistic) {
    std::vector<std::pair<double, std::size_t>> pooled; // value, position in run order
    m_offsets.push_back(0);
    for (auto& run : m_runs) {
      std::ranges::sort(run);
      for (const double value : run)
        pooled.emplace_back(value, pooled.size());
      m_offsets.push_back(pooled.size());
    }
    std::ranges::sort(pooled);
    m_pooled_sorted.reserve(pooled.size());
    m_rank.resize(pooled.size());
    for (std::size_t rank = 0; rank < pooled.size(); ++rank) {
      m_pooled_sorted.push_back(pooled[rank].first);
      m_rank[pooled[rank].second] = rank;
    }
  }

  [[nodiscard]] double estimate() const override { return pooled_without(m_runs.size()); }

  [[nodiscard]] double replicate(Rng& rng, std::vector<double>& scratch) const override {
    switch (m_statistic) {
    case Statistic::mean:
      return replicate_mean(rng);
    case Statistic::min:
      return replicate_min(rng);
    case Statistic::median:
      break;
    }
    return replicate_median(rng, scratch);
  }

  [[nodiscard]] std::vector<double> jackknife() const override {
    std::vector<double> values;
    values.reserve(m_runs.size());
    for (std::size_t left_out = 0; left_out < m_runs.size(); ++left_out)
      values.push_back(pooled_without(left_out));
    return values;
  }

private:
  [[nodiscard]] double replicate_mean(Rng& rng) const {
    const std::size_t count = m_runs.size();
    double sum = 0.0;
    std::size_t drawn = 0;
    for (std::size_t r = 0; r < count; ++r) {
      const std::vector<double>& run = m_runs[rng.index(count)];
      for (std::size_t s = 0; s < run.size(); ++s)
        sum += run[rng.index(run.size())];
      drawn += run.size();
    }
    return sum / static_cast<double>(drawn);
  }

  [[nodiscard]] double replicate_min(Rng& rng) const {
    const std::size_t count = m_runs.size();
    double smallest = std::numeric_limits<double>::infinity();
    for (std::size_t r = 0; r < count; ++r) {
      const std::vector<double>& run = m_runs[rng.index(count)];
      const double first = rng.beta(1.0, static_cast<double>(run.size()));
      smallest = std::min(smallest, run[scaled_index(first, run.size())]);
    }
    return smallest;
  }

  [[nodiscard]] double replicate_median(Rng& rng, std::vector<double>& counts) const {
    const std::size_t count = m_runs.size();
    counts.assign(m_pooled_sorted.size(), 0.0);
    std::size_t drawn = 0;
    for (std::size_t r = 0; r < count; ++r) {
      const std::size_t run = rng.index(count);
      const std::size_t offset = m_offsets[run];
      const std::size_t size = m_offsets[run + 1] - offset;
      for (std::size_t s = 0; s < size; ++s)
        counts[m_rank[offset + rng.index(size)]] += 1.0;
      drawn += size;
    }
    // The order statistics `below` and `below + 1` (0-based) of the `drawn` values.
    const std::size_t below = (drawn - 1) / 2;
    std::size_t i = 0;
    double seen = counts[0];
    while (seen <= static_cast<double>(below))
      seen += counts[++i];
    const double low = m_pooled_sorted[i];
    if (drawn % 2 == 1)
      return low;
    if (seen > static_cast<double>(below + 1))
      return low;
    do
      ++i;
    while (counts[i] == 0.0);
    return interpolate(low, m_pooled_sorted[i], 0.5);
  }

  // The statistic of every sample except those of run left_out (none when out of range).
  [[nodiscard]] double pooled_without(std::size_t left_out) const {
    std::vector<double> pooled;
    pooled.reserve(m_pooled_sorted.size());
    for (std::size_t r = 0; r < m_runs.size(); ++r)
      if (r != left_out)
        pooled.insert(pooled.end(), m_runs[r].begin(), m_runs[r].end());
    return evaluate_in_place(m_statistic, pooled);
  }

  Runs m_runs; // each run sorted
  Statistic m_statistic;
  std::vector<std::size_t> m_offsets;  // run r's samples are [m_offsets[r], m_offsets[r + 1])
  std::vector<std::size_t> m_rank;     // rank of each sample among all, in run order
  std::vector<double> m_pooled_sorted; // every sample, ascending
};

} // namespace

std::unique_ptr<Resampler> make_resampler(std::span<const double> sample, Statistic statistic) {
  switch (statistic) {
  case Statistic::mean:
    return std::make_unique<MeanResampler>(sample);
  case Statistic::min:
    return std::make_unique<QuantileResampler>(sample, 0.0);
  case Statistic::median:
    break;
  }
  return std::make_unique<QuantileResampler>(sample, 0.5);
}

std::unique_ptr<Resampler> make_resampler(std::span<const double> sample, StatisticFn statistic) {
  return std::make_unique<FunctionResampler>(sample, std::move(statistic));
}

std::unique_ptr<Resampler> make_resampler(const Runs& runs, Statistic statistic) {
  const bool one_sample_each =
      std::ranges::all_of(runs, [](const auto& run) { return run.size() == 1; });
  if (!one_sample_each)
    return std::make_unique<TwoLevelResampler>(runs, statistic);
  std::vector<double> pooled;
  pooled.reserve(runs.size());
  for (const auto& run : runs)
    pooled.push_back(run.front());
  return make_resampler(pooled, statistic);
}

} // namespace culprit::stats
