// The noise lines of the summaries: what the machine did to the measurements, in words.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/report/report.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::report {
namespace {

struct CaseNoise {
  std::string summary; // of the first measurement that had one
  int affected = 0;    // measurements with something to say
  int measured = 0;
};

std::string judged_by(const evidence::EvidenceComparison* comparison) {
  if (comparison == nullptr || !comparison->estimator)
    return "";
  return fmt::format("; judged by each run's {}", comparison->estimator->statistic);
}

} // namespace

std::string render_noise_lines(const evidence::Evidence& evidence) {
  std::vector<std::string> order;
  std::map<std::string, CaseNoise> noise;
  std::map<std::string, const evidence::EvidenceComparison*> comparisons;
  for (const auto& c : evidence.comparisons) {
    if (comparisons.emplace(c.case_name, &c).second)
      order.push_back(c.case_name);
  }
  for (const auto& m : evidence.measurements) {
    auto [it, fresh] = noise.try_emplace(m.case_name);
    if (fresh && !comparisons.contains(m.case_name))
      order.push_back(m.case_name);
    ++it->second.measured;
    if (m.interference && !m.interference->summary.empty()) {
      ++it->second.affected;
      if (it->second.summary.empty())
        it->second.summary = m.interference->summary;
    }
  }
  std::string out;
  for (const auto& name : order) {
    const auto found = noise.find(name);
    if (found == noise.end() || found->second.affected == 0)
      continue;
    const auto& n = found->second;
    const auto comparison = comparisons.find(name);
    out += fmt::format(
        "noise: {}: {}{}{}\n", terminal_safe(name), n.summary,
        n.measured > 2 ? fmt::format(" (in {} of {} measurements)", n.affected, n.measured) : "",
        judged_by(comparison == comparisons.end() ? nullptr : comparison->second));
  }
  for (const auto& c : evidence.comparisons)
    if (c.slow_runs && !c.slow_runs->summary.empty())
      out += fmt::format("noise: {}: {}\n", terminal_safe(c.case_name), c.slow_runs->summary);
  // The cases of one pair share their blocks: count each pair's blocks once.
  std::map<std::pair<std::string, std::string>, std::pair<int, int>> per_pair; // blocks, duets
  for (const auto& c : evidence.comparisons) {
    if (c.tail)
      out += fmt::format("tail: {}: the slow side of each run ({}) is {}: ratio {} [{}, {}]\n",
                         terminal_safe(c.case_name), c.tail->statistic, c.tail->verdict,
                         format_ratio(c.tail->ratio), format_ratio(c.tail->ci[0]),
                         format_ratio(c.tail->ci[1]));
    if (c.estimator) {
      auto& [blocks, duets] = per_pair[{c.base, c.head}];
      blocks = std::max(blocks, c.estimator->blocks);
      duets = std::max(duets, c.estimator->duets);
    }
  }
  int blocks = 0;
  int duets = 0;
  for (const auto& [pair, counts] : per_pair) {
    blocks += counts.first;
    duets += counts.second;
  }
  if (duets > 0)
    out += fmt::format("duets: {} of {} blocks ran both revisions at once, each on CPUs of its "
                       "own\n",
                       duets, blocks);
  return out;
}

} // namespace culprit::report
