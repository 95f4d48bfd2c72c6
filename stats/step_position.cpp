#include "stats/step_position.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "stats/bootstrap.hpp"
#include "stats/error.hpp"
#include "stats/intervals.hpp"
#include "stats/replicates.hpp"
#include "stats/resampler.hpp"
#include "stats/rng.hpp"
#include "stats/types.hpp"
#include "stats/validate.hpp"

namespace culprit::stats {
namespace {

constexpr double k_position_limit = 1000.0;

double position_of(double good, double bad, double probe) {
  const double step = std::log(bad / good);
  const double offset = std::log(probe / good);
  if (step == 0.0)
    return offset >= 0.0 ? k_position_limit : -k_position_limit;
  return std::clamp(offset / step, -k_position_limit, k_position_limit);
}

StepClass classify_position(const Interval& position, const Interval& step, double tolerance) {
  if (step.lower <= 0.0 && step.upper >= 0.0)
    return StepClass::unresolved;
  // A level clearly away from both ends comes first: it means more than one culprit.
  if (position.lower > tolerance && position.upper < 1.0 - tolerance)
    return StepClass::intermediate;
  // Otherwise the interval only has to fall on one side of the middle: it then reaches an end's
  // level (it is not intermediate) and excludes the other end's.
  if (position.upper < 0.5)
    return StepClass::good_like;
  if (position.lower > 0.5)
    return StepClass::bad_like;
  return StepClass::unresolved;
}

} // namespace

Result<StepPosition> place_in_step(double step, std::vector<double>& step_replicates,
                                   double position, std::vector<double>& position_replicates,
                                   const StepOptions& options) {
  CULPRIT_STATS_TRY(check_finite(step, step_replicates));
  CULPRIT_STATS_TRY(check_finite(position, position_replicates));
  const double confidence = options.bootstrap.confidence;
  StepPosition result;
  result.step = percentile_interval(step_replicates, step, confidence);
  result.position = percentile_interval(position_replicates, position, confidence);
  result.tolerance = std::min(0.5, std::log1p(options.threshold) / std::abs(step));
  result.classification = classify_position(result.position, result.step, result.tolerance);
  return result;
}

std::string_view to_string(StepClass step_class) {
  switch (step_class) {
  case StepClass::good_like:
    return "good-like";
  case StepClass::bad_like:
    return "bad-like";
  case StepClass::intermediate:
    return "intermediate";
  case StepClass::unresolved:
    return "unresolved";
  }
  return "unresolved";
}

Result<StepPosition> step_position(const Runs& good, const Runs& bad, const Runs& probe,
                                   const StepOptions& options) {
  CULPRIT_STATS_TRY(check_bootstrap_options(options.bootstrap));
  CULPRIT_STATS_TRY(check_threshold(options.threshold));
  CULPRIT_STATS_TRY(check_runs(good, "good", 2, Positivity::positive));
  CULPRIT_STATS_TRY(check_runs(bad, "bad", 2, Positivity::positive));
  CULPRIT_STATS_TRY(check_runs(probe, "probe", 2, Positivity::positive));
  const auto good_resampler = make_resampler(good, options.statistic);
  const auto bad_resampler = make_resampler(bad, options.statistic);
  const auto probe_resampler = make_resampler(probe, options.statistic);
  const double good_level = good_resampler->estimate();
  const double bad_level = bad_resampler->estimate();
  if (good_level == bad_level)
    return fail(ErrorKind::degenerate,
                "good and bad have the same level ({}), so there is no step to place a commit "
                "on; confirm the regression before bisecting",
                good_level);

  // The same seed for both passes: replicate i of the step and of the position come from the
  // same resamples.
  const auto& bootstrap = options.bootstrap;
  std::vector<double> positions =
      draw_replicates(bootstrap.resamples, bootstrap.seed, bootstrap.threads,
                      [&](Rng& rng, std::vector<double>& scratch) {
                        const double g = good_resampler->replicate(rng, scratch);
                        const double b = bad_resampler->replicate(rng, scratch);
                        return position_of(g, b, probe_resampler->replicate(rng, scratch));
                      });
  std::vector<double> steps =
      draw_replicates(bootstrap.resamples, bootstrap.seed, bootstrap.threads,
                      [&](Rng& rng, std::vector<double>& scratch) {
                        const double g = good_resampler->replicate(rng, scratch);
                        return std::log(bad_resampler->replicate(rng, scratch) / g);
                      });

  const double step = std::log(bad_level / good_level);
  const double position = position_of(good_level, bad_level, probe_resampler->estimate());
  return place_in_step(step, steps, position, positions, options);
}

} // namespace culprit::stats
