#include "stats/quick_look.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "stats/summary.hpp"

namespace culprit::stats {
namespace {

constexpr double k_dwarf_ratio = 4.0; // |s| >= 4 sigma
constexpr double k_stray_share = 0.5; // no block's step strays by half the step
constexpr double k_largest_bound = 0.25;

bool all_positive(std::span<const double> values) {
  return std::ranges::all_of(values, [](double v) { return std::isfinite(v) && v > 0.0; });
}

bool near_step(double b, double step) {
  return std::signbit(b) == std::signbit(step) &&
         std::abs(b - step) < k_stray_share * std::abs(step);
}

} // namespace

bool StepNoise::dwarfed() const {
  return blocks >= k_quick_min_end_blocks && step != 0.0 &&
         std::abs(step) >= k_dwarf_ratio * spread && worst < k_stray_share * std::abs(step);
}

std::optional<StepNoise> step_noise(std::span<const double> good, std::span<const double> bad) {
  if (good.size() != bad.size() || good.size() < k_quick_min_end_blocks || !all_positive(good) ||
      !all_positive(bad))
    return std::nullopt;
  std::vector<double> ratios;
  ratios.reserve(good.size());
  for (std::size_t j = 0; j < good.size(); ++j)
    ratios.push_back(std::log(bad[j] / good[j]));
  const auto summary = summarize(ratios);
  if (!summary)
    return std::nullopt;
  StepNoise noise;
  noise.blocks = ratios.size();
  noise.step = summary->median;
  noise.worst = std::max(summary->max - summary->median, summary->median - summary->min);
  noise.spread = k_mad_to_sigma * summary->mad;
  return noise;
}

std::optional<StepPosition> quick_position(const StepNoise& ends, std::span<const double> lo,
                                           std::span<const double> hi,
                                           std::span<const double> probe, double threshold) {
  if (!ends.dwarfed() || lo.size() < k_quick_blocks || lo.size() != hi.size() ||
      lo.size() != probe.size() || !all_positive(lo) || !all_positive(hi) || !all_positive(probe) ||
      !(threshold > 0.0))
    return std::nullopt;
  const double magnitude = std::abs(ends.step);
  StepPosition result;
  result.tolerance = std::min(0.5, std::log1p(threshold) / magnitude);
  const double bound = std::min(k_largest_bound, result.tolerance);
  std::vector<double> positions;
  std::vector<double> steps;
  for (std::size_t i = 0; i < lo.size(); ++i) {
    const double b = std::log(hi[i] / lo[i]);
    if (!near_step(b, ends.step))
      return std::nullopt;
    steps.push_back(b);
    positions.push_back(std::log(probe[i] / lo[i]) / b);
  }
  const auto [low, high] = std::ranges::minmax(positions);
  if (high < bound)
    result.classification = StepClass::good_like;
  else if (low > 1.0 - bound)
    result.classification = StepClass::bad_like;
  else
    return std::nullopt;
  const auto [step_low, step_high] = std::ranges::minmax(steps);
  result.position = {.estimate = median(positions).value_or(low), .lower = low, .upper = high};
  result.step = {
      .estimate = median(steps).value_or(step_low), .lower = step_low, .upper = step_high};
  return result;
}

std::optional<Verdict> quick_stop(std::span<const double> base, std::span<const double> head,
                                  const DecisionRule& rule) {
  if (base.size() < k_quick_stop_blocks || !(rule.threshold > 0.0))
    return std::nullopt;
  const auto noise = step_noise(base, head);
  if (!noise || !noise->dwarfed())
    return std::nullopt;
  // Beyond the threshold as decide() reads it (stats/decision.hpp): above 1 + delta, below
  // 1 - delta.
  const double above = std::log1p(rule.threshold);
  const double below = rule.threshold < 1.0 ? std::log1p(-rule.threshold) : -HUGE_VAL;
  bool up = true;
  bool down = true;
  for (std::size_t j = 0; j < base.size(); ++j) {
    const double b = std::log(head[j] / base[j]);
    up = up && b > above;
    down = down && b < below;
  }
  if (!up && !down)
    return std::nullopt;
  const bool higher_is_worse = rule.direction == Direction::lower_is_better;
  return up == higher_is_worse ? Verdict::slower : Verdict::faster;
}

} // namespace culprit::stats
