#pragma once
// Where a probed commit's level lies between good and bad, for bisection.
//
// With L(x) the statistic of the pooled samples of x's runs, the position of a probe is
//   p = log(L(probe) / L(good)) / log(L(bad) / L(good)):
// 0 is good's level, 1 is bad's. Its interval is the percentile interval of p over two-level
// bootstrap replicates that resample good, bad and probe independently (Efron & Tibshirani
// 1993, chapter 13; percentile rather than BCa because p is a ratio whose denominator can come
// near zero in a replicate, where the jackknife's acceleration is meaningless). A replicate
// whose step is zero is placed at +-1000, which simply widens the interval.
//
// Classification, relative to the measured step s = log(L(bad) / L(good)): changes smaller than
// the threshold delta do not matter, so a level within h = min(1/2, log(1 + delta) / |s|) of an
// end counts as that end's level. In this order:
//   unresolved    the step's own interval contains 0: measure more runs;
//   intermediate  h < lower and upper < 1 - h       (a level clearly away from both ends: more
//                                                    than one culprit; split the range)
//   good-like     upper < 1/2                        (the culprit is later)
//   bad-like      lower > 1/2                        (the culprit is this commit or earlier)
//   unresolved    anything else: measure more runs.
// Asking good-like levels to lie within h of good (an equivalence test) would need far more
// runs under noise than telling which half the level is in; a level that is not intermediate and
// lies wholly on one side of the middle reaches that side's end.

#include "stats/bootstrap.hpp"
#include "stats/error.hpp"
#include "stats/statistic.hpp"
#include "stats/types.hpp"
#include <cstdint>

#include <string_view>
#include <vector>

namespace culprit::stats {

enum class StepClass : std::uint8_t { good_like, bad_like, intermediate, unresolved };

std::string_view to_string(StepClass step_class);

struct StepOptions {
  Statistic statistic = Statistic::median;
  double threshold = 0.02;    // delta
  BootstrapOptions bootstrap; // its method is not used: always percentile
};

struct StepPosition {
  Interval position;      // 0 = good's level, 1 = bad's level
  Interval step;          // log(L(bad) / L(good)), with its interval
  double tolerance = 0.5; // h
  StepClass classification = StepClass::unresolved;
};

// The step position of estimates and their bootstrap replicates (percentile intervals at
// options.bootstrap.confidence), classified as above with h from options.threshold. Sorts the
// replicates. Errors: a non-finite estimate or replicate.
Result<StepPosition> place_in_step(double step, std::vector<double>& step_replicates,
                                   double position, std::vector<double>& position_replicates,
                                   const StepOptions& options);

// Each of good, bad and probe needs at least two runs of positive finite samples; good and bad
// must differ in level.
Result<StepPosition> step_position(const Runs& good, const Runs& bad, const Runs& probe,
                                   const StepOptions& options = {});

} // namespace culprit::stats
