#pragma once
// The plots of the HTML report, each an inline <svg> element (see svg.hpp).

#include <string>
#include <string_view>
#include <vector>

#include "core/evidence/evidence.hpp"
#include "core/report/view.hpp"

namespace culprit::report {

// The distribution of each commit on the bisection path for one case, in commit order: the
// median of each run as a dot, the measurement's median and CI as a bar, good and bad coloured,
// the culprit marked. Empty when no commit on the path was measured for the case.
std::string bisection_plot(const evidence::Evidence& evidence, const ReportView& view,
                           const std::string& case_name, int index);

// One row per comparison: the ratio and its CI, the band of no change (1 ± threshold) shaded.
std::string forest_plot(const evidence::Evidence& evidence, const ReportView& view);

struct Series {
  std::string label; // "base 0123456789ab"
  const evidence::EvidenceMeasurement* measurement = nullptr;
};

// Every sample of each measurement in the order it was taken (run after run), with the run
// medians joined, to show drift within a measurement. Empty when there are no samples.
std::string run_order_plot(const std::string& case_name, const std::vector<Series>& series,
                           int index);

// A CSS class for a verdict or a classification from the evidence: one of a fixed set, so
// that no text from the evidence reaches an attribute.
std::string_view css_class_of(std::string_view verdict);

} // namespace culprit::report
