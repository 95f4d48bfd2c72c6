#include "core/parsers/valgrind_counts.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>

namespace culprit::parsers {
namespace {

// The weights of the estimated-cycles model: an L1 hit costs one cycle.
constexpr double k_last_level_hit_cycles = 5;
constexpr double k_ram_hit_cycles = 35;

} // namespace

std::map<std::string, double> valgrind_metrics(const std::map<std::string, double>& events) {
  // The sum of the named events, or nullopt when one is missing.
  const auto sum = [&](std::initializer_list<std::string_view> names) -> std::optional<double> {
    double total = 0;
    for (const auto name : names) {
      const auto found = events.find(std::string(name));
      if (found == events.end())
        return std::nullopt;
      total += found->second;
    }
    return total;
  };
  std::map<std::string, double> metrics;
  const auto put = [&](std::string_view metric, std::optional<double> value) {
    if (value)
      metrics.emplace(metric, *value);
  };
  put("instructions", sum({"Ir"}));
  put("data_reads", sum({"Dr"}));
  put("data_writes", sum({"Dw"}));
  put("branches", sum({"Bc", "Bi"}));
  put("l1_misses_instr", sum({"I1mr"}));
  put("l1_misses_data", sum({"D1mr", "D1mw"}));
  put("ll_misses_instr", sum({"ILmr"}));
  put("ll_misses_data", sum({"DLmr", "DLmw"}));
  put("branch_mispredictions", sum({"Bcm", "Bim"}));
  const auto accesses = sum({"Ir", "Dr", "Dw"});
  const auto l1_misses = sum({"I1mr", "D1mr", "D1mw"});
  const auto ram_hits = sum({"ILmr", "DLmr", "DLmw"});
  if (accesses && l1_misses && ram_hits) {
    const double first_level_hits = *accesses - *l1_misses;
    const double last_level_hits = *l1_misses - *ram_hits;
    metrics.emplace("estimated_cycles", first_level_hits +
                                            k_last_level_hit_cycles * last_level_hits +
                                            k_ram_hit_cycles * *ram_hits);
  }
  return metrics;
}

const std::vector<ValgrindMetric>& valgrind_metric_descriptors() {
  static const std::vector<ValgrindMetric> descriptors = [] {
    std::vector<ValgrindMetric> result;
    for (const std::string_view name :
         {"instructions", "data_reads", "data_writes", "branches", "l1_misses_instr",
          "l1_misses_data", "ll_misses_instr", "ll_misses_data", "branch_mispredictions",
          "estimated_cycles"})
      result.push_back({name, "", Direction::lower_is_better});
    return result;
  }();
  return descriptors;
}

bool is_valgrind_metric(std::string_view metric) {
  return std::ranges::any_of(valgrind_metric_descriptors(),
                             [&](const auto& descriptor) { return descriptor.name == metric; });
}

std::vector<CaseSamples> valgrind_samples(std::string_view case_name,
                                          const std::map<std::string, double>& counts) {
  std::vector<CaseSamples> samples;
  for (const auto& metric : valgrind_metric_descriptors()) {
    const auto found = counts.find(std::string(metric.name));
    if (found == counts.end())
      continue;
    samples.push_back(CaseSamples{std::string(case_name),
                                  std::string(metric.name),
                                  std::string(metric.unit),
                                  metric.direction,
                                  {found->second}});
  }
  return samples;
}

} // namespace culprit::parsers
