#include "core/measure/case_select.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include <fnmatch.h>

namespace culprit::measure {
namespace {

// gpu_time first: a CUDA program of the harness reports the kernels' time between CUDA events
// (gpu_time) and the host's time around the call, launch and wait included (time); the GPU's is
// the kernels' figure, and the one that places them against the GPU's roofline.
constexpr std::array<std::string_view, 5> k_primary_metrics = {"gpu_time", "time", "real_time",
                                                               "wall_time", "cpu_time"};

std::string listing(const std::set<std::string>& names) {
  std::string out;
  int shown = 0;
  for (const auto& name : names) {
    if (shown == 8) {
      out += fmt::format(", ... ({} in all)", names.size());
      break;
    }
    out += (shown++ == 0 ? "" : ", ") + name;
  }
  return out;
}

} // namespace

bool case_matches(const std::string& case_name, const std::vector<std::string>& globs) {
  if (globs.empty())
    return true;
  return std::any_of(globs.begin(), globs.end(), [&](const std::string& glob) {
    return glob == case_name || fnmatch(glob.c_str(), case_name.c_str(), 0) == 0;
  });
}

Result<std::vector<SelectedCase>> select_cases(const std::vector<store::CaseMetric>& available,
                                               const std::vector<std::string>& globs,
                                               const std::string& metric) {
  std::map<std::string, std::vector<const store::CaseMetric*>> by_case;
  std::set<std::string> all_cases;
  for (const auto& entry : available) {
    all_cases.insert(entry.case_name);
    if (case_matches(entry.case_name, globs))
      by_case[entry.case_name].push_back(&entry);
  }
  if (available.empty())
    return infra_error("the benchmark reported no cases; check [run] command and format");
  if (by_case.empty())
    return usage_error("no case matches {}; the cases are: {}", fmt::join(globs, " or "),
                       listing(all_cases));
  std::vector<SelectedCase> selected;
  std::set<std::string> metrics_seen;
  for (const auto& [name, metrics] : by_case) {
    const store::CaseMetric* chosen = nullptr;
    for (const auto* m : metrics)
      metrics_seen.insert(m->metric);
    if (!metric.empty()) {
      for (const auto* m : metrics)
        if (m->metric == metric)
          chosen = m;
    } else {
      for (const auto primary : k_primary_metrics) {
        for (const auto* m : metrics)
          if (chosen == nullptr && m->metric == primary)
            chosen = m;
      }
      if (chosen == nullptr)
        chosen =
            *std::min_element(metrics.begin(), metrics.end(),
                              [](const auto* a, const auto* b) { return a->metric < b->metric; });
    }
    if (chosen != nullptr)
      selected.push_back({{name, chosen->metric}, chosen->unit, chosen->direction});
  }
  if (selected.empty())
    return usage_error("no selected case reports the metric '{}'; the metrics are: {}", metric,
                       listing(metrics_seen));
  return selected;
}

} // namespace culprit::measure
