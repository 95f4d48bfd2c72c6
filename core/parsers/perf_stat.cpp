#include "core/parsers/perf_stat.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace culprit::parsers {
namespace {

// perf's event name and the metric it becomes, in the order of perf_events().
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> k_events = {{
    {"instructions", "instructions"},
    {"cycles", "cycles"},
    {"branches", "branches"},
    {"branch-misses", "branch_mispredictions"},
    {"cache-references", "cache_references"},
    {"cache-misses", "cache_misses"},
}};

std::vector<std::string_view> split(std::string_view line, char separator) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (std::size_t at = line.find(separator); at != std::string_view::npos;
       at = line.find(separator, start)) {
    fields.push_back(line.substr(start, at - start));
    start = at + 1;
  }
  fields.push_back(line.substr(start));
  return fields;
}

} // namespace

std::string_view perf_events() {
  return "instructions,cycles,branches,branch-misses,cache-references,cache-misses";
}

Result<std::map<std::string, double>> parse_perf_stat(std::string_view text) {
  std::map<std::string, double> counts;
  std::size_t number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    auto line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.empty() || line.starts_with('#'))
      continue;
    const auto fields = split(line, ',');
    if (fields.size() < 3)
      return infra_error("perf stat output line {} is not 'value,unit,event,...': {}", number,
                         line.substr(0, 80));
    auto event = fields[2];
    // A hybrid CPU's events carry their PMU: cpu_core/instructions/u, cpu_atom/instructions/u.
    const bool hybrid = event.find('/') != std::string_view::npos;
    if (hybrid) {
      event = event.substr(event.find('/') + 1);
      event = event.substr(0, event.find('/'));
    }
    if (const auto colon = event.find(':'); colon != std::string_view::npos)
      event = event.substr(0, colon); // modifiers: instructions:u
    const auto known =
        std::ranges::find(k_events, event, &std::pair<std::string_view, std::string_view>::first);
    if (known == k_events.end())
      continue; // an event culprit did not ask for (a wrapper's own)
    const auto value = fields[0];
    if (value.starts_with("<not supported>"))
      return usage_error("this machine exposes no '{}' counter to perf (perf stat says <not "
                         "supported>, as in most virtual machines); count on a simulated CPU "
                         "with --instrument valgrind",
                         event);
    if (value.starts_with("<not counted>") && hybrid)
      continue; // the run never ran on that kind of core
    if (value.starts_with("<not counted>"))
      return infra_error("perf could not count '{}' during the run (<not counted>: another "
                         "program holds the counters, or the run ended first)",
                         event);
    double parsed = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (ec != std::errc() || ptr != value.data() + value.size() || !(parsed >= 0) ||
        !std::isfinite(parsed))
      return infra_error("perf stat output line {}: '{}' is not a count", number,
                         value.substr(0, 40));
    counts[std::string(known->second)] += parsed;
  }
  if (counts.empty())
    return infra_error("perf stat wrote none of the events culprit asked for ({})", perf_events());
  return counts;
}

bool is_perf_metric(std::string_view metric) {
  return std::ranges::any_of(k_events, [&](const auto& event) { return event.second == metric; });
}

std::vector<CaseSamples> perf_samples(std::string_view case_name,
                                      const std::map<std::string, double>& counts) {
  std::vector<CaseSamples> samples;
  for (const auto& [event, metric] : k_events) {
    const auto found = counts.find(std::string(metric));
    if (found == counts.end())
      continue;
    samples.push_back(CaseSamples{std::string(case_name),
                                  std::string(metric),
                                  "",
                                  Direction::lower_is_better,
                                  {found->second}});
  }
  return samples;
}

} // namespace culprit::parsers
