#include "stats/statistic.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "stats/types.hpp"

namespace culprit::stats {

std::string_view to_string(Statistic statistic) {
  switch (statistic) {
  case Statistic::median:
    return "median";
  case Statistic::mean:
    return "mean";
  case Statistic::min:
    return "min";
  }
  return "median";
}

std::optional<Statistic> parse_statistic(std::string_view text) {
  for (const Statistic statistic : {Statistic::median, Statistic::mean, Statistic::min})
    if (to_string(statistic) == text)
      return statistic;
  return std::nullopt;
}

double evaluate_in_place(Statistic statistic, std::span<double> values) {
  switch (statistic) {
  case Statistic::mean: {
    double sum = 0.0;
    for (const double value : values)
      sum += value;
    return sum / static_cast<double>(values.size());
  }
  case Statistic::min:
    return *std::ranges::min_element(values);
  case Statistic::median:
    break;
  }
  const std::size_t half = values.size() / 2;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(half);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1)
    return *middle;
  const double below = *std::max_element(values.begin(), middle);
  return below + ((*middle - below) / 2.0);
}

double evaluate(Statistic statistic, std::span<const double> values) {
  std::vector<double> copy(values.begin(), values.end());
  return evaluate_in_place(statistic, copy);
}

} // namespace culprit::stats
