#pragma once
// Writers of a history: pure functions from the History struct (and what git says about its
// commits) to a string. Only cli/ decides where the bytes go.
//
// Everything that comes from commits or benchmarks (subjects, authors, case names, units) is
// escaped for the format it lands in: made inert for the terminal, as character references in
// HTML and SVG, backslash-escaped in Markdown.

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/git/repository.hpp"
#include "core/history/regressions.hpp"
#include "core/history/series.hpp"

namespace culprit::report {

// What the renderers show of a commit besides its id.
struct CommitLabel {
  std::string subject;
  std::string author;
  std::string date; // ISO 8601
};
using CommitLabels = std::map<std::string, CommitLabel>; // by full commit id

enum class Glyphs { unicode, ascii };

// One character per value (values are bucketed by their median when there are more than
// `width`), from the lowest level to the highest: unicode blocks, or " _.-=+*#" in ASCII. A flat
// series is drawn at the middle level.
std::string sparkline(const std::vector<double>& values, Glyphs glyphs, std::size_t width = 60);

// Per case and metric: a trend line, the first and last levels with their intervals, the sessions
// that ran at another level, why there is no change point when there is none, and each change point
// with the commits on either side, its ratio, interval, sessions and p-value.
std::string render_text(const history::History& history, const CommitLabels& labels, Glyphs glyphs);

// {"series": [{case, metric, unit, direction, points: [{commit, last_commit, commits, host,
// source, session, runs, median, ci}], sessions: [{id, label, started, factor, aligned, anchors,
// points}]}], "change_points": [{case, metric, unit, commit, before, after, ratio, ci, p_value,
// kind, sessions}], "hosts": [...]}; "commit" and "after" both name the first commit of the new
// level; medians and intervals are aligned to the newest session.
std::string render_json(const history::History& history);
// The same document a piece at a time (each series is one piece), for a history too large to
// hold as one text: each call gives the next piece, then nothing. `history` must outlive it.
std::function<std::optional<std::string_view>()> json_pieces(const history::History& history);

// One row a point: case,metric,unit,commit,host,source,runs,median,ci_low,ci_high,last_commit,
// session (RFC 4180). The text cells are csv_text_cell's: control characters escaped, and a
// leading ' where the text would start with = + - @, so that a spreadsheet shows it rather than
// running it as a formula. The numeric cells (runs, median, ci_low, ci_high) are plain numbers,
// a minus sign included.
std::string render_csv(const history::History& history);

// A regression drawn on a chart: at the step from the point `index` - 1 to the point `index`.
struct RegressionMark {
  const history::Regression* regression = nullptr;
  std::size_t index = 0;
};

// An SVG trend chart of one series: the interval band, the medians, the change points and the
// regressions marked; each point, change point and regression has a <title> naming its commits
// (shown on hover), and an open regression's mark links to its row of the page (#ID).
std::string trend_svg(const history::Series& series,
                      const std::vector<history::ChangePoint>& changes, const CommitLabels& labels,
                      const std::vector<RegressionMark>& marks = {});

// A self-contained HTML page, the one a triage rotation keeps open: the open regressions first
// (id, state, culprit, owners, cases with their change, each case linked to its series), then a
// chart and a change-point table per case, with the regressions of that case marked on the chart
// and listed under it, linked back. A regression is marked where its culprit is a point's first
// commit, or where `places` (place_regressions, from git) put it; otherwise only listed.
std::string render_html(const history::History& history, const CommitLabels& labels,
                        const std::vector<history::Regression>& regressions = {},
                        const std::vector<history::RegressionPlace>& places = {});

// Markdown with a trend line and a change-point table per case; the charts are separate SVG
// files, linked as `chart_prefix` + "-" + N + ".svg" (N counts the series from 1); an empty
// `chart_prefix` makes no charts and links none (a page with nowhere beside it for them).
struct MarkdownHistory {
  std::string markdown;
  std::vector<std::pair<std::string, std::string>> charts; // file name, SVG
};
MarkdownHistory render_markdown(const history::History& history, const CommitLabels& labels,
                                std::string_view chart_prefix);

// The change points of one series.
std::vector<history::ChangePoint> changes_of(const history::History& history,
                                             const history::Series& series);

// Subject, author and date of every commit the history shows (each point's first and last
// commit); commits git does not know (an import for a commit since rewritten away) are left out.
CommitLabels commit_labels(const git::Repository& repo, const history::History& history);

// "1.234 ms [1.230 ms, 1.240 ms]": a point's level with its interval; a point of one run has no
// spread between runs to make one from, and says so: "197.0 ns (one run: no interval)".
std::string point_level(const history::SeriesPoint& point, std::string_view unit);

// "+8.0% [+6.9%, +9.1%] (ratio 1.080)": a change point's step with its interval.
std::string step_text(const history::ChangePoint& change);
// "regression" or "improvement".
std::string change_kind(const history::ChangePoint& change);
// What a change point rests on: "runs of one session (2026-11-25 02:00 UTC)", or "runs of 2
// sessions (...), aligned by their anchors".
std::string sessions_text(const history::ChangePoint& change);
// The sessions of a series worth a line: those that ran at another level than the newest (by at
// least `notable`, as a fraction) and those that could not be aligned; one line each.
std::vector<std::string> session_notes(const history::Series& series, double notable);

} // namespace culprit::report
