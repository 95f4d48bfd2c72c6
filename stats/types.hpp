#pragma once
// The vocabulary shared by the statistics library: runs of samples, the statistic that
// summarises them, which way is better, and an interval around an estimate.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace culprit::stats {

// The samples of each run of one case on one side of a comparison. The run (one process) is the
// independent unit: samples inside one run are not independent of each other.
using Runs = std::vector<std::vector<double>>;

// Which way is better for a metric: times are lower-is-better, throughputs higher-is-better.
enum class Direction : std::uint8_t { lower_is_better, higher_is_better };

// The statistic that stands for a set of samples. The median by default: it is robust to the
// occasional slow sample. The minimum is the usual choice of "best achievable" benchmarks.
enum class Statistic : std::uint8_t { median, mean, min };

std::string_view to_string(Statistic statistic);
std::optional<Statistic> parse_statistic(std::string_view text);

// An estimate and a two-sided confidence interval around it. standard_error is the standard
// deviation of the bootstrap replicates (zero when the interval was not made by resampling).
struct Interval {
  double estimate = 0.0;
  double lower = 0.0;
  double upper = 0.0;
  double standard_error = 0.0;
};

} // namespace culprit::stats
