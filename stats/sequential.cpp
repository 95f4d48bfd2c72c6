#include "stats/sequential.hpp"

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include <boost/math/distributions/normal.hpp>

#include "stats/decision.hpp"
#include "stats/error.hpp"
#include "stats/group_sequential.hpp"
#include "stats/types.hpp"
#include "stats/validate.hpp"

namespace culprit::stats {
namespace {

constexpr std::size_t k_max_looks = 200;
// Levels closer to 1 than this are indistinguishable for any sample a driver can afford.
constexpr double k_max_look_confidence = 1.0 - 1e-12;

} // namespace

Result<SequentialPlan> make_sequential_plan(std::span<const std::size_t> runs_at_looks,
                                            double confidence) {
  CULPRIT_STATS_TRY(check_probability(confidence, "the confidence level"));
  if (runs_at_looks.empty())
    return fail(ErrorKind::empty, "a sequential plan needs at least one look");
  if (runs_at_looks.size() > k_max_looks)
    return fail(ErrorKind::too_large,
                "{} looks are too many (at most {}); look after larger batches",
                runs_at_looks.size(), k_max_looks);
  if (runs_at_looks.front() < 2)
    return fail(ErrorKind::too_few, "the first look needs at least 2 runs per side, not {}",
                runs_at_looks.front());
  for (std::size_t k = 1; k < runs_at_looks.size(); ++k)
    if (runs_at_looks[k] <= runs_at_looks[k - 1])
      return fail(ErrorKind::invalid_argument,
                  "the runs at each look must increase strictly ({} then {})", runs_at_looks[k - 1],
                  runs_at_looks[k]);

  std::vector<double> information;
  information.reserve(runs_at_looks.size());
  const auto last = static_cast<double>(runs_at_looks.back());
  for (const std::size_t runs : runs_at_looks)
    information.push_back(static_cast<double>(runs) / last);
  information.back() = 1.0;
  CULPRIT_STATS_TRY_ASSIGN(auto boundaries,
                           obrien_fleming_boundaries(information, 1.0 - confidence));

  SequentialPlan plan;
  plan.runs.assign(runs_at_looks.begin(), runs_at_looks.end());
  plan.overall_confidence = confidence;
  const boost::math::normal normal;
  for (const double boundary : boundaries)
    plan.confidence.push_back(
        std::min(k_max_look_confidence, (2.0 * boost::math::cdf(normal, boundary)) - 1.0));
  plan.boundaries = std::move(boundaries);
  return plan;
}

Result<SequentialPlan> make_sequential_plan(std::size_t min_runs, std::size_t max_runs,
                                            std::size_t batch, double confidence) {
  if (batch == 0)
    return fail(ErrorKind::invalid_argument, "the batch of runs between looks must be at least 1");
  if (min_runs > max_runs)
    return fail(ErrorKind::invalid_argument, "min_runs ({}) is larger than max_runs ({})", min_runs,
                max_runs);
  if ((max_runs - min_runs) / batch + 1 > k_max_looks)
    return fail(ErrorKind::too_large,
                "runs {} to {} in batches of {} make more than {} looks; use a larger batch",
                min_runs, max_runs, batch, k_max_looks);
  std::vector<std::size_t> runs;
  for (std::size_t count = min_runs; count < max_runs; count += batch)
    runs.push_back(count);
  runs.push_back(max_runs);
  return make_sequential_plan(runs, confidence);
}

Result<LookDecision> decide_at_look(const SequentialPlan& plan, std::size_t look,
                                    const CompareAt& compare_at) {
  if (look >= plan.confidence.size())
    return fail(ErrorKind::invalid_argument, "look {} is beyond the plan's {} looks", look,
                plan.confidence.size());
  CULPRIT_STATS_TRY_ASSIGN(const Comparison comparison, compare_at(plan.confidence[look]));
  LookDecision decision;
  decision.look = look;
  decision.last_look = look + 1 == plan.confidence.size();
  decision.comparison = comparison;
  const bool confident = comparison.verdict != Verdict::inconclusive;
  decision.next = confident || decision.last_look ? NextStep::stop : NextStep::measure_more;
  return decision;
}

Result<LookDecision> decide_at_look(const SequentialPlan& plan, std::size_t look, const Runs& base,
                                    const Runs& head, const CompareOptions& options) {
  return decide_at_look(plan, look, [&](double confidence) {
    CompareOptions at_look = options;
    at_look.bootstrap.confidence = confidence;
    return compare(base, head, at_look);
  });
}

} // namespace culprit::stats
