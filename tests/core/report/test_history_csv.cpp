// The CSV of a history as a spreadsheet opens it: text cells that would start a formula are
// kept as text, control characters are escaped, and numbers are written as numbers.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/report/history.hpp"
#include "core/util/escape.hpp"

namespace culprit::history {
namespace {

using ::testing::HasSubstr;

TEST(CsvTextCell, AFormulaIsKeptAsText) {
  EXPECT_EQ(csv_text_cell("=1+1"), "'=1+1");
  EXPECT_EQ(csv_text_cell("+1"), "'+1");
  EXPECT_EQ(csv_text_cell("-2+3"), "'-2+3");
  EXPECT_EQ(csv_text_cell("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csv_text_cell("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  // Only the first character starts a formula.
  EXPECT_EQ(csv_text_cell("gemm/M=128"), "gemm/M=128");
  EXPECT_EQ(csv_text_cell("a-b"), "a-b");
  EXPECT_EQ(csv_text_cell(""), "");
}

TEST(CsvTextCell, ControlCharactersAreEscaped) {
  EXPECT_EQ(csv_text_cell("red\x1b[31m"), "red\\x1b[31m");
  // A leading tab or CR is a visible escape, which starts no formula.
  EXPECT_EQ(csv_text_cell("\t=1"), "\\t=1");
  EXPECT_EQ(csv_text_cell("\r=1"), "\\r=1");
  EXPECT_EQ(csv_text_cell("two\nlines"), "two\\nlines");
  EXPECT_EQ(csv_text_cell("a,b"), "\"a,b\"");
}

TEST(HistoryCsv, TextCellsAreNeutralisedAndNumbersAreNot) {
  History history;
  Series series{"=cmd|' /C calc'!A0", "-x", "@u", parsers::Direction::higher_is_better, {}, {}, {}};
  series.points.push_back({.commit = "c0",
                           .last_commit = "c1",
                           .commits = 2,
                           .host_id = "+host",
                           .source = "import",
                           .session = "\x1b]0;title\x07",
                           .median = -3.2,
                           .ci = {-3.3, -3.1},
                           .runs = 5});
  history.series.push_back(series);

  const auto csv = report::render_csv(history);

  EXPECT_THAT(csv, HasSubstr("\n'=cmd|' /C calc'!A0,'-x,'@u,c0,'+host,import,5,-3.2,-3.3,-3.1,c1,"
                             "\\x1b]0;title\\x07\n"));
}

// A point of one run (an import of one result) has no spread between runs: its level is shown
// without an interval, and says why, in the text and on the page.
TEST(HistoryPoints, APointOfOneRunSaysItHasNoInterval) {
  History history;
  Series series{"gemm", "time", "s", parsers::Direction::lower_is_better, {}, {}, {}};
  SeriesPoint one;
  one.commit = one.last_commit = "c0";
  one.median = 197e-9;
  one.ci = {197e-9, 197e-9};
  one.runs = 1;
  SeriesPoint five = one;
  five.commit = five.last_commit = "c1";
  five.median = 2e-7;
  five.ci = {1.9e-7, 2.1e-7};
  five.runs = 5;
  series.points = {one, five};
  history.series.push_back(series);

  EXPECT_EQ(report::point_level(series.points[0], "s"), "197.0 ns (one run: no interval)");
  EXPECT_EQ(report::point_level(series.points[1], "s"), "200.0 ns [190.0 ns, 210.0 ns]");
  const auto text = report::render_text(history, {}, report::Glyphs::ascii);
  EXPECT_THAT(text, HasSubstr("c0 197.0 ns (one run: no interval)  ->  c1 200.0 ns [190.0 ns, "
                              "210.0 ns]"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("[197.0 ns, 197.0 ns]")));
  const auto page = report::render_html(history, {});
  EXPECT_THAT(page, HasSubstr("197.0 ns (one run: no interval), 1 run"));
}

} // namespace
} // namespace culprit::history
