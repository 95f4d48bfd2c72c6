#include "stats/paired.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <span>
#include <vector>

#include <boost/math/distributions/normal.hpp>

#include "stats/replicates.hpp"
#include "stats/rng.hpp"
#include "stats/signed_rank.hpp"
#include "stats/validate.hpp"

namespace culprit::stats {
namespace {

constexpr double k_position_limit = 1000.0;

std::vector<double> log_ratios(std::span<const double> from, std::span<const double> to) {
  std::vector<double> ratios;
  ratios.reserve(from.size());
  for (std::size_t i = 0; i < from.size(); ++i)
    ratios.push_back(std::log(to[i]) - std::log(from[i]));
  return ratios;
}

Status check_blocks(std::span<const double> values, std::span<const double> other,
                    std::string_view name, std::size_t min_blocks) {
  CULPRIT_STATS_TRY(check_sample(values, name, min_blocks, Positivity::positive));
  if (values.size() != other.size())
    return fail(ErrorKind::invalid_argument,
                "paired values need one value per block on each side: {} has {}, the other {}",
                name, values.size(), other.size());
  return {};
}

// The median of the Walsh averages of values (the Hodges-Lehmann estimate), in O(n^2).
double walsh_median(std::span<const double> values, std::vector<double>& averages) {
  averages.clear();
  for (std::size_t i = 0; i < values.size(); ++i)
    for (std::size_t j = i; j < values.size(); ++j)
      averages.push_back((values[i] + values[j]) / 2.0);
  const std::size_t half = averages.size() / 2;
  const auto middle = averages.begin() + static_cast<std::ptrdiff_t>(half);
  std::nth_element(averages.begin(), middle, averages.end());
  if (averages.size() % 2 == 1)
    return *middle;
  return (*std::max_element(averages.begin(), middle) + *middle) / 2.0;
}

double position_of(double offset, double step) {
  if (step == 0.0)
    return offset >= 0.0 ? k_position_limit : -k_position_limit;
  return std::clamp(offset / step, -k_position_limit, k_position_limit);
}

} // namespace

Result<Comparison> compare_paired(std::span<const double> base, std::span<const double> head,
                                  const PairedOptions& options) {
  CULPRIT_STATS_TRY(check_rule(options.rule));
  CULPRIT_STATS_TRY(check_probability(options.confidence, "the confidence level"));
  CULPRIT_STATS_TRY(check_blocks(base, head, "base", 2));
  CULPRIT_STATS_TRY(check_blocks(head, base, "head", 2));
  const std::vector<double> differences = log_ratios(base, head);
  CULPRIT_STATS_TRY_ASSIGN(const LocationInterval shift,
                           hodges_lehmann_location(differences, options.confidence));
  CULPRIT_STATS_TRY_ASSIGN(const SignedRank test, signed_rank_test(differences));
  Comparison comparison;
  comparison.method = ComparisonMethod::paired_signed_rank;
  comparison.ratio.estimate = std::exp(shift.estimate);
  comparison.ratio.lower = std::exp(shift.lower);
  comparison.ratio.upper = std::exp(shift.upper);
  // Past a log ratio of about 709, exp gives infinity (or 0): no number holds the ratio, and no
  // real change makes one; a zero or an infinite sample is refused the same way.
  for (const double end :
       {comparison.ratio.estimate, comparison.ratio.lower, comparison.ratio.upper})
    if (!std::isfinite(end) || end <= 0.0)
      return fail(ErrorKind::non_finite,
                  "head and base differ by a factor of about 1e{:+.0f}, a ratio no number holds; "
                  "the benchmark reported invalid samples, fix or drop those runs",
                  shift.estimate / std::numbers::ln10);
  comparison.confidence = options.confidence;
  comparison.interval_confidence = shift.confidence;
  // The spread of log(ratio) that the interval implies, for planning: its half width over the
  // normal quantile of its own level.
  const boost::math::normal normal;
  const double level = std::clamp(shift.confidence, 0.5, 1.0 - 1e-12);
  const double z = boost::math::quantile(normal, 0.5 + (level / 2.0));
  comparison.log_standard_error = (shift.upper - shift.lower) / (2.0 * z);
  comparison.ratio.standard_error = comparison.log_standard_error * comparison.ratio.estimate;
  comparison.p_value = test.p_value;
  comparison.base_runs = base.size();
  comparison.head_runs = head.size();
  const bool reached = shift.confidence >= options.confidence - 1e-12;
  comparison.verdict =
      reached ? decide(comparison.ratio, comparison.p_value, options.confidence, options.rule)
              : Verdict::inconclusive;
  return comparison;
}

Result<StepPosition> paired_step_position(std::span<const double> good, std::span<const double> bad,
                                          std::span<const double> probe,
                                          const StepOptions& options) {
  CULPRIT_STATS_TRY(check_bootstrap_options(options.bootstrap));
  CULPRIT_STATS_TRY(check_threshold(options.threshold));
  CULPRIT_STATS_TRY(check_blocks(good, bad, "good", 3));
  CULPRIT_STATS_TRY(check_blocks(bad, good, "bad", 3));
  CULPRIT_STATS_TRY(check_blocks(probe, good, "probe", 3));
  const std::vector<double> offsets = log_ratios(good, probe);
  const std::vector<double> steps = log_ratios(good, bad);
  std::vector<double> scratch;
  const double step = walsh_median(steps, scratch);
  if (step == 0.0)
    return fail(ErrorKind::degenerate,
                "good and bad have the same level in these blocks, so there is no step to place a "
                "commit on; confirm the regression before bisecting");
  const double position = position_of(walsh_median(offsets, scratch), step);

  const std::size_t n = offsets.size();
  // Replicate i of the position and of the step resample the same blocks (the same seed).
  const auto& bootstrap = options.bootstrap;
  auto resample = [&](Rng& rng, std::vector<double>& drawn, bool offsets_too) {
    std::vector<double> picked_steps(n);
    std::vector<double> picked_offsets(offsets_too ? n : 0);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t block = rng.index(n);
      picked_steps[i] = steps[block];
      if (offsets_too)
        picked_offsets[i] = offsets[block];
    }
    const double s = walsh_median(picked_steps, drawn);
    return offsets_too ? position_of(walsh_median(picked_offsets, drawn), s) : s;
  };
  std::vector<double> positions = draw_replicates(
      bootstrap.resamples, bootstrap.seed, bootstrap.threads,
      [&](Rng& rng, std::vector<double>& drawn) { return resample(rng, drawn, true); });
  std::vector<double> step_replicates = draw_replicates(
      bootstrap.resamples, bootstrap.seed, bootstrap.threads,
      [&](Rng& rng, std::vector<double>& drawn) { return resample(rng, drawn, false); });
  return place_in_step(step, step_replicates, position, positions, options);
}

} // namespace culprit::stats
