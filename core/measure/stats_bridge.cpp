#include "core/measure/stats_bridge.hpp"

namespace culprit::measure {

stats::Direction to_stats(parsers::Direction direction) {
  return direction == parsers::Direction::lower_is_better ? stats::Direction::lower_is_better
                                                          : stats::Direction::higher_is_better;
}

stats::PairedOptions paired_options(const recipe::DecideOptions& decide,
                                    parsers::Direction direction, double confidence) {
  stats::PairedOptions options;
  options.rule.threshold = decide.threshold;
  options.rule.direction = to_stats(direction);
  options.confidence = confidence;
  return options;
}

stats::PairedOptions paired_options(const recipe::DecideOptions& decide,
                                    parsers::Direction direction) {
  return paired_options(decide, direction, decide.confidence);
}

stats::StepOptions step_options(const recipe::DecideOptions& decide, unsigned threads,
                                std::size_t resamples) {
  stats::StepOptions options;
  options.threshold = decide.threshold;
  options.bootstrap.confidence = decide.classify_confidence;
  options.bootstrap.seed = decide.seed;
  options.bootstrap.threads = threads;
  options.bootstrap.resamples = resamples;
  return options;
}

stats::PlanningOptions planning_options(const recipe::DecideOptions& decide) {
  stats::PlanningOptions options;
  options.threshold = decide.threshold;
  options.confidence = decide.confidence;
  return options;
}

stats::BootstrapOptions level_interval_options(double confidence, std::uint64_t seed,
                                               std::size_t resamples, unsigned threads) {
  stats::BootstrapOptions options;
  options.confidence = confidence;
  options.seed = seed;
  options.method = stats::IntervalMethod::percentile;
  options.resamples = resamples;
  options.threads = threads;
  return options;
}

} // namespace culprit::measure
