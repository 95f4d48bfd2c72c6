#include "stats/planning.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include <boost/math/distributions/complement.hpp>
#include <boost/math/distributions/normal.hpp>

#include "stats/bootstrap.hpp"
#include "stats/decision.hpp"
#include "stats/error.hpp"
#include "stats/types.hpp"
#include "stats/validate.hpp"

namespace culprit::stats {
namespace {

// More runs than this is no budget at all; saturate rather than overflow.
constexpr double k_max_runs = 1e9;

Status check_planning(const PlanningOptions& options) {
  CULPRIT_STATS_TRY(check_probability(options.confidence, "the confidence level"));
  CULPRIT_STATS_TRY(check_probability(options.power, "the power"));
  if (!strictly_between(options.threshold, 0.0, 1.0))
    return fail(ErrorKind::invalid_argument,
                "planning needs a threshold in (0, 1) such as 0.02 for 2%, not {}",
                options.threshold);
  return {};
}

RunBudget budget(double log_standard_error, double runs_now, const PlanningOptions& options) {
  const boost::math::normal normal;
  const double z_sum =
      boost::math::quantile(boost::math::complement(normal, (1.0 - options.confidence) / 2.0)) +
      boost::math::quantile(normal, options.power);
  RunBudget result;
  result.log_standard_error = log_standard_error;
  result.runs_now = runs_now;
  result.minimum_detectable_effect = std::expm1(z_sum * log_standard_error);
  const double scale = z_sum * log_standard_error / std::log1p(options.threshold);
  const double needed = std::ceil(runs_now * scale * scale);
  result.runs_needed = static_cast<std::size_t>(std::clamp(needed, 2.0, k_max_runs));
  return result;
}

} // namespace

Result<RunBudget> plan_runs(const Comparison& comparison, const PlanningOptions& options) {
  CULPRIT_STATS_TRY(check_planning(options));
  if (comparison.base_runs < 2 || comparison.head_runs < 2)
    return fail(ErrorKind::too_few, "planning needs a comparison of at least 2 runs per side");
  const double runs_now = 2.0 / (1.0 / static_cast<double>(comparison.base_runs) +
                                 1.0 / static_cast<double>(comparison.head_runs));
  return budget(comparison.log_standard_error, runs_now, options);
}

Result<RunBudget> plan_runs(const Runs& base, const Runs& head, const PlanningOptions& options,
                            const CompareOptions& compare_options) {
  CULPRIT_STATS_TRY(check_planning(options));
  CULPRIT_STATS_TRY_ASSIGN(
      const RatioBootstrap bootstrap,
      ratio_bootstrap(base, head, compare_options.statistic, compare_options.bootstrap));
  Comparison comparison;
  comparison.log_standard_error = bootstrap.log_standard_error;
  comparison.base_runs = base.size();
  comparison.head_runs = head.size();
  return plan_runs(comparison, options);
}

} // namespace culprit::stats
