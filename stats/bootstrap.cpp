#include "stats/bootstrap.hpp"

#include <cmath>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "stats/error.hpp"
#include "stats/intervals.hpp"
#include "stats/replicates.hpp"
#include "stats/resampler.hpp"
#include "stats/rng.hpp"
#include "stats/statistic.hpp"
#include "stats/summary.hpp"
#include "stats/types.hpp"
#include "stats/validate.hpp"

namespace culprit::stats {
namespace {

// Fewer resamples than this cannot place the tails of a 90% interval.
constexpr std::size_t k_min_resamples = 100;
constexpr std::size_t k_max_resamples = 100'000'000;

Result<Interval> one_sample_interval(const Resampler& resampler, const BootstrapOptions& options) {
  std::vector<double> replicates = draw_replicates(
      options.resamples, options.seed, options.threads,
      [&](Rng& rng, std::vector<double>& scratch) { return resampler.replicate(rng, scratch); });
  const std::vector<std::vector<double>> jackknives{resampler.jackknife()};
  const double estimate = resampler.estimate();
  CULPRIT_STATS_TRY(check_finite(estimate, replicates, jackknives));
  return make_interval(options.method, replicates, estimate, jackknives, options.confidence);
}

Result<RatioBootstrap> two_sample_ratio(const Resampler& base, const Resampler& head,
                                        const BootstrapOptions& options) {
  std::vector<double> replicates =
      draw_replicates(options.resamples, options.seed, options.threads,
                      [&](Rng& rng, std::vector<double>& scratch) {
                        const double base_value = base.replicate(rng, scratch);
                        return head.replicate(rng, scratch) / base_value;
                      });
  const double base_estimate = base.estimate();
  const double head_estimate = head.estimate();
  std::vector<std::vector<double>> jackknives{base.jackknife(), head.jackknife()};
  for (double& value : jackknives[0])
    value = head_estimate / value;
  for (double& value : jackknives[1])
    value /= base_estimate;
  const double estimate = head_estimate / base_estimate;
  CULPRIT_STATS_TRY(check_finite(estimate, replicates, jackknives));
  std::vector<double> logs;
  logs.reserve(replicates.size());
  for (const double value : replicates)
    logs.push_back(std::log(value));

  RatioBootstrap result;
  result.ratio =
      make_interval(options.method, replicates, estimate, jackknives, options.confidence);
  result.log_standard_error = std::sqrt(moments_of(logs).variance);
  return result;
}

} // namespace

Status check_bootstrap_options(const BootstrapOptions& options) {
  CULPRIT_STATS_TRY(check_probability(options.confidence, "the confidence level"));
  if (options.resamples < k_min_resamples || options.resamples > k_max_resamples)
    return fail(ErrorKind::invalid_argument,
                "the number of bootstrap resamples must be between {} and {}, not {}",
                k_min_resamples, k_max_resamples, options.resamples);
  return {};
}

Result<Interval> bootstrap_interval(std::span<const double> sample, Statistic statistic,
                                    const BootstrapOptions& options) {
  CULPRIT_STATS_TRY(check_bootstrap_options(options));
  CULPRIT_STATS_TRY(check_sample(sample, "sample", 2));
  return one_sample_interval(*make_resampler(sample, statistic), options);
}

Result<Interval> bootstrap_interval(std::span<const double> sample, const StatisticFn& statistic,
                                    const BootstrapOptions& options) {
  CULPRIT_STATS_TRY(check_bootstrap_options(options));
  CULPRIT_STATS_TRY(check_sample(sample, "sample", 2));
  if (!statistic)
    return fail(ErrorKind::invalid_argument, "the statistic function is empty");
  return one_sample_interval(*make_resampler(sample, statistic), options);
}

Result<Interval> ratio_interval(std::span<const double> base, std::span<const double> head,
                                Statistic statistic, const BootstrapOptions& options) {
  CULPRIT_STATS_TRY(check_bootstrap_options(options));
  CULPRIT_STATS_TRY(check_sample(base, "base", 2, Positivity::positive));
  CULPRIT_STATS_TRY(check_sample(head, "head", 2, Positivity::positive));
  CULPRIT_STATS_TRY_ASSIGN(const RatioBootstrap result,
                           two_sample_ratio(*make_resampler(base, statistic),
                                            *make_resampler(head, statistic), options));
  return result.ratio;
}

Result<Interval> level_interval(const Runs& runs, Statistic statistic,
                                const BootstrapOptions& options) {
  CULPRIT_STATS_TRY(check_bootstrap_options(options));
  CULPRIT_STATS_TRY(check_runs(runs, "runs", 2));
  return one_sample_interval(*make_resampler(runs, statistic), options);
}

Result<RatioBootstrap> ratio_bootstrap(const Runs& base, const Runs& head, Statistic statistic,
                                       const BootstrapOptions& options) {
  CULPRIT_STATS_TRY(check_bootstrap_options(options));
  CULPRIT_STATS_TRY(check_runs(base, "base", 2, Positivity::positive));
  CULPRIT_STATS_TRY(check_runs(head, "head", 2, Positivity::positive));
  return two_sample_ratio(*make_resampler(base, statistic), *make_resampler(head, statistic),
                          options);
}

Result<Interval> ratio_interval(const Runs& base, const Runs& head, Statistic statistic,
                                const BootstrapOptions& options) {
  CULPRIT_STATS_TRY_ASSIGN(const RatioBootstrap result,
                           ratio_bootstrap(base, head, statistic, options));
  return result.ratio;
}

} // namespace culprit::stats
