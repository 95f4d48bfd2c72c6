#pragma once
// Evaluating a statistic on a set of values.

#include <functional>
#include <span>

#include "stats/types.hpp"

namespace culprit::stats {

// A statistic of one sample, for bootstrap intervals of anything. It must be a pure function of
// its argument: it is called concurrently from several threads.
using StatisticFn = std::function<double(std::span<const double>)>;

// The statistic of values, which must not be empty; values may be reordered.
double evaluate_in_place(Statistic statistic, std::span<double> values);

// The statistic of values, which must not be empty.
double evaluate(Statistic statistic, std::span<const double> values);

} // namespace culprit::stats
