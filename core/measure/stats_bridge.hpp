#pragma once
// core/ calls into culprit_stats, whose options and errors are its own: this fills the options
// from the recipe's deciding settings (the one place they are converted) and maps the errors to
// core's Error. Bad data from a benchmark (a zero time where a ratio is asked, a NaN) is the
// benchmark's problem, reported as an infrastructure failure naming the case.

#include <string_view>
#include <utility>

#include "core/parsers/metric.hpp"
#include "core/recipe/recipe.hpp"
#include "core/util/error.hpp"
#include "stats/bootstrap.hpp"
#include "stats/error.hpp"
#include "stats/paired.hpp"
#include "stats/planning.hpp"
#include "stats/step_position.hpp"

namespace culprit::measure {

inline Error from_stats(const stats::Error& error, std::string_view context) {
  const ExitCode code =
      error.kind == stats::ErrorKind::invalid_argument ? ExitCode::usage : ExitCode::infrastructure;
  return Error{code,
               context.empty() ? error.message : fmt::format("{}: {}", context, error.message)};
}

template <class T> Result<T> from_stats(stats::Result<T> result, std::string_view context = {}) {
  if (!result)
    return std::unexpected(from_stats(result.error(), context));
  if constexpr (std::is_void_v<T>)
    return {};
  else
    return std::move(*result);
}

stats::Direction to_stats(parsers::Direction direction);

// A paired comparison at the settings' threshold, in the case's direction, at the given level
// (the settings' confidence unless a sequential look asks for its own).
stats::PairedOptions paired_options(const recipe::DecideOptions& decide,
                                    parsers::Direction direction, double confidence);
stats::PairedOptions paired_options(const recipe::DecideOptions& decide,
                                    parsers::Direction direction);

// A bisection probe's position between the ends, at the classification confidence.
stats::StepOptions step_options(const recipe::DecideOptions& decide, unsigned threads,
                                std::size_t resamples);

// The smallest change a comparison's data could resolve, at the settings' threshold and level.
stats::PlanningOptions planning_options(const recipe::DecideOptions& decide);

// The percentile-bootstrap interval of one side's level (a measurement's summary, a history
// point) at a level and seed; threads 0: every core.
stats::BootstrapOptions level_interval_options(double confidence, std::uint64_t seed,
                                               std::size_t resamples, unsigned threads = 0);

} // namespace culprit::measure
