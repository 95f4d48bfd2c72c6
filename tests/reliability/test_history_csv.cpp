// `history --csv` writes a file that spreadsheets open: a text cell that starts like a formula
// (= + - @) is kept as text with a leading ', control characters are escaped as on the terminal,
// and the numeric cells stay plain numbers.

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gmock/gmock.h>

#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string sample(std::string_view case_json, std::string_view metric, std::string_view unit,
                   std::string_view direction, double value) {
  return fmt::format(R"({{"type":"sample","case":{},"metric":"{}","unit":"{}","direction":"{}",)"
                     R"("value":{}}})"
                     "\n",
                     case_json, metric, unit, direction, value);
}

TEST(HistoryCsv, FormulasAreTextAndControlCharactersAreEscaped) {
  TempDir temp("culprit-history-csv");
  StepProject project(temp / "project", {.commits = 2, .step_at = 1});
  std::string results;
  for (const double value : {1.0, 1.1, 0.9}) {
    for (const auto* name : {R"j("=HYPERLINK(\"http://evil\")")j", R"j("+1")j", R"j("-2+3")j",
                             R"j("@SUM(A1)")j", R"j("esc\u001b[31mred")j"})
      results += sample(name, "time", "ms", "lower", value);
  }
  const auto file = temp / "results.jsonl";
  std::ofstream(file) << results;
  const auto cache = (temp / "cache").string();
  const auto imported = run_culprit(
      {"--cache-dir", cache, "import", file.string(), "--commit", "HEAD", "--format", "culprit"},
      project.dir());
  ASSERT_EQ(imported.exit_code, 0) << imported.err;

  const auto csv_file = temp / "history.csv";
  const auto history =
      run_culprit({"--cache-dir", cache, "history", "--csv", csv_file.string()}, project.dir());
  ASSERT_EQ(history.exit_code, 0) << history.err;
  std::ifstream in(csv_file);
  std::stringstream text;
  text << in.rdbuf();
  const auto csv = text.str();

  EXPECT_THAT(csv, HasSubstr("\n\"'=HYPERLINK(\"\"http://evil\"\")\",time,"));
  EXPECT_THAT(csv, HasSubstr("\n'+1,time,"));
  EXPECT_THAT(csv, HasSubstr("\n'-2+3,time,"));
  EXPECT_THAT(csv, HasSubstr("\n'@SUM(A1),time,"));
  EXPECT_THAT(csv, HasSubstr("\nesc\\x1b[31mred,time,"));
  EXPECT_THAT(csv, Not(HasSubstr("\x1b")));
  // The runs and the median (1 ms, in seconds) of a case are numbers, untouched.
  EXPECT_THAT(csv, HasSubstr(",import,1,0.001,"));
  for (const auto& line : lines_starting(csv, ""))
    EXPECT_FALSE(line.starts_with('=') || line.starts_with('+') || line.starts_with('-') ||
                 line.starts_with('@'))
        << line;
}

} // namespace
} // namespace culprit::testing
