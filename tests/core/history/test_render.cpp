#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/history/git_support.hpp"
#include "core/report/history.hpp"
#include "tests/support/simulated_history.hpp"

namespace culprit::history {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view k_evil = "<script>alert(1)</script> | **x** \x1b[31m";

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++n;
  return n;
}

History sample_history() {
  History history;
  Series series{"gemm,\"tall\"", "time", "s", parsers::Direction::lower_is_better, {}, {}, {}};
  for (int i = 0; i < 8; ++i)
    series.points.push_back({.commit = fmt::format("{:040}", i),
                             .last_commit = fmt::format("{:040}", i),
                             .commits = 1,
                             .host_id = "host-a",
                             .source = "track",
                             .session = "track:2026-01-01T02:00:00.000000Z/1",
                             .median = i < 4 ? 1e-3 : 1.2e-3,
                             .ci = {i < 4 ? 0.9e-3 : 1.1e-3, i < 4 ? 1.1e-3 : 1.3e-3},
                             .runs = 5});
  history.series.push_back(series);
  history.change_points.push_back({.case_name = series.case_name,
                                   .metric = "time",
                                   .unit = "s",
                                   .index = 4,
                                   .before = series.points[3].commit,
                                   .commit = series.points[4].commit,
                                   .ratio = 1.2,
                                   .ci = {1.15, 1.25},
                                   .p_value = 0.002,
                                   .sessions = {"track:2026-01-01T02:00:00.000000Z/1"}});
  history.hosts = {"host-a"};
  return history;
}

report::CommitLabels evil_labels(const History& history) {
  report::CommitLabels labels;
  for (const auto& point : history.series[0].points)
    labels[point.commit] = {std::string(k_evil), "Mallory <m@x>", "2026-01-01T00:00:00+00:00"};
  return labels;
}

TEST(HistorySparkline, DrawsLowToHighInUnicodeOrAscii) {
  EXPECT_EQ(report::sparkline({1, 2, 3, 4, 5, 6, 7, 8}, report::Glyphs::unicode), "▁▂▃▄▅▆▇█");
  EXPECT_EQ(report::sparkline({1, 2, 3, 4, 5, 6, 7, 8}, report::Glyphs::ascii), "_.,-=+*#");
  EXPECT_EQ(report::sparkline({2, 2, 2}, report::Glyphs::ascii), "---");
  EXPECT_EQ(report::sparkline({}, report::Glyphs::ascii), "");
  std::vector<double> long_series(300, 1.0);
  for (std::size_t i = 150; i < 300; ++i)
    long_series[i] = 2.0;
  const auto line = report::sparkline(long_series, report::Glyphs::ascii, 60);
  EXPECT_EQ(line, std::string(30, '_') + std::string(30, '#'));
}

TEST(HistoryRender, TextShowsTheTrendAndTheChangeWithForeignTextMadeInert) {
  const auto history = sample_history();
  const auto text = report::render_text(history, evil_labels(history), report::Glyphs::ascii);
  EXPECT_THAT(text, HasSubstr("____####"));
  EXPECT_THAT(text, HasSubstr("regression 000000000000..000000000000 +20.0% [+15.0%, +25.0%] "
                              "(ratio 1.200), p = 0.002"));
  EXPECT_THAT(text, HasSubstr("from runs of one session (2026-01-01 02:00:00 UTC)"));
  EXPECT_THAT(text, HasSubstr("\\x1b[31m"));
  EXPECT_THAT(text, Not(HasSubstr("\x1b")));
  EXPECT_THAT(text, HasSubstr("1 series, 1 change point\n"));
}

// The document is written a series at a time (a history of millions of points is never held as
// one JSON value): the text is what one document of it, indented by two, would be.
TEST(HistoryRender, JsonWrittenASeriesAtATimeIsTheWholeDocumentsText) {
  auto two = sample_history();
  two.series.push_back(two.series.front());
  two.series.back().case_name = "second\ncase";
  two.notes.push_back("a note");
  for (const auto& history : {sample_history(), two, History{}}) {
    const std::string text = report::render_json(history);
    EXPECT_EQ(text, nlohmann::json::parse(text).dump(2) + "\n");
    std::string pieces;
    std::size_t count = 0;
    const auto next = report::json_pieces(history);
    for (auto piece = next(); piece; piece = next(), ++count)
      pieces += *piece;
    EXPECT_EQ(pieces, text);
    EXPECT_EQ(count, history.series.size() + 2);
  }
}

TEST(HistoryRender, JsonHasTheDocumentedKeys) {
  const auto json = nlohmann::json::parse(report::render_json(sample_history()));
  const auto& series = json.at("series").at(0);
  EXPECT_EQ(series.at("case"), "gemm,\"tall\"");
  EXPECT_EQ(series.at("metric"), "time");
  EXPECT_EQ(series.at("unit"), "s");
  EXPECT_EQ(series.at("points").size(), 8U);
  EXPECT_DOUBLE_EQ(series.at("points").at(4).at("median").get<double>(), 1.2e-3);
  EXPECT_EQ(series.at("points").at(4).at("ci").size(), 2U);
  const auto& change = json.at("change_points").at(0);
  EXPECT_EQ(change.at("before"), fmt::format("{:040}", 3));
  EXPECT_EQ(change.at("after"), fmt::format("{:040}", 4));
  EXPECT_EQ(change.at("commit"), fmt::format("{:040}", 4));
  EXPECT_DOUBLE_EQ(change.at("ratio").get<double>(), 1.2);
  EXPECT_DOUBLE_EQ(change.at("p_value").get<double>(), 0.002);
  EXPECT_DOUBLE_EQ(change.at("ci").at(0).get<double>(), 1.15);
  EXPECT_DOUBLE_EQ(change.at("ci").at(1).get<double>(), 1.25);
  EXPECT_EQ(change.at("sessions").size(), 1U);
  EXPECT_EQ(change.at("kind"), "regression");
  EXPECT_EQ(series.at("points").at(4).at("last_commit"), fmt::format("{:040}", 4));
  EXPECT_EQ(series.at("points").at(4).at("commits"), 1);
}

TEST(HistoryRender, CsvQuotesFieldsThatNeedIt) {
  const auto csv = report::render_csv(sample_history());
  EXPECT_THAT(csv, HasSubstr("case,metric,unit,commit,host,source,runs,median,ci_low,ci_high,"
                             "last_commit,session\n"));
  EXPECT_THAT(csv, HasSubstr("\"gemm,\"\"tall\"\"\",time,s,"));
  EXPECT_EQ(std::ranges::count(csv, '\n'), 9);
}

TEST(HistoryRender, HtmlIsSelfContainedWithAChartAndEscapesCommits) {
  const auto history = sample_history();
  const auto html = report::render_html(history, evil_labels(history));
  EXPECT_THAT(html, HasSubstr("<svg"));
  EXPECT_THAT(html, HasSubstr("class=\"band\""));
  EXPECT_THAT(html, HasSubstr("class=\"change regression\""));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("\x1b")));
  EXPECT_THAT(html, HasSubstr("Mallory &lt;m@x&gt;"));
  EXPECT_THAT(html, Not(HasSubstr("src="))) << "nothing is loaded from elsewhere";
  EXPECT_THAT(html, Not(HasSubstr("<link")));
  EXPECT_EQ(std::ranges::count(html, '<') - std::ranges::count(html, '>'), 0);
}

TEST(HistoryRender, TheDashboardListsOpenRegressionsFirstLinkedToTheirSeries) {
  const auto history = sample_history();
  const auto at = store::from_micros(1'767'225'600'000'000); // 2026-01-01
  Regression open{.id = "R1a2b3c4",
                  .host_id = "host-a",
                  .culprit = history.series[0].points[4].commit,
                  .subject = std::string(k_evil),
                  .author = "Mallory <m@x>",
                  .state = RegressionState::acknowledged,
                  .cases = {{history.series[0].case_name, "time", 1.2, {1.15, 1.25}, 1.0}},
                  .owners = {"@team<b>"},
                  .first_seen = at,
                  .last_seen = at};
  auto fixed = open;
  fixed.id = "R9f8e7d6";
  fixed.state = RegressionState::fixed;
  fixed.fixed_by = fmt::format("{:040}", 7);
  const auto html = report::render_html(history, evil_labels(history), {open, fixed});
  const auto table = html.find("<h2>Open regressions <small>[1]</small></h2>");
  const auto first_series = html.find("<section id=\"series-1\">");
  ASSERT_NE(table, std::string::npos) << html;
  ASSERT_NE(first_series, std::string::npos);
  EXPECT_LT(table, first_series) << "the open regressions come first";
  // The open one has a row, an anchor, and its case links to the series; the fixed one has none.
  EXPECT_THAT(html, HasSubstr("<tr class=\"regression\" id=\"R1a2b3c4\">"));
  EXPECT_THAT(html, HasSubstr("<a href=\"#series-1\">gemm,&quot;tall&quot; +20.0%</a>"));
  EXPECT_THAT(html, Not(HasSubstr("id=\"R9f8e7d6\"")));
  EXPECT_THAT(html, HasSubstr("acknowledged"));
  EXPECT_THAT(html, HasSubstr("2026-01-01"));
  // Under the series: both, the open one linked back to its row, the fixed one with its fix.
  const auto listed = html.substr(first_series);
  EXPECT_THAT(listed, HasSubstr("<a href=\"#R1a2b3c4\">R1a2b3c4</a> <code>acknowledged</code>"));
  EXPECT_THAT(listed, HasSubstr("R9f8e7d6 <code>fixed</code>"));
  EXPECT_THAT(listed, HasSubstr("fixed by <code>000000000000</code>"));
  EXPECT_THAT(html, HasSubstr("@team&lt;b&gt;"));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<b>")));
  EXPECT_EQ(std::ranges::count(html, '<') - std::ranges::count(html, '>'), 0);

  // No regression held at all: no section that would say there are none.
  EXPECT_THAT(report::render_html(history, evil_labels(history)),
              Not(HasSubstr("Open regressions")));
  fixed.state = RegressionState::wontfix;
  EXPECT_THAT(report::render_html(history, {}, {fixed}), HasSubstr("<small>[0]</small>"));
}

// Points at every other commit of a chain of 16: the culprit of a change point can lie between
// two points. git (a chain here) places it; one that is a point's commit needs no git.
TEST(HistoryRender, RegressionsAreMarkedOnTheirChartAndOpenOnesLinkToTheirRow) {
  auto history = sample_history();
  std::vector<std::string> chain;
  for (int i = 0; i < 16; ++i)
    chain.push_back(fmt::format("{:040}", i));
  for (std::size_t i = 0; i < history.series[0].points.size(); ++i)
    history.series[0].points[i].commit = history.series[0].points[i].last_commit = chain[2 * i];
  history.change_points[0].before = chain[6];
  history.change_points[0].commit = chain[8];
  const auto at = store::from_micros(1'767'225'600'000'000);
  const Regression between{.id = "R1a2b3c4",
                           .host_id = "host-a",
                           .culprit = chain[7],
                           .subject = "walk B by columns",
                           .state = RegressionState::acknowledged,
                           .cases = {{history.series[0].case_name, "time", 1.2, {1.15, 1.25}, 1.0}},
                           .first_seen = at,
                           .last_seen = at};
  auto on_a_point = between;
  on_a_point.id = "R9f8e7d6";
  on_a_point.culprit = chain[8];
  on_a_point.state = RegressionState::fixed;
  auto nowhere = between;
  nowhere.id = "R0000001";
  nowhere.culprit = chain[3]; // between two points with no change point between them
  auto other_case = between;
  other_case.id = "R0000002";
  other_case.cases[0].case_name = "softmax";
  const std::vector<Regression> regressions = {between, on_a_point, nowhere, other_case};

  testing::ChainGraph graph(chain);
  const auto places = place_regressions(history, regressions, graph);
  EXPECT_EQ(places, (std::vector<RegressionPlace>{{"R1a2b3c4", 0, 4}}));

  const auto html = report::render_html(history, {}, regressions, places);
  const auto chart = html.substr(html.find("<svg"));
  EXPECT_THAT(chart, HasSubstr("<a href=\"#R1a2b3c4\"><polygon class=\"mark acknowledged\""));
  EXPECT_THAT(chart, HasSubstr("<title>R1a2b3c4 acknowledged: +20.0% at 000000000000"));
  EXPECT_THAT(chart, HasSubstr("<polygon class=\"mark fixed\""))
      << "a fixed one is marked too, with no row to link to";
  EXPECT_THAT(chart, Not(HasSubstr("<a href=\"#R9f8e7d6\">")));
  for (const auto* unplaced : {"R0000001", "R0000002"})
    EXPECT_THAT(chart.substr(0, chart.find("</svg>")), Not(HasSubstr(unplaced)));
  // Both marks sit at the step from point 3 to point 4, where the change point's line is.
  const std::string line = "class=\"change regression\" x1=\"";
  const auto change = chart.find(line);
  ASSERT_NE(change, std::string::npos);
  const auto from = change + line.size();
  const auto x = chart.substr(from, chart.find('"', from) - from);
  EXPECT_EQ(count_of(chart, fmt::format("points=\"{:.1f},", std::stod(x) - 6)), 2U) << x;
  // Without the places, only the one on a point is marked.
  const auto alone = report::render_html(history, {}, regressions);
  EXPECT_THAT(alone, Not(HasSubstr("mark acknowledged")));
  EXPECT_THAT(alone, HasSubstr("mark fixed"));
  EXPECT_EQ(std::ranges::count(html, '<') - std::ranges::count(html, '>'), 0);
}

TEST(HistoryRender, MarkdownLinksOneChartPerSeriesAndEscapesMarkup) {
  const auto history = sample_history();
  const auto markdown = report::render_markdown(history, evil_labels(history), "nightly");
  ASSERT_EQ(markdown.charts.size(), 1U);
  EXPECT_EQ(markdown.charts[0].first, "nightly-1.svg");
  EXPECT_THAT(markdown.charts[0].second, HasSubstr("<svg"));
  EXPECT_THAT(markdown.markdown, HasSubstr("](nightly-1.svg)"));
  EXPECT_THAT(markdown.markdown, HasSubstr("&lt;script>alert(1)&lt;/script>"));
  EXPECT_THAT(markdown.markdown, Not(HasSubstr("<script")));
  EXPECT_THAT(markdown.markdown, HasSubstr("\\| \\*\\*x\\*\\*"));
  EXPECT_THAT(markdown.markdown, HasSubstr("+20.0%"));
}

} // namespace
} // namespace culprit::history
