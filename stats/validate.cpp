#include "stats/validate.hpp"

#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include <fmt/core.h>

#include "stats/error.hpp"
#include "stats/types.hpp"

namespace culprit::stats {
namespace {

Status check_values(std::span<const double> values, std::string_view name, std::string_view where,
                    Positivity positivity) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double value = values[i];
    if (std::isnan(value))
      return fail(ErrorKind::non_finite,
                  "{}: value {}{} is NaN; the benchmark reported an invalid sample, fix or drop "
                  "that run",
                  name, i, where);
    if (std::isinf(value))
      return fail(ErrorKind::non_finite,
                  "{}: value {}{} is infinite; the benchmark reported an invalid sample, fix or "
                  "drop that run",
                  name, i, where);
    if (positivity == Positivity::positive && value <= 0.0)
      return fail(ErrorKind::non_positive,
                  "{}: value {}{} is {}, but a ratio needs positive values; compare a time or a "
                  "throughput, not a difference",
                  name, i, where, value);
  }
  return {};
}

} // namespace

Status check_sample(std::span<const double> values, std::string_view name, std::size_t min_count,
                    Positivity positivity) {
  if (values.empty())
    return fail(ErrorKind::empty, "{}: no values; measure at least {} before asking for statistics",
                name, min_count);
  if (values.size() < min_count)
    return fail(ErrorKind::too_few, "{}: {} value{}, but at least {} are needed", name,
                values.size(), values.size() == 1 ? "" : "s", min_count);
  return check_values(values, name, "", positivity);
}

Status check_runs(const Runs& runs, std::string_view name, std::size_t min_runs,
                  Positivity positivity) {
  if (runs.empty())
    return fail(ErrorKind::empty, "{}: no runs; measure at least {} runs per side", name, min_runs);
  if (runs.size() < min_runs)
    return fail(ErrorKind::too_few,
                "{}: {} run{}, but at least {} are needed: runs are the independent unit, so "
                "measure more runs",
                name, runs.size(), runs.size() == 1 ? "" : "s", min_runs);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].empty())
      return fail(ErrorKind::empty, "{}: run {} has no samples; drop it or measure it again", name,
                  r);
    const std::string where = fmt::format(" of run {}", r);
    if (auto status = check_values(runs[r], name, where, positivity); !status)
      return status;
  }
  return {};
}

Status check_probability(double value, std::string_view name) {
  if (!strictly_between(value, 0.0, 1.0))
    return fail(ErrorKind::invalid_argument, "{} must be strictly between 0 and 1, not {}", name,
                value);
  return {};
}

Status check_threshold(double threshold) {
  if (!between(threshold, 0.0, 1.0) || threshold == 1.0)
    return fail(ErrorKind::invalid_argument,
                "the threshold must be a fraction in [0, 1) such as 0.02 for 2%, not {}",
                threshold);
  return {};
}

} // namespace culprit::stats
