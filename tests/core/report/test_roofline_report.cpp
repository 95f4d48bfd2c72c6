// The roofline in reports and on the terminal (core/report/roofline_text.hpp), and in the evidence.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/report/report.hpp"
#include "core/report/roofline_text.hpp"
#include "tests/support/evidence_samples.hpp"

namespace culprit::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(RooflineReport, AMoveAgreesWithTheRatioOfItsRow) {
  const auto e = testing::roofline_sample();
  const auto& c = e.comparisons[0]; // sgemm, ratio 1.081 [1.062, 1.100]
  const auto move = roofline_move(e, c.base, c.head, c.case_name, c.ratio, c.ci);
  ASSERT_TRUE(move);
  EXPECT_EQ(move->limiter_before, "compute");
  const auto& base = e.measurements[0].roofline;
  ASSERT_TRUE(base);
  EXPECT_NEAR(move->before, base->fraction, 1e-12);
  EXPECT_NEAR(move->after, base->fraction / 1.081, 1e-12);
  EXPECT_NEAR(move->after_ci[0], base->fraction / 1.100, 1e-12);
  EXPECT_NEAR(move->after_ci[1], base->fraction / 1.062, 1e-12);
  EXPECT_THAT(move_text(*move), HasSubstr("of its compute bound ["));
  EXPECT_THAT(move_text(*move), HasSubstr("compute-bound before and after"));
  EXPECT_FALSE(roofline_move(e, c.base, c.head, "softmax/rows=8192,cols=1024", 1, {1, 1}));
}

TEST(RooflineReport, EveryFormatHasTheSectionAndHtmlTheChart) {
  const auto e = testing::roofline_sample();
  const auto text = render_text(e);
  EXPECT_THAT(text, HasSubstr("\nRoofline\n"));
  EXPECT_THAT(text,
              HasSubstr("peaks      NVIDIA A100 SXM4 80GB: 156000 GFLOP/s tensor, 2039 GB/s"));
  EXPECT_THAT(text, HasSubstr("sgemm/M=4096,N=4096,K=4096 ("));
  EXPECT_THAT(text, HasSubstr("of its memory bound")) << "saxpy";
  EXPECT_THAT(text, HasSubstr("softmax/rows=8192,cols=1024: no roofline: no work"));
  const auto markdown = render_markdown(e);
  EXPECT_THAT(markdown, HasSubstr("**Roofline:**"));
  EXPECT_THAT(markdown, HasSubstr("of its compute bound"));
  const auto html = render_html(e);
  EXPECT_THAT(html, HasSubstr("<section id=\"roofline\">"));
  EXPECT_THAT(html, HasSubstr("<svg id=\"roofline-plot\""));
  EXPECT_THAT(html, HasSubstr("class=\"roof\""));
  EXPECT_THAT(html, HasSubstr("class=\"arrow s0\"")) << "base to head of the first case";
  // Evidence without a roofline has no section.
  EXPECT_THAT(render_text(testing::compare_sample()), Not(HasSubstr("Roofline")));
  EXPECT_THAT(render_html(testing::compare_sample()), Not(HasSubstr("roofline-plot")));
}

TEST(RooflineReport, TheRunTableShowsAchievedBoundAndLimit) {
  auto e = testing::roofline_sample();
  e.comparisons.clear();
  const auto table = render_roofline_table(e, true);
  EXPECT_THAT(table, HasSubstr("roofline: NVIDIA A100 SXM4 80GB"));
  EXPECT_THAT(table, HasSubstr("GFLOP/s"));
  EXPECT_THAT(table, HasSubstr("compute\n"));
  EXPECT_THAT(table, HasSubstr("memory\n"));
  EXPECT_THAT(
      table,
      HasSubstr(
          "no roofline for softmax/rows=8192,cols=1024, layernorm/rows=4096,cols=4096: no work"));
  EXPECT_TRUE(render_roofline_table(testing::compare_sample(), true).empty());
}

TEST(RooflineReport, TheRunTableSaysWhyACaseHasNoneOnceAndOnlyWhenAsked) {
  auto e = testing::roofline_sample();
  e.comparisons.clear();
  // Four more cases without work, each measured twice: one line for all of them.
  const auto base = e.measurements.back();
  for (const auto* name : {"decompress/a", "decompress/b", "decompress/c", "decompress/d"}) {
    for (int copy = 0; copy < 2; ++copy) {
      auto m = base;
      m.case_name = name;
      m.roofline.reset();
      m.roofline_note = "no roofline: no work counted: none";
      e.measurements.push_back(m);
    }
  }
  const auto quiet = render_roofline_table(e, false);
  EXPECT_THAT(quiet, HasSubstr("GFLOP/s"));
  EXPECT_THAT(quiet, Not(HasSubstr("no roofline")));
  const auto told = render_roofline_table(e, true);
  EXPECT_THAT(told, HasSubstr("no roofline for decompress/a, decompress/b, decompress/c and 1 "
                              "more: no work counted: none\n"));
  EXPECT_EQ(told.find("decompress/a, "), told.rfind("decompress/a, ")) << told;
  // Nothing but notes, unasked: nothing at all.
  auto none = e;
  std::erase_if(none.measurements, [](const auto& m) { return m.roofline.has_value(); });
  EXPECT_TRUE(render_roofline_table(none, false).empty());
  EXPECT_THAT(render_roofline_table(none, true), HasSubstr("no roofline for "));
}

TEST(RooflineReport, TheEvidenceKeepsTheRooflineThroughJson) {
  const auto e = testing::roofline_sample();
  const auto back = evidence::evidence_from_json(to_json(e));
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->roofline_peaks.size(), 1U);
  EXPECT_EQ(back->roofline_peaks[0].tensor_flops_per_second, 156e12);
  ASSERT_TRUE(back->measurements[0].roofline);
  const auto& r = *back->measurements[0].roofline;
  EXPECT_EQ(r.fraction, e.measurements[0].roofline->fraction);
  EXPECT_EQ(r.fraction_ci, e.measurements[0].roofline->fraction_ci);
  EXPECT_EQ(r.limiter, "compute");
  EXPECT_EQ(back->measurements[2].roofline_note, e.measurements[2].roofline_note);

  auto broken = to_json(e);
  broken["measurements"][0]["roofline"]["limiter"] = "cache";
  const auto refused = evidence::evidence_from_json(broken);
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("measurements[0].roofline.limiter"));
  auto negative = to_json(e);
  negative["roofline_peaks"][0]["bytes_per_second"] = -1;
  EXPECT_FALSE(evidence::evidence_from_json(negative));
}

} // namespace
} // namespace culprit::report
