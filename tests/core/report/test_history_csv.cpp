// The CSV of a history as a spreadsheet opens it: text cells that would start a formula are
// kept as text, control characters are escaped, and numbers are written as numbers.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/report/history.hpp"
#include "core/util/escape.hpp"

namespace culprit::history {
namespace {

using report::csv_text_cell;
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
  Series series{"=cmd|' /C calc'!A0", "-x", "@u", Direction::higher_is_better, {}, {}, {}};
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

  const auto csv = render_csv(history);

  EXPECT_THAT(csv, HasSubstr("\n'=cmd|' /C calc'!A0,'-x,'@u,c0,'+host,import,5,-3.2,-3.3,-3.1,c1,"
                             "\\x1b]0;title\\x07\n"));
}

} // namespace
} // namespace culprit::history
