// The terminal, JSON and CSV writers of a history.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/history/render.hpp"
#include "core/measure/evidence_fill.hpp"
#include "core/report/escape.hpp"
#include "core/report/format.hpp"

namespace culprit::history {
namespace {

using report::csv_field;
using report::terminal_safe;

constexpr std::array<std::string_view, 8> k_blocks = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
constexpr std::string_view k_ascii = "_.,-=+*#";

std::vector<double> bucketed(const std::vector<double>& values, std::size_t width) {
  if (values.size() <= width || width == 0)
    return values;
  std::vector<double> buckets;
  for (std::size_t b = 0; b < width; ++b) {
    const std::size_t begin = b * values.size() / width;
    const std::size_t end = (b + 1) * values.size() / width;
    std::vector<double> bucket(values.begin() + static_cast<std::ptrdiff_t>(begin),
                               values.begin() + static_cast<std::ptrdiff_t>(end));
    std::ranges::nth_element(bucket,
                             bucket.begin() + static_cast<std::ptrdiff_t>(bucket.size() / 2));
    buckets.push_back(bucket[bucket.size() / 2]);
  }
  return buckets;
}

std::string percent(double ratio) {
  return fmt::format("{:+.1f}%", (ratio - 1) * 100);
}

std::string kind_of(const ChangePoint& change) {
  return change.regression() ? "regression" : "improvement";
}

} // namespace

std::vector<ChangePoint> changes_of(const History& history, const Series& series) {
  std::vector<ChangePoint> changes;
  for (const auto& change : history.change_points)
    if (change.case_name == series.case_name && change.metric == series.metric)
      changes.push_back(change);
  return changes;
}

std::string sparkline(const std::vector<double>& values, Glyphs glyphs, std::size_t width) {
  const auto levels = bucketed(values, width);
  if (levels.empty())
    return {};
  const auto [low, high] = std::ranges::minmax(levels);
  std::string line;
  for (const double value : levels) {
    std::size_t level = 3;
    if (high > low)
      level = std::min<std::size_t>(7, static_cast<std::size_t>((value - low) / (high - low) * 8));
    if (glyphs == Glyphs::unicode)
      line += k_blocks.at(level);
    else
      line += k_ascii.at(level);
  }
  return line;
}

std::string render_text(const History& history, const CommitLabels& labels, Glyphs glyphs) {
  std::string out;
  for (const auto& series : history.series) {
    out += fmt::format("{} [{}]  {} points\n", terminal_safe(series.case_name),
                       terminal_safe(series.metric), series.points.size());
    if (series.points.empty()) {
      out += "  not measured at any tracked commit\n";
      continue;
    }
    std::vector<double> medians;
    medians.reserve(series.points.size());
    for (const auto& point : series.points)
      medians.push_back(point.median);
    out += fmt::format("  {}\n", sparkline(medians, glyphs));
    const auto& first = series.points.front();
    const auto& last = series.points.back();
    out +=
        fmt::format("  {} {} [{}, {}]  ->  {} {} [{}, {}]\n", first.commit.substr(0, 12),
                    format_value(first.median, series.unit), format_value(first.ci[0], series.unit),
                    format_value(first.ci[1], series.unit), last.commit.substr(0, 12),
                    format_value(last.median, series.unit), format_value(last.ci[0], series.unit),
                    format_value(last.ci[1], series.unit));
    for (const auto& change : changes_of(history, series)) {
      const auto label = labels.find(change.commit);
      out += fmt::format("  {} {}..{} {} (ratio {:.3f}, p = {:.3g}){}\n", kind_of(change),
                         change.before.substr(0, 12), change.commit.substr(0, 12),
                         percent(change.ratio), change.ratio, change.p_value,
                         label == labels.end()
                             ? std::string()
                             : "  " + terminal_safe(label->second.subject.substr(0, 60)));
    }
  }
  if (history.hosts.size() > 1)
    out += fmt::format("points of {} hosts: {}\n", history.hosts.size(),
                       fmt::join(history.hosts, ", "));
  out +=
      fmt::format("{} series, {}\n", history.series.size(),
                  report::counted(history.change_points.size(), "change point", "change points"));
  return out;
}

std::string render_json(const History& history) {
  using nlohmann::json;
  json series = json::array();
  for (const auto& s : history.series) {
    json points = json::array();
    for (const auto& p : s.points)
      points.push_back({{"commit", p.commit},
                        {"host", p.host_id},
                        {"source", p.source},
                        {"runs", p.runs},
                        {"median", p.median},
                        {"ci", {p.ci[0], p.ci[1]}}});
    series.push_back({{"case", s.case_name},
                      {"metric", s.metric},
                      {"unit", s.unit},
                      {"direction", to_string(s.direction)},
                      {"points", std::move(points)}});
  }
  json changes = json::array();
  for (const auto& c : history.change_points)
    changes.push_back({{"case", c.case_name},
                       {"metric", c.metric},
                       {"unit", c.unit},
                       {"commit", c.commit},
                       {"before", c.before},
                       {"after", c.commit},
                       {"ratio", c.ratio},
                       {"p_value", c.p_value},
                       {"kind", kind_of(c)}});
  const json document{{"series", std::move(series)},
                      {"change_points", std::move(changes)},
                      {"hosts", history.hosts}};
  return document.dump(2) + "\n";
}

std::string render_csv(const History& history) {
  std::string out = "case,metric,unit,commit,host,source,runs,median,ci_low,ci_high\n";
  for (const auto& s : history.series)
    for (const auto& p : s.points)
      out += fmt::format("{},{},{},{},{},{},{},{:.9g},{:.9g},{:.9g}\n", csv_field(s.case_name),
                         csv_field(s.metric), csv_field(s.unit), p.commit, csv_field(p.host_id),
                         p.source, p.runs, p.median, p.ci[0], p.ci[1]);
  return out;
}

} // namespace culprit::history
