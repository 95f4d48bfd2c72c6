#pragma once
// Which cases and metric a verdict is about: the cases whose names match the recipe's globs
// (every case when there are none) and, per case, the recipe's metric or else its primary one:
// the first of gpu_time, time, real_time, wall_time, cpu_time that the case reports, else its
// first metric by name.

#include <string>
#include <vector>

#include "core/measure/subject.hpp"
#include "core/parsers/metric.hpp"
#include "core/store/records.hpp"
#include "core/util/error.hpp"

namespace culprit::measure {

struct SelectedCase {
  CaseKey key;
  std::string unit;
  parsers::Direction direction = parsers::Direction::lower_is_better;
};

// `available` is what the measured subjects reported. Globs that match no case, or a metric no
// selected case reports, are usage errors that list what there is.
Result<std::vector<SelectedCase>> select_cases(const std::vector<store::CaseMetric>& available,
                                               const std::vector<std::string>& globs,
                                               const std::string& metric);

bool case_matches(const std::string& case_name, const std::vector<std::string>& globs);

} // namespace culprit::measure
