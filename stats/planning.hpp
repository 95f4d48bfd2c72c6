#pragma once
// How small a change the data in hand can resolve, and how many runs it would take to resolve
// the threshold: the minimum detectable effect of a two-sided test at level 1 - c with power
// 1 - beta (Bloom, "Minimum detectable effects", Evaluation Review 1995), on the log scale:
//   MDE = exp((z_(1 - (1-c)/2) + z_power) * SE) - 1,
// where SE is the bootstrap standard error of log(ratio). SE shrinks as 1 / sqrt(runs) (runs are
// the independent unit), so the runs per side needed for MDE <= delta are
//   n_now * ((z_(1 - (1-c)/2) + z_power) * SE / log(1 + delta))^2,
// with n_now = 2 / (1/n_base + 1/n_head). A change of the MDE would be told apart from no change
// with the given power; a ratio interval about twice as narrow as the MDE also fits inside the
// band of a "same" verdict. Reports say: "inconclusive: could not resolve changes under MDE".
// A sequential plan needs a few percent more runs than this (Jennison & Turnbull 2000, table
// 2.3: about 3% for O'Brien-Fleming boundaries).

#include <cstddef>

#include "stats/decision.hpp"
#include "stats/error.hpp"
#include "stats/types.hpp"

namespace culprit::stats {

struct PlanningOptions {
  double threshold = 0.02; // delta, > 0
  double confidence = 0.95;
  double power = 0.8;
};

struct RunBudget {
  double minimum_detectable_effect = 0.0; // relative: 0.05 is 5%
  std::size_t runs_needed = 0;            // per side, to bring the MDE down to the threshold
  double runs_now = 0.0;                  // 2 / (1/n_base + 1/n_head)
  double log_standard_error = 0.0;
};

// From a comparison already made.
Result<RunBudget> plan_runs(const Comparison& comparison, const PlanningOptions& options = {});

// One call: bootstraps the ratio of the statistic (two-level) for its standard error first.
Result<RunBudget> plan_runs(const Runs& base, const Runs& head, const PlanningOptions& options = {},
                            const CompareOptions& compare_options = {});

} // namespace culprit::stats
