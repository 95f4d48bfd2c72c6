#include <algorithm>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/report/report.hpp"
#include "core/util/format.hpp"
#include "tests/support/evidence_samples.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Pipes that end a GFM table cell: not escaped with a backslash.
std::size_t cell_separators(const std::string& row) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < row.size(); ++i)
    if (row[i] == '|' && (i == 0 || row[i - 1] != '\\'))
      ++count;
  return count;
}

// The text with every code span (a run of backticks to the next run of the same length) cut out.
std::string without_code_spans(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] != '`') {
      out += text[i++];
      continue;
    }
    const auto run = text.find_first_not_of('`', i) - i;
    const std::string fence(run, '`');
    auto close = text.find(fence, i + run);
    while (close != std::string::npos && close + run < text.size() && text[close + run] == '`')
      close = text.find(fence, text.find_first_not_of('`', close));
    if (close == std::string::npos || run >= 3) {
      out += fence;
      i += run;
      continue;
    }
    i = close + run;
  }
  return out;
}

bool has_control_bytes(const std::string& text) {
  return std::ranges::any_of(text, [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && c != '\n') || byte == 0x7F;
  });
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(Markdown, PutsTheVerdictFirstThenCasesCulpritsReproductionAndRawNumbers) {
  RenderOptions options;
  options.commit_order = testing::bisect_sample_order();
  const auto md = render_markdown(testing::bisect_sample(), options);
  const auto lines = lines_of(md);
  ASSERT_FALSE(lines.empty());
  EXPECT_THAT(lines[0], StartsWith("### culprit bisect: 2 culprits found, 1 case: "));
  EXPECT_THAT(md, HasSubstr("| `sgemm/M=4096,N=4096,K=4096` | 4.120 ms | 4.462 ms | 1.083 | "
                            "[1.071, 1.095] | +8.3% | **slower** |"));
  for (const auto* fact :
       {"#### Culprit `e1ecf7020d18`: sgemm: unroll the k-loop by 8",
        "**Author:** Ada Lovelace &lt;ada@example.com>, 2026-02-11T09:30:00+01:00",
        "`kernels/cuda/sgemm.cu`", "**Owners:** @gpu-kernels, @ada", "**Diff:** 2 files changed",
        "| `kernels::cuda::sgemm_kernel<128, 8>` | `sm_80` | registers 64 -> 96",
        "| 6 | `e1ecf7020d18` | intermediate | 0.58 | 8 | **culprit** |",
        "```sh\nculprit bisect --good v1.4 --bad HEAD --case 'sgemm/*' --markdown bisect.md\n```",
        "<details><summary>Raw numbers</summary>", "- gpu: NVIDIA A100-SXM4-80GB, driver"})
    EXPECT_THAT(md, HasSubstr(fact)) << fact;
}

TEST(Markdown, CompareTableHasOneRowPerCase) {
  const auto md = render_markdown(testing::compare_sample());
  EXPECT_THAT(lines_of(md)[0],
              StartsWith("### culprit compare: slower: 1 of 4 cases beyond the 2% threshold; "
                         "worst sgemm/M=4096,N=4096,K=4096 +8.1% (95% CI +6.2% to +10.0%); "
                         "1 faster; 1 inconclusive"));
  for (const auto* c : {"sgemm/M=4096", "softmax/rows", "layernorm/rows", "saxpy/n"})
    EXPECT_EQ(count(md, std::string("| `") + c), 3U) << c; // the case table, base and head raw
}

TEST(Text, AlignsColumnsAndColoursOnlyWhenAsked) {
  const auto e = testing::compare_sample();
  const auto plain = render_text(e);
  EXPECT_FALSE(has_control_bytes(plain));
  EXPECT_THAT(plain, HasSubstr("1.081  [1.062, 1.100]   +8.1%  slower"));
  RenderOptions color;
  color.color = true;
  EXPECT_THAT(render_text(e, color), HasSubstr("\x1b[31mslower\x1b[0m"));
}

TEST(Html, IsSelfContainedWithThePlotsInline) {
  RenderOptions options;
  options.commit_order = testing::bisect_sample_order();
  const auto html = render_html(testing::bisect_sample(), options);
  EXPECT_THAT(html, StartsWith("<!DOCTYPE html>"));
  for (const auto* id :
       {"id=\"forest-plot\"", "id=\"bisection-plot-0\"", "id=\"run-order-plot-0\""})
    EXPECT_EQ(count(html, id), 1U) << id;
  EXPECT_THAT(html, HasSubstr("default-src 'none'"));
  EXPECT_THAT(html, HasSubstr("@media print"));
  // Nothing the browser would fetch: the only URL is the SVG namespace.
  EXPECT_EQ(count(html, "://"), count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  for (const auto* fetch : {"<script", "<link", " src=", "url(", "@import", "<img", "<iframe"})
    EXPECT_THAT(html, Not(HasSubstr(fetch))) << fetch;
}

TEST(Html, BisectionPlotHasOneDotPerRunOfEveryMeasuredCommit) {
  RenderOptions options;
  options.commit_order = testing::bisect_sample_order();
  const auto e = testing::bisect_sample();
  const auto html = render_html(e, options);
  const auto begin = html.find("<svg id=\"bisection-plot-0\"");
  const auto end = html.find("</svg>", begin);
  ASSERT_NE(begin, std::string::npos);
  const auto plot = html.substr(begin, end - begin);
  std::size_t runs = 0;
  for (const auto& m : e.measurements)
    runs += m.runs.size();
  EXPECT_EQ(count(plot, "<circle"), runs);
  EXPECT_EQ(count(plot, "class=\"culprit-band\""), 2U);
  EXPECT_EQ(count(plot, "class=\"missing skip\""), 2U); // the two skipped builds
  // Commit order: the good end is the first label, the bad end the last.
  EXPECT_LT(plot.find("good " + testing::sample_commit(0).substr(0, 7)),
            plot.find(testing::sample_commit(1 + 9).substr(0, 7)));
}

TEST(View, InfersTheBisectionOrderFromGoodAndBadProbes) {
  auto e = testing::bisect_sample();
  auto& b = *e.bisect;
  b.culprits.resize(1);
  b.steps.clear();
  for (const auto& [commit, verdict] : std::vector<std::pair<int, const char*>>{
           {20, "bad"}, {10, "good"}, {15, "bad"}, {12, "good"}, {14, "bad"}, {13, "bad"}})
    b.steps.push_back(
        {testing::sample_commit(commit), verdict, 0.5, std::nullopt, 8, "", "", "median", ""});
  const auto view = make_view(e);
  EXPECT_FALSE(view.path_order_known);
  std::vector<std::string> order;
  for (const auto& p : view.path)
    order.push_back(p.commit);
  std::vector<std::string> expected;
  for (const int i : {0, 10, 12, 13, 14, 15, 20, 40})
    expected.push_back(testing::sample_commit(i));
  EXPECT_EQ(order, expected);
  EXPECT_TRUE(view.path[3].culprit);
}

TEST(Junit, OneTestCasePerCaseSlowerFailsInconclusiveIsSkipped) {
  const auto xml = render_junit(testing::compare_sample());
  EXPECT_THAT(xml, HasSubstr("<testsuites name=\"culprit\" tests=\"4\" failures=\"1\" errors=\"0\" "
                             "skipped=\"1\">"));
  EXPECT_EQ(count(xml, "<testcase "), 4U);
  EXPECT_THAT(xml, HasSubstr("<failure message=\"slower: +8.1% (95% CI +6.2% to +10.0%), ratio "
                             "1.081 [1.062, 1.100], beyond the 2% threshold\""));
  EXPECT_THAT(xml, HasSubstr("<skipped message=\"inconclusive: 40 runs (the budget) were not "
                             "enough to decide\"/>"));
  const auto failed = render_junit(testing::failed_sample());
  EXPECT_THAT(failed, HasSubstr("<error message=\"failed: the build of HEAD failed"));
}

TEST(Annotations, FlagSlowerCasesAndCulpritsWithFiles) {
  const auto compare = github_annotations(testing::compare_sample());
  EXPECT_EQ(lines_of(compare).size(), 2U);
  EXPECT_THAT(compare, HasSubstr("::error title=culprit%3A sgemm/M=4096%2CN=4096%2CK=4096 is "
                                 "slower::+8.1%25 (95%25 CI +6.2%25 to +10.0%25)"));
  EXPECT_THAT(compare, HasSubstr("::warning title=culprit%3A layernorm"));
  const auto bisect = github_annotations(testing::bisect_sample());
  EXPECT_THAT(bisect, HasSubstr("::error file=kernels/cuda/sgemm.cu,title=culprit%3A "));
  EXPECT_EQ(github_annotations(testing::failed_sample()).substr(0, 30),
            "::error title=culprit failed::");
}

// Every renderer gets a commit whose subject, author, files and case carry markup and terminal
// escapes; none of it may survive as markup or as a control character.
class Malicious : public ::testing::Test {
protected:
  Malicious() { options.commit_order = testing::bisect_sample_order(); }
  evidence::Evidence e = testing::malicious_sample();
  RenderOptions options;
};

TEST_F(Malicious, TextShowsEscapesInsteadOfObeyingThem) {
  const auto text = render_text(e, options);
  EXPECT_FALSE(has_control_bytes(text));
  EXPECT_THAT(text, HasSubstr("<script>alert(1)</script> | **x** \\x1b[31m"));
  EXPECT_THAT(text, HasSubstr("Mallory <b>\\x1b]0;owned\\x07</b>"));
  EXPECT_THAT(text, HasSubstr("line\\nbreak.cu"));
  EXPECT_THAT(text, HasSubstr("'$(rm -rf /)' $'it\\'s \\x1b[31m'"));
}

TEST_F(Malicious, MarkdownKeepsTablesIntactAndMarkupInert) {
  const auto md = render_markdown(e, options);
  EXPECT_FALSE(has_control_bytes(md));
  // Inside code spans markup is text; outside them none may be left.
  const auto prose = without_code_spans(md);
  for (const auto* raw : {"<script>", "<img", "<b>", "<i>", "**x**"})
    EXPECT_THAT(prose, Not(HasSubstr(raw))) << raw;
  // Every row of a table has as many cell separators as its header.
  std::size_t expected = 0;
  for (const auto& line : lines_of(md)) {
    if (!line.starts_with('|')) {
      expected = 0;
      continue;
    }
    if (expected == 0)
      expected = cell_separators(line);
    EXPECT_EQ(cell_separators(line), expected) << line;
  }
  EXPECT_THAT(md, HasSubstr("#### Culprit `e1ecf7020d18`: &lt;script>alert(1)&lt;/script> \\| "
                            "\\*\\*x\\*\\* \\x1b\\[31m"));
  EXPECT_THAT(md, HasSubstr("| `<script>alert(1)</script> \\| **x** \\x1b[31m` | 4.120 ms |"));
}

TEST_F(Malicious, HtmlEscapesEverything) {
  const auto html = render_html(e, options);
  EXPECT_FALSE(has_control_bytes(html));
  for (const auto* raw : {"<script", "<img", "<b>", "<i>", "m@x\">"})
    EXPECT_THAT(html, Not(HasSubstr(raw))) << raw;
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt; | **x** \\x1b[31m"));
}

TEST_F(Malicious, JunitIsWellFormedXml) {
  const auto xml = render_junit(e, options);
  EXPECT_FALSE(has_control_bytes(xml));
  EXPECT_THAT(xml, Not(HasSubstr("<script")));
  testing::TempDir dir;
  std::ofstream(dir / "junit.xml") << xml;
  const auto parsed = testing::run_process(
      {"/usr/bin/python3", "-c",
       "import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); "
       "print(len(r.findall('.//testcase')), r.find('.//failure').get('message'))",
       (dir / "junit.xml").string()},
      dir.path());
  ASSERT_EQ(parsed.exit_code, 0) << parsed.err;
  EXPECT_THAT(parsed.out, StartsWith("1 slower: +8.3%"));
}

TEST_F(Malicious, AnnotationsStayOneCommandPerLine) {
  const auto annotations = github_annotations(e);
  EXPECT_FALSE(has_control_bytes(annotations));
  const auto lines = lines_of(annotations);
  ASSERT_EQ(lines.size(), 3U); // the slower case and the two culprits
  for (const auto& line : lines)
    EXPECT_THAT(line, StartsWith("::error "));
  EXPECT_THAT(lines[1], HasSubstr("file=evil|name.cu,title=culprit%3A "));
  EXPECT_THAT(lines[1], HasSubstr("line%0Abreak.cu"));
  EXPECT_THAT(lines[1], HasSubstr("\\x1b[31m"));
}

TEST(Format, ParsesNamesAndRefusesOthers) {
  EXPECT_EQ(*parse_report_format("md"), ReportFormat::markdown);
  EXPECT_EQ(*parse_report_format("html"), ReportFormat::html);
  EXPECT_EQ(*parse_report_format("summary"), ReportFormat::summary);
  const auto bad = parse_report_format("pdf");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ExitCode::usage);
  EXPECT_THAT(bad.error().message, HasSubstr("text, markdown, html, junit or summary"));
}

TEST(ReportLines, OneFileIsOneFileNotOneFiles) {
  EXPECT_EQ(report::diffstat_line({.files = 1, .insertions = 3, .deletions = 0, .by_file = {}}),
            "1 file changed, +3 -0");
  EXPECT_EQ(report::diffstat_line({.files = 2, .insertions = 3, .deletions = 1, .by_file = {}}),
            "2 files changed, +3 -1");
  evidence::EvidenceArtifacts same;
  same.identical = true;
  same.culprit_bytes = 2048;
  same.parent_files = same.culprit_files = 1;
  EXPECT_THAT(report::artifacts_line(same), HasSubstr(", 1 file)"));
  evidence::EvidenceArtifacts grew = same;
  grew.identical = false;
  grew.parent_files = 1;
  grew.culprit_files = 2;
  EXPECT_THAT(report::artifacts_line(grew), HasSubstr(", 1 -> 2 files"));
  grew.parent_files = 1;
  grew.culprit_files = 1;
  EXPECT_THAT(report::artifacts_line(grew), HasSubstr(", 1 file"));
  EXPECT_THAT(report::artifacts_line(grew), Not(HasSubstr("files")));
}

// One commit that slowed two cases, one of them by more than the range did as a whole.
evidence::Evidence one_culprit_two_cases() {
  auto e = testing::bisect_sample();
  e.bisect->culprits.resize(1);
  e.bisect->culprits[0].cases.push_back({"layernorm/rows=4096", 1.12, {1.10, 1.14}, 1.07});
  return e;
}

TEST(CulpritsByCommit, OneCommitThatMovedTwoCasesIsOneCulprit) {
  const auto e = one_culprit_two_cases();
  const auto text = render_text(e, {});
  EXPECT_THAT(text, StartsWith("culprit bisect: 1 culprit found, 2 cases: e1ecf7020d18 "
                               "\"sgemm: unroll the k-loop by 8\" by Ada Lovelace, +5.0% on "
                               "sgemm/M=4096,N=4096,K=4096, +12.0% on layernorm/rows=4096\n"));
  EXPECT_EQ(count(text, "\nCulprit "), 1U);
  EXPECT_THAT(text, HasSubstr("\nCulprit e1ecf7020d18, 2 cases\n"));
  EXPECT_THAT(text, HasSubstr("  changes    +5.0% (95% CI +3.9% to +6.1%) on "
                              "sgemm/M=4096,N=4096,K=4096, 60% of the whole change\n"
                              "             +12.0% (95% CI +10.0% to +14.0%) on "
                              "layernorm/rows=4096, 107% of the whole change (90% to 124%: all "
                              "of it, within the noise)\n"));

  const auto markdown = render_markdown(e, {});
  EXPECT_EQ(count(markdown, "#### Culprit"), 1U);
  EXPECT_THAT(markdown, HasSubstr("- **Changes (2 cases):**\n  - +5.0%"));
  EXPECT_THAT(markdown, HasSubstr("107% of the whole change (90% to 124%: all of it"));

  const auto html = render_html(e, {});
  EXPECT_EQ(count(html, "<article class=\"culprit\">"), 1U);
  EXPECT_EQ(count(html, "<dt>change</dt>"), 2U);

  const auto annotations = github_annotations(e);
  EXPECT_EQ(count(annotations, "title=culprit%3A e1ecf7020d18"), 1U);
  EXPECT_THAT(annotations, HasSubstr("on layernorm/rows=4096 by Ada Lovelace"));
}

TEST(CulpritsByCommit, TwoCommitsThatMovedOneCaseEachAreTwoCulprits) {
  auto e = testing::bisect_sample();
  e.bisect->culprits[1].cases[0].name = "layernorm/rows=4096";
  EXPECT_THAT(render_text(e, {}), StartsWith("culprit bisect: 2 culprits found, 2 cases: "
                                             "e1ecf7020d18 +5.0%, 313c47525d68 +3.1%\n"));
  e.bisect->culprits[0].cases.push_back({"softmax/rows=64", 1.2, {1.1, 1.3}, std::nullopt});
  EXPECT_THAT(render_text(e, {}),
              StartsWith("culprit bisect: 2 culprits found, 3 cases: e1ecf7020d18 +5.0% to "
                         "+20.0% (2 cases), 313c47525d68 +3.1%\n"));
}

TEST(ReportLines, ASharePastTheWholeChangeIsExplained) {
  EXPECT_EQ(format_share(0.6), "60% of the whole change");
  EXPECT_EQ(format_share(0.6483), "65% of the whole change");
  EXPECT_EQ(format_share(1.004), "100% of the whole change");
  EXPECT_EQ(format_share(-0.004), "0% of the whole change");
  EXPECT_EQ(format_share(2.2275), "223% of the whole change: more than the range as a whole, "
                                  "which other commits (or noise) moved back");
  EXPECT_EQ(format_share(-0.12),
            "-12% of the whole change: it moved the case against the range as a whole");
  // Over 100%, with the culprit's own interval: what the data shows.
  EXPECT_EQ(format_share(1.02, std::array{0.97, 1.06}),
            "102% of the whole change (97% to 106%: all of it, within the noise)");
  EXPECT_EQ(format_share(1.35, std::array{1.28, 1.41}),
            "135% of the whole change (128% to 141%): more than the range as a whole, so another "
            "commit of the range moved the case back");
  // A culprit of ratio 1.21 [1.2, 1.22] whose share is 2: the whole change was 1.1.
  const auto bounds = share_interval(2.0, 1.21, {1.2, 1.22});
  ASSERT_TRUE(bounds);
  EXPECT_NEAR((*bounds)[0], std::log(1.2) / std::log(1.1), 1e-12);
  EXPECT_NEAR((*bounds)[1], std::log(1.22) / std::log(1.1), 1e-12);
  EXPECT_FALSE(share_interval(1.0, 1.0, {0.9, 1.1}));
}

// A share over 100% within the uncertainty of both the culprit's change and the whole change is
// all of the change, not a guess that something moved it back.
TEST(ReportLines, AShareOverAHundredWithinBothIntervalsIsAllOfTheChange) {
  evidence::Evidence evidence;
  evidence.bisect = evidence::EvidenceBisect{};
  evidence.bisect->good = "g";
  evidence.bisect->bad = "b";
  evidence::EvidenceComparison whole;
  whole.base = "g";
  whole.head = "b";
  whole.case_name = "k";
  whole.ratio = 1.1;
  whole.ci = {1.08, 1.12};
  evidence.comparisons.push_back(whole);
  const evidence::EvidenceCulpritCase moved{
      .name = "k", .ratio = 1.12, .ci = {1.10, 1.14}, .share = std::log(1.12) / std::log(1.1)};
  const auto bounds = share_bounds(evidence, moved);
  ASSERT_TRUE(bounds);
  EXPECT_NEAR((*bounds)[0], std::log(1.10) / std::log(1.12), 1e-12);
  EXPECT_NEAR((*bounds)[1], std::log(1.14) / std::log(1.08), 1e-12);
  EXPECT_EQ(share_text(evidence, moved),
            "119% of the whole change (84% to 170%: all of it, within the noise)");
}

} // namespace
} // namespace culprit::report
