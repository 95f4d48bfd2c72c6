#include "stats/decision.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "stats/bootstrap.hpp"
#include "stats/error.hpp"
#include "stats/rank_tests.hpp"
#include "stats/statistic.hpp"
#include "stats/types.hpp"
#include "stats/validate.hpp"

namespace culprit::stats {
namespace {

std::vector<double> run_summaries(const Runs& runs, Statistic statistic) {
  std::vector<double> summaries;
  summaries.reserve(runs.size());
  for (const auto& run : runs)
    summaries.push_back(evaluate(statistic, run));
  return summaries;
}

} // namespace

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
  case Verdict::slower:
    return "slower";
  case Verdict::faster:
    return "faster";
  case Verdict::same:
    return "same";
  case Verdict::inconclusive:
    return "inconclusive";
  }
  return "inconclusive";
}

std::string_view to_string(ComparisonMethod method) {
  switch (method) {
  case ComparisonMethod::two_level_bootstrap:
    return "two_level_bootstrap";
  case ComparisonMethod::paired_signed_rank:
    return "paired_signed_rank";
  case ComparisonMethod::exact:
    return "exact";
  }
  return "two_level_bootstrap";
}

std::optional<Comparison> exact_comparison(std::span<const double> base,
                                           std::span<const double> head, double confidence,
                                           const DecisionRule& rule) {
  const auto constant = [](std::span<const double> values) {
    return values.size() >= 2 && std::isfinite(values[0]) && values[0] > 0 &&
           std::ranges::all_of(values, [&](double v) { return v == values[0]; });
  };
  if (!constant(base) || !constant(head))
    return std::nullopt;
  const double ratio = head[0] / base[0];
  if (!std::isfinite(ratio) || !(ratio > 0))
    return std::nullopt; // past what a number holds: the ordinary path says so
  Comparison comparison;
  comparison.ratio = {.estimate = ratio, .lower = ratio, .upper = ratio, .standard_error = 0};
  comparison.confidence = confidence;
  comparison.interval_confidence = 1.0;
  comparison.method = ComparisonMethod::exact;
  comparison.log_standard_error = 0;
  comparison.p_value = ratio == 1.0 ? 1.0 : 0.0;
  comparison.verdict = decide(comparison.ratio, comparison.p_value, confidence, rule);
  comparison.base_runs = base.size();
  comparison.head_runs = head.size();
  return comparison;
}

Status check_rule(const DecisionRule& rule) {
  return check_threshold(rule.threshold);
}

Verdict decide(const Interval& ratio, double p_value, double confidence, const DecisionRule& rule) {
  const bool significant = p_value <= 1.0 - confidence;
  const bool higher = significant && ratio.lower > 1.0 + rule.threshold;
  const bool lower = significant && ratio.upper < 1.0 - rule.threshold;
  const bool lower_is_better = rule.direction == Direction::lower_is_better;
  if (higher)
    return lower_is_better ? Verdict::slower : Verdict::faster;
  if (lower)
    return lower_is_better ? Verdict::faster : Verdict::slower;
  if (ratio.lower >= 1.0 - rule.threshold && ratio.upper <= 1.0 + rule.threshold)
    return Verdict::same;
  return Verdict::inconclusive;
}

Result<Comparison> compare(const Runs& base, const Runs& head, const CompareOptions& options) {
  CULPRIT_STATS_TRY(check_rule(options.rule));
  CULPRIT_STATS_TRY_ASSIGN(const RatioBootstrap bootstrap,
                           ratio_bootstrap(base, head, options.statistic, options.bootstrap));
  CULPRIT_STATS_TRY_ASSIGN(
      const MannWhitney test,
      mann_whitney(run_summaries(base, options.statistic), run_summaries(head, options.statistic)));
  Comparison comparison;
  comparison.ratio = bootstrap.ratio;
  comparison.confidence = options.bootstrap.confidence;
  comparison.interval_confidence = options.bootstrap.confidence;
  comparison.log_standard_error = bootstrap.log_standard_error;
  comparison.p_value = test.p_value;
  comparison.verdict =
      decide(comparison.ratio, comparison.p_value, comparison.confidence, options.rule);
  comparison.base_runs = base.size();
  comparison.head_runs = head.size();
  return comparison;
}

} // namespace culprit::stats
