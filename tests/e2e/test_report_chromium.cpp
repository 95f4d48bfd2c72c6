// The HTML report in a real browser: headless Chromium (Debian's package; scripts/setup-debian.sh
// installs it) loads a rendered report from disk, and the DOM it builds must hold the plots.
// A screenshot is left in the build tree (report-screenshot.png) for a person to look at.

#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/evidence/evidence.hpp"
#include "core/report/history.hpp"
#include "core/util/fs.hpp"
#include "tests/support/evidence_samples.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;

std::string find_chromium() {
  const auto found = testing::run_process(
      {"sh", "-c",
       "command -v chromium || command -v chromium-browser || command -v google-chrome"},
      std::filesystem::temp_directory_path());
  if (found.exit_code != 0)
    return "";
  return found.out.substr(0, found.out.find('\n'));
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// Headless Chromium on `page` with `more` arguments (--dump-dom, --screenshot=...), its profile
// and HOME in `temp`, and no network: a proxy that does not exist, and every host name resolves to
// nothing.
testing::ProcessOutput chromium_on(const std::string& chromium, const testing::TempDir& temp,
                                   const std::filesystem::path& page,
                                   std::vector<std::string> more) {
  std::vector<std::string> args = {"timeout",
                                   "120",
                                   chromium,
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--no-first-run",
                                   "--proxy-server=127.0.0.1:9",
                                   "--host-resolver-rules=MAP * ~NOTFOUND",
                                   "--user-data-dir=" + (temp / "profile").string()};
  args.insert(args.end(), more.begin(), more.end());
  args.push_back("file://" + page.string());
  return testing::run_process(args, temp.path(), {{"HOME", temp.path().string()}});
}

TEST(ReportInChromium, TheBrowserBuildsThePlotsAndTakesAScreenshot) {
  const auto chromium = find_chromium();
  if (chromium.empty())
    GTEST_SKIP() << "chromium is not installed (scripts/setup-debian.sh installs it): the HTML "
                    "report was not checked in a browser";
  testing::TempDir temp{"culprit-chromium"};
  auto evidence = testing::bisect_sample();
  ASSERT_TRUE(save_evidence(evidence, temp / "bisect.json"));
  const auto page = temp / "report.html";
  const auto rendered = testing::run_culprit(
      {"report", (temp / "bisect.json").string(), "--format", "html", "-o", page.string()},
      temp.path());
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;

  const auto dom = chromium_on(chromium, temp, page, {"--dump-dom"});
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  for (const auto* id :
       {"<svg id=\"forest-plot\"", "<svg id=\"bisection-plot-0\"", "<svg id=\"run-order-plot-0\""})
    EXPECT_EQ(count(dom.out, id), 1U) << id;
  std::size_t runs = 0;
  for (const auto& m : evidence.measurements)
    runs += m.runs.size();
  EXPECT_GE(count(dom.out, "<circle"), runs); // one dot per run in the bisection plot, and more
  EXPECT_THAT(dom.out, HasSubstr("sgemm: unroll the k-loop by 8"));

  const auto shot = std::filesystem::path(CULPRIT_BINARY_DIR) / "report-screenshot.png";
  std::filesystem::remove(shot);
  const auto taken = chromium_on(
      chromium, temp, page,
      {"--hide-scrollbars", "--window-size=1366,3600", "--screenshot=" + shot.string()});
  ASSERT_EQ(taken.exit_code, 0) << taken.err;
  std::ifstream png(shot, std::ios::binary);
  std::string magic(8, '\0');
  png.read(magic.data(), 8);
  EXPECT_EQ(magic, "\x89PNG\r\n\x1a\n");
  EXPECT_GT(std::filesystem::file_size(shot), 50'000U) << "a blank page?";
}

// The roofline chart: the browser builds it with its ceilings, one point per case and side, and
// the arrow from base to head.
TEST(ReportInChromium, TheRooflineChartRendersWithItsCeilingsPointsAndArrows) {
  const auto chromium = find_chromium();
  if (chromium.empty())
    GTEST_SKIP() << "chromium is not installed (scripts/setup-debian.sh installs it): the HTML "
                    "report was not checked in a browser";
  testing::TempDir temp{"culprit-chromium-roofline"};
  ASSERT_TRUE(save_evidence(testing::roofline_sample(), temp / "compare.json"));
  const auto page = temp / "roofline.html";
  const auto rendered = testing::run_culprit(
      {"report", (temp / "compare.json").string(), "--format", "html", "-o", page.string()},
      temp.path());
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;
  const auto dom = chromium_on(chromium, temp, page, {"--dump-dom"});
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  const auto start = dom.out.find("<svg id=\"roofline-plot\"");
  ASSERT_NE(start, std::string::npos) << "the browser's DOM has no roofline chart";
  const auto chart = dom.out.substr(start, dom.out.find("</svg>", start) - start);
  EXPECT_EQ(count(chart, "class=\"roof\""), 1U) << "the memory slope and compute ceiling";
  EXPECT_EQ(count(chart, "class=\"pt s0\""), 2U) << "sgemm at base, and its legend dot";
  EXPECT_EQ(count(chart, "class=\"pt s0 head\""), 1U) << "sgemm at head";
  EXPECT_EQ(count(chart, "class=\"arrow s0\""), 2U) << "sgemm's arrow: its line and its head";
  EXPECT_THAT(chart, HasSubstr("saxpy/n=16777216"));
  EXPECT_THAT(chart, ::testing::Not(HasSubstr("softmax"))) << "a case without a roofline";
}

// The history page a rotation keeps open: the browser builds the open regressions' table first,
// its case linked to the series, the chart, and the regression listed under it, linked back.
TEST(ReportInChromium, TheHistoryDashboardShowsOpenRegressionsBeforeTheirSeries) {
  const auto chromium = find_chromium();
  if (chromium.empty())
    GTEST_SKIP() << "chromium is not installed (scripts/setup-debian.sh installs it): the HTML "
                    "page was not checked in a browser";
  testing::TempDir temp{"culprit-chromium-history"};
  history::History history;
  history::Series series{
      "sgemm/M=128", "time", "s", parsers::Direction::lower_is_better, {}, {}, {}};
  for (int i = 0; i < 6; ++i)
    series.points.push_back({.commit = fmt::format("{:040}", i),
                             .last_commit = fmt::format("{:040}", i),
                             .commits = 1,
                             .host_id = "host-a",
                             .source = "track",
                             .session = "track:1",
                             .median = i < 3 ? 1e-3 : 1.5e-3,
                             .ci = {i < 3 ? 0.95e-3 : 1.45e-3, i < 3 ? 1.05e-3 : 1.55e-3},
                             .runs = 5});
  history.change_points.push_back({.case_name = series.case_name,
                                   .metric = "time",
                                   .unit = "s",
                                   .index = 3,
                                   .before = series.points[2].commit,
                                   .commit = series.points[3].commit,
                                   .ratio = 1.5,
                                   .ci = {1.45, 1.55},
                                   .p_value = 0.001,
                                   .sessions = {"track:1"}});
  history.series.push_back(std::move(series));
  history.hosts = {"host-a"};
  const history::Regression open{.id = "R1a2b3c4",
                                 .host_id = "host-a",
                                 .culprit = fmt::format("{:040}", 3),
                                 .subject = "sgemm: walk B by columns",
                                 .author = "Alan Turing",
                                 .cases = {{"sgemm/M=128", "time", 1.5, {1.45, 1.55}, 1.0}},
                                 .owners = {"@kernels"},
                                 .first_seen = store::now(),
                                 .last_seen = store::now()};
  const auto page = temp / "history.html";
  ASSERT_TRUE(write_file_atomic(page, report::render_html(history, {}, {open})));
  const auto dom = chromium_on(chromium, temp, page, {"--dump-dom"});
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  const auto row = dom.out.find("<tr class=\"regression\" id=\"R1a2b3c4\">");
  const auto chart = dom.out.find("<svg");
  ASSERT_NE(row, std::string::npos) << "the browser's DOM has no open regression";
  ASSERT_NE(chart, std::string::npos) << "the browser's DOM has no chart";
  EXPECT_LT(row, chart) << "the open regressions come first";
  EXPECT_THAT(dom.out, HasSubstr("<a href=\"#series-1\">sgemm/M=128 +50.0%</a>"));
  EXPECT_THAT(dom.out, HasSubstr("<section id=\"series-1\">"));
  EXPECT_THAT(dom.out.substr(chart), HasSubstr("<a href=\"#R1a2b3c4\">R1a2b3c4</a>"));
  EXPECT_EQ(count(dom.out, "class=\"change regression\""), 1U);
  EXPECT_THAT(dom.out.substr(chart),
              HasSubstr("<a href=\"#R1a2b3c4\"><polygon class=\"mark bisected\""))
      << "the regression marked on its chart, linked to its row";
}

} // namespace
} // namespace culprit
