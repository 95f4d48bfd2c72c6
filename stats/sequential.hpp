#pragma once
// Adaptive sampling that stays honest under repeated looks: repeated confidence intervals
// (Jennison & Turnbull, "Interim analyses: the repeated confidence interval approach", JRSS B
// 1989) with O'Brien-Fleming-type alpha spending (Lan & DeMets 1983; see group_sequential.hpp).
//
// A schedule fixes in advance the number of runs per side at each look (e.g. 5, 10, ..., 40).
// At look k the driver calls decide_at_look() with every run so far; the comparison is made
// exactly as compare() makes it (decision.hpp), but at the look's own confidence level
// 2 Phi(z_k) - 1 from the group-sequential boundary z_k: very strict at early looks (99.9999%
// and more), close to the nominal level at the last. Together the intervals of all looks cover
// the true ratio with probability at least c, so a verdict reached at any look, and the decision
// to stop there, keeps its error rate: under A/A the chance of a false "slower" or "faster" over
// the whole schedule is at most 1 - c. A confident verdict (slower, faster or same) stops;
// otherwise the driver buys the next batch; at the last look, what is not confident is
// inconclusive.
//
// The boundaries assume the looks happen at the scheduled run counts; the information fraction
// of look k is runs_k / runs_last.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "stats/decision.hpp"
#include "stats/error.hpp"
#include "stats/types.hpp"

namespace culprit::stats {

struct SequentialPlan {
  std::vector<std::size_t> runs;  // per side, at each look; strictly increasing
  std::vector<double> boundaries; // z_k
  std::vector<double> confidence; // the level of the interval at each look
  double overall_confidence = 0.95;
};

// runs_at_looks: strictly increasing, the first at least 2, at most 200 looks.
Result<SequentialPlan> make_sequential_plan(std::span<const std::size_t> runs_at_looks,
                                            double confidence);

// Looks at min_runs, min_runs + batch, ... and at max_runs.
Result<SequentialPlan> make_sequential_plan(std::size_t min_runs, std::size_t max_runs,
                                            std::size_t batch, double confidence);

enum class NextStep : std::uint8_t { stop, measure_more };

struct LookDecision {
  NextStep next = NextStep::measure_more;
  std::size_t look = 0;
  bool last_look = false;
  // At the look's confidence level (options.bootstrap.confidence is not used). Its verdict is
  // inconclusive while the driver should measure more, and at the last look if nothing is
  // confident.
  Comparison comparison;
};

// look indexes plan.runs. Needs at least two runs per side (normally plan.runs[look]).
Result<LookDecision> decide_at_look(const SequentialPlan& plan, std::size_t look, const Runs& base,
                                    const Runs& head, const CompareOptions& options = {});

// The same for any comparison method: compare_at(level) compares the data in hand at the level
// of an interval (e.g. compare_paired of paired.hpp).
using CompareAt = std::function<Result<Comparison>(double confidence)>;
Result<LookDecision> decide_at_look(const SequentialPlan& plan, std::size_t look,
                                    const CompareAt& compare_at);

} // namespace culprit::stats
