#include "stats/run_statistic.hpp"

#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "stats/summary.hpp"

namespace culprit::stats {

std::string to_string(RunStatistic statistic) {
  if (statistic.kind == RunStatistic::Kind::mean)
    return "mean";
  if (statistic.q == 0.0)
    return "min";
  if (statistic.q == 1.0)
    return "max";
  if (statistic.q == 0.5)
    return "median";
  return fmt::format("p{:g}", statistic.q * 100.0);
}

Result<RunStatistic> parse_run_statistic(std::string_view text) {
  if (text == "median" || text == "p50")
    return RunStatistic::median();
  if (text == "mean")
    return RunStatistic::mean();
  if (text == "min")
    return RunStatistic::minimum();
  if (text == "max")
    return RunStatistic::maximum();
  const auto shown = text.substr(0, 40);
  if (text.size() >= 2 && text.front() == 'p') {
    const auto digits = text.substr(1);
    int percent = -1;
    const auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), percent);
    if (error == std::errc() && end == digits.data() + digits.size()) {
      if (percent == 0)
        return fail(ErrorKind::invalid_argument, "p0 is the minimum of each run: write min");
      if (percent == 100)
        return fail(ErrorKind::invalid_argument, "p100 is the maximum of each run: write max");
      if (percent > 0 && percent < 100)
        return RunStatistic::percentile(percent);
    }
    return fail(ErrorKind::invalid_argument,
                "'{}' is not a percentile: write p1 to p99, a whole number (p10 is the 10th "
                "percentile of each run's samples)",
                shown);
  }
  return fail(ErrorKind::invalid_argument,
              "unknown statistic '{}': use auto, median, mean, min, max or a percentile p1 to p99",
              shown);
}

double evaluate(RunStatistic statistic, std::span<const double> samples) {
  if (statistic.kind == RunStatistic::Kind::mean)
    return moments_of(samples).mean;
  if (samples.size() == 1)
    return samples.front();
  if (statistic.q == 0.0)
    return *std::ranges::min_element(samples);
  if (statistic.q == 1.0)
    return *std::ranges::max_element(samples);
  std::vector<double> sorted(samples.begin(), samples.end());
  std::ranges::sort(sorted);
  return quantile_of_sorted(sorted, statistic.q);
}

std::vector<double> run_values(const Runs& runs, RunStatistic statistic) {
  std::vector<double> values;
  values.reserve(runs.size());
  for (const auto& run : runs)
    values.push_back(evaluate(statistic, run));
  return values;
}

RunStatistic fast_side(Direction direction) {
  return direction == Direction::lower_is_better ? RunStatistic::minimum()
                                                 : RunStatistic::maximum();
}

} // namespace culprit::stats
