// The terminal, JSON and CSV writers of a history.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/report/history.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"
#include "core/util/json_text.hpp"

namespace culprit::report {
namespace {

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

// A session whose level differs from the newest by less than this is not worth a line.
constexpr double k_notable_session_shift = 0.01;

std::string change_percent(double ratio) {
  return fmt::format("{:+.1f}%", (ratio - 1) * 100);
}

} // namespace

std::string step_text(const history::ChangePoint& change) {
  return fmt::format("{} [{}, {}] (ratio {:.3f})", change_percent(change.ratio),
                     change_percent(change.ci[0]), change_percent(change.ci[1]), change.ratio);
}

std::string sessions_text(const history::ChangePoint& change) {
  std::vector<std::string> labels;
  labels.reserve(change.sessions.size());
  for (const auto& id : change.sessions)
    labels.push_back(history::session_label(id));
  if (labels.size() == 1)
    return fmt::format("runs of one session ({})", labels.front());
  return fmt::format("runs of {} sessions ({}), aligned by their anchors", labels.size(),
                     fmt::join(labels, "; "));
}

std::vector<std::string> session_notes(const history::Series& series, double notable) {
  std::vector<std::string> notes;
  for (const auto& session : series.sessions) {
    if (!session.aligned) {
      notes.push_back(fmt::format("the session of {} shares no commit with the others, so its {} "
                                  "cannot be aligned: a step at its edge may be the machine",
                                  history::session_label(session.id),
                                  counted(session.points, "point", "points")));
      continue;
    }
    if (std::abs(std::log(session.factor)) < std::log1p(notable) || session.anchors.empty())
      continue;
    std::vector<std::string> anchors;
    anchors.reserve(session.anchors.size());
    for (const auto& anchor : session.anchors)
      anchors.push_back(anchor.substr(0, 12));
    notes.push_back(fmt::format("the session of {} ran {:.1f}% {} than the newest (anchor {}); "
                                "its {} are scaled to the newest",
                                history::session_label(session.id),
                                std::abs(session.factor - 1) * 100,
                                session.factor > 1 ? "slower" : "faster", fmt::join(anchors, ", "),
                                counted(session.points, "point", "points")));
  }
  return notes;
}

std::string point_level(const history::SeriesPoint& point, std::string_view unit) {
  if (point.runs <= 1)
    return fmt::format("{} (one run: no interval)", format_quantity(point.median, unit));
  return fmt::format("{} [{}, {}]", format_quantity(point.median, unit),
                     format_quantity(point.ci[0], unit), format_quantity(point.ci[1], unit));
}

std::vector<history::ChangePoint> changes_of(const history::History& history,
                                             const history::Series& series) {
  std::vector<history::ChangePoint> changes;
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

std::string render_text(const history::History& history, const CommitLabels& labels,
                        Glyphs glyphs) {
  std::string out;
  for (const auto& series : history.series) {
    out += fmt::format(
        "{} [{}]  {}{}\n", terminal_safe(series.case_name), terminal_safe(series.metric),
        counted(series.points.size(), "point", "points"),
        series.sessions.size() > 1 ? ", " + counted(series.sessions.size(), "session", "sessions")
                                   : std::string());
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
    out += fmt::format("  {} {}  ->  {} {}\n", first.commit.substr(0, 12),
                       point_level(first, series.unit), last.commit.substr(0, 12),
                       point_level(last, series.unit));
    for (const auto& note : session_notes(series, k_notable_session_shift))
      out += fmt::format("  {}\n", note);
    if (!series.no_change_reason.empty())
      out += fmt::format("  no change point: {}\n", series.no_change_reason);
    for (const auto& change : changes_of(history, series)) {
      const auto label = labels.find(change.commit);
      out += fmt::format("  {} {}..{} {}, p = {:.3g}{}\n    from {}\n", change_kind(change),
                         change.before.substr(0, 12), change.commit.substr(0, 12),
                         step_text(change), change.p_value,
                         label == labels.end()
                             ? std::string()
                             : "  " + terminal_safe(ellipsize(label->second.subject, 60)),
                         sessions_text(change));
    }
  }
  for (const auto& note : history.notes)
    out += fmt::format("{}\n", terminal_safe(note));
  if (history.hosts.size() > 1)
    out += fmt::format("points of {} hosts: {}\n", history.hosts.size(),
                       fmt::join(history.hosts, ", "));
  out += fmt::format("{} series, {}\n", history.series.size(),
                     counted(history.change_points.size(), "change point", "change points"));
  return out;
}

namespace {

nlohmann::json series_json(const history::Series& s) {
  using nlohmann::json;
  json points = json::array();
  for (const auto& p : s.points)
    points.push_back({{"commit", p.commit},
                      {"last_commit", p.last_commit.empty() ? p.commit : p.last_commit},
                      {"commits", p.commits},
                      {"host", p.host_id},
                      {"source", p.source},
                      {"session", p.session},
                      {"runs", p.runs},
                      {"median", p.median},
                      {"ci", {p.ci[0], p.ci[1]}}});
  json sessions = json::array();
  for (const auto& session : s.sessions)
    sessions.push_back({{"id", session.id},
                        {"label", history::session_label(session.id)},
                        {"started", store::to_micros(session.started)},
                        {"factor", session.factor},
                        {"aligned", session.aligned},
                        {"anchors", session.anchors},
                        {"points", session.points}});
  json one{{"case", s.case_name},
           {"metric", s.metric},
           {"unit", s.unit},
           {"direction", to_string(s.direction)},
           {"points", std::move(points)},
           {"sessions", std::move(sessions)}};
  if (!s.no_change_reason.empty())
    one["no_change_reason"] = s.no_change_reason;
  return one;
}

// Everything but the series, as the document's text without its closing brace: the keys sort
// before "series", which comes last.
std::string json_head(const history::History& history) {
  using nlohmann::json;
  json changes = json::array();
  for (const auto& c : history.change_points)
    changes.push_back({{"case", c.case_name},
                       {"metric", c.metric},
                       {"unit", c.unit},
                       {"commit", c.commit},
                       {"before", c.before},
                       {"after", c.commit},
                       {"ratio", c.ratio},
                       {"ci", {c.ci[0], c.ci[1]}},
                       {"p_value", c.p_value},
                       {"kind", change_kind(c)},
                       {"sessions", c.sessions}});
  const json head{
      {"change_points", std::move(changes)}, {"hosts", history.hosts}, {"notes", history.notes}};
  std::string text = json_text(head, 2);
  text.resize(text.size() - 2); // "\n}"
  return text + ",\n  \"series\": [";
}

// One series as an element of the document's "series" array (indented four spaces more).
std::string series_piece(const history::Series& series, bool first) {
  const std::string text = json_text(series_json(series), 2);
  std::string piece = first ? "\n    " : ",\n    ";
  piece.reserve(text.size() + (text.size() / 8));
  for (const char c : text) {
    piece += c;
    if (c == '\n')
      piece += "    ";
  }
  return piece;
}

} // namespace

std::function<std::optional<std::string_view>()> json_pieces(const history::History& history) {
  return [&history, next = std::size_t{0},
          piece = std::string()]() mutable -> std::optional<std::string_view> {
    const std::size_t count = history.series.size();
    if (next == 0)
      piece = json_head(history);
    else if (next <= count)
      piece = series_piece(history.series[next - 1], next == 1);
    else if (next == count + 1)
      piece = count == 0 ? "]\n}\n" : "\n  ]\n}\n";
    else
      return std::nullopt;
    ++next;
    return piece;
  };
}

std::string render_json(const history::History& history) {
  std::string out;
  const auto next = json_pieces(history);
  for (auto piece = next(); piece; piece = next())
    out += *piece;
  return out;
}

std::string render_csv(const history::History& history) {
  std::string out =
      "case,metric,unit,commit,host,source,runs,median,ci_low,ci_high,last_commit,session\n";
  for (const auto& s : history.series)
    for (const auto& p : s.points)
      out += fmt::format("{},{},{},{},{},{},{},{:.9g},{:.9g},{:.9g},{},{}\n",
                         csv_text_cell(s.case_name), csv_text_cell(s.metric), csv_text_cell(s.unit),
                         csv_text_cell(p.commit), csv_text_cell(p.host_id), csv_text_cell(p.source),
                         p.runs, p.median, p.ci[0], p.ci[1],
                         csv_text_cell(p.last_commit.empty() ? p.commit : p.last_commit),
                         csv_text_cell(p.session));
  return out;
}

} // namespace culprit::report
