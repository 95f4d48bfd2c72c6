#include "core/report/verdict_table.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::report {

std::string render_verdict_table(const evidence::Evidence& evidence, const std::string& base_name,
                                 const std::string& head_name) {
  std::map<std::pair<std::string, std::string>, const evidence::EvidenceMeasurement*> levels;
  for (const auto& m : evidence.measurements)
    levels[{m.commit, m.case_name}] = &m;
  std::size_t width = 4;
  for (const auto& c : evidence.comparisons)
    width = std::max(width, terminal_safe(c.case_name).size());
  width = std::min<std::size_t>(width, 60);
  std::string out =
      fmt::format("{:<{}}  {:>12}  {:>12}  {:>7}  {:<17}  {}\n", "case", width,
                  terminal_safe(base_name, 12), terminal_safe(head_name, 12), "ratio",
                  fmt::format("{:.0f}% CI", evidence.settings.confidence * 100), "verdict");
  std::map<std::string, int> counts;
  for (const auto& c : evidence.comparisons) {
    auto level = [&](const std::string& commit) {
      if (c.estimator && c.estimator->blocks > 0)
        return format_quantity(commit == c.head ? c.estimator->head_level : c.estimator->base_level,
                               c.unit);
      const auto it = levels.find({commit, c.case_name});
      return it == levels.end() ? std::string("-")
                                : format_quantity(it->second->summary.median, c.unit);
    };
    // A ratio needs two runs a side (compare_subjects); with fewer, one is not shown.
    const bool has_ratio = c.base_runs >= 2 && c.head_runs >= 2;
    out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>7}  {:<17}  {}{}\n",
                       terminal_safe(c.case_name, width), width, level(c.base), level(c.head),
                       has_ratio ? fmt::format("{:.3f}", c.ratio) : "-",
                       has_ratio ? fmt::format("[{:.3f}, {:.3f}]", c.ci[0], c.ci[1]) : "-",
                       c.verdict, c.note.empty() ? "" : " (" + terminal_safe(c.note) + ")");
    ++counts[c.verdict];
  }
  std::string summary;
  for (const auto& [verdict, count] : counts)
    summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", count, verdict);
  out += fmt::format("{} case{}: {} (threshold {:.1f}%)\n", evidence.comparisons.size(),
                     evidence.comparisons.size() == 1 ? "" : "s", summary,
                     evidence.settings.threshold * 100);
  return out;
}

std::string render_reuse_line(const evidence::Evidence& evidence, const std::string& base_name,
                              const std::string& head_name) {
  // The case that took or left out the most speaks for all: they share their runs.
  int reused = 0;
  int blocks = 0;
  std::array<int, 2> unpaired{0, 0};
  for (const auto& c : evidence.comparisons) {
    if (!c.reuse)
      continue;
    if (c.reuse->blocks > reused) {
      reused = c.reuse->blocks;
      blocks = c.base_runs;
    }
    unpaired[0] = std::max(unpaired[0], c.reuse->base_unpaired);
    unpaired[1] = std::max(unpaired[1], c.reuse->head_unpaired);
  }
  std::vector<std::string> parts;
  if (reused > 0)
    parts.push_back(fmt::format("{} of {} blocks {} made by an earlier command", reused, blocks,
                                reused == 1 ? "was" : "were"));
  const std::array<const std::string*, 2> names{&base_name, &head_name};
  for (std::size_t side = 0; side < 2; ++side)
    if (unpaired[side] > 0)
      parts.push_back(fmt::format("{} of {} stored without {} {} left out (unpaired)",
                                  counted(static_cast<std::size_t>(unpaired[side]), "run", "runs"),
                                  terminal_safe(*names[side], 40),
                                  terminal_safe(*names[1 - side], 40),
                                  unpaired[side] == 1 ? "was" : "were"));
  if (parts.empty())
    return {};
  return fmt::format("stored: {}\n", fmt::join(parts, "; "));
}

} // namespace culprit::report
