// The summary each command prints when it ends, rendered from its evidence
// (core/report/summary.cpp), and a triage's from its document; the golden files in test_golden.cpp
// cover whole samples.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/report/report.hpp"
#include "core/util/escape.hpp"
#include "tests/support/evidence_samples.hpp"

namespace culprit::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

TEST(Summary, NamesTheSlurmAllocationsThatMeasuredAndNothingElse) {
  const nlohmann::json slurm = {{"kind", "slurm"},
                                {"retries", 1},
                                {"jobs",
                                 {{{"job_id", "41"}, {"role", "measure"}, {"node", "gpu07"}},
                                  {{"job_id", "42"}, {"role", "measure"}, {"node", ""}},
                                  {{"job_id", "43"}, {"role", "build"}, {"node", "cpu01"}}}}};
  EXPECT_EQ(render_executor_line(slurm),
            "measured on 2 Slurm allocations: job 41 on gpu07, job 42 on ? (1 retried)");
  EXPECT_EQ(render_executor_line({{"kind", "local"}}), "");
  // What a hand-edited document holds of another type reads as absent, and is never a crash.
  EXPECT_EQ(render_executor_line({{"kind", 7}, {"jobs", 3}}), "");
  EXPECT_EQ(render_executor_line({{"kind", "slurm"}, {"jobs", {{{"job_id", 5}, {"node", 6}}}}}),
            "measured on 1 Slurm allocation: job  on ?");
  EXPECT_EQ(render_executor_line(nlohmann::json::array()), "");
}

TEST(Summary, ANotReproducedBisectionNamesTheEndsAsTheyWereTyped) {
  auto e = testing::bisect_sample();
  e.status = "not_reproduced";
  e.bisect->culprits.clear();
  e.comparisons.resize(1);
  e.comparisons[0].verdict = "same";
  const auto text = render_summary(e);
  EXPECT_THAT(text, StartsWith("not reproduced: no case is slower beyond 2.0% between v1.4 and "
                               "HEAD\n  sgemm/"));
  EXPECT_THAT(text, HasSubstr(": same, ratio 1.083 [1.071, 1.095]\n"));
  EXPECT_THAT(text, HasSubstr("40 commits in range, 11 probes in 11 rounds, 11 builds\n"))
      << "no evidence file given: the line does not name one";
  // Older evidence, without the revisions as typed, names the commits.
  e.revisions.clear();
  EXPECT_THAT(render_summary(e), HasSubstr("between " + e.bisect->good.substr(0, 12) + " and " +
                                           e.bisect->bad.substr(0, 12) + "\n"));
}

TEST(Summary, CandidatesAndTheNoteOfTheSearchAreShown) {
  auto e = testing::bisect_sample();
  e.status = "inconclusive";
  e.bisect->culprits.clear();
  e.bisect->candidates = {testing::sample_commit(13), testing::sample_commit(14)};
  e.bisect->note = "a skipped commit \x1b[2J sits next to the change";
  const auto text = render_summary(e);
  EXPECT_THAT(text, StartsWith("inconclusive: a skipped commit \\x1b[2J sits next to the change; "
                               "the culprit is one of:\n  " +
                               testing::sample_commit(13).substr(0, 12)));
}

TEST(Summary, QuietLeavesOutTheLinesAfterTheTable) {
  auto e = testing::compare_sample();
  e.comparisons[0].reuse = evidence::EvidenceReuse{4, 0, 3};
  RenderOptions quiet;
  quiet.detail = Detail::quiet;
  const auto normal = render_summary(e);
  const auto short_one = render_summary(e, quiet);
  EXPECT_THAT(normal, HasSubstr("stored: 4 of 12 blocks were made by an earlier command; 3 runs "
                                "of HEAD stored without v1.4 were left out (unpaired)\n"));
  EXPECT_THAT(normal, StartsWith(short_one));
  EXPECT_THAT(short_one, Not(HasSubstr("stored:")));
  EXPECT_THAT(short_one, StartsWith("case  "));
  EXPECT_THAT(short_one, HasSubstr("  v1.4  "));
}

// The columns of the run table line up on a terminal whatever the case names hold: a name is cut
// and padded by the columns it takes on the screen (two for a wide character, one for U+FFFD,
// four for an escape), not by its bytes.
TEST(Summary, TheRunTableCountsColumnsOnTheScreenNotBytes) {
  auto e = testing::run_sample();
  ASSERT_FALSE(e.measurements.empty());
  const auto model = e.measurements.front();
  e.measurements.clear();
  const std::vector<std::string> names = {
      "sgemm/M=128",
      "conv\xEF\xBF\xBD\xEF\xBF\xBD/N=8",                     // U+FFFD: 3 bytes, 1 column
      "\xC3\xA9l\xC3\xA9ment/" + std::string(20, 'x'),        // é: 2 bytes, 1 column
      "\xE8\xA1\x8C\xE5\x88\x97/" + std::string(40, 'y'),     // 行列: 2 columns each
      "\xE8\xA1\x8C\xE5\x88\x97\xE8\xA1\x8C\xE5\x88\x97/N=8", // wide, short
      std::string(30, 'z') + "\x1b[31m"};                     // an escape: 4 columns
  for (const auto& name : names) {
    auto m = model;
    m.case_name = name;
    e.measurements.push_back(m);
  }
  RenderOptions quiet;
  quiet.detail = Detail::quiet;
  const auto text = render_summary(e, quiet);
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < text.size();) {
    const auto end = text.find('\n', at);
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  ASSERT_EQ(lines.size(), names.size() + 1) << text;
  // Every row holds the same measurement: after its 40 columns of name, the same text.
  const auto suffix = lines[1].substr(40);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    ASSERT_TRUE(lines[i].ends_with(suffix)) << lines[i];
    EXPECT_EQ(display_width(lines[i].substr(0, lines[i].size() - suffix.size())), 40U) << lines[i];
  }
  EXPECT_TRUE(lines[4].starts_with("\xE8\xA1\x8C\xE5\x88\x97/" + std::string(35, 'y') + "  "))
      << lines[4];
}

TEST(TriageSummary, RendersFindingsOpenChangePointsAndRecords) {
  const auto commit = testing::sample_commit(13);
  const nlohmann::json document = {
      {"findings",
       {{{"kind", "regression"},
         {"commit", commit},
         {"subject", "sgemm: unroll \x1b[2J"},
         {"author", "Ada Lovelace"},
         {"bisect",
          {{"culprits",
            {{{"cases", {{{"case", "sgemm"}, {"ratio", 1.05}, {"ci", {1.04, 1.06}}}}}}}}}}}}},
      {"change_points",
       {{{"status", "handled_before"}},
        {{"status", "inconclusive"},
         {"before", testing::sample_commit(20)},
         {"after", testing::sample_commit(21)},
         {"case", "softmax"},
         {"kind", "improvement"},
         {"note", "40 runs were not enough"}}}},
      {"regressions",
       {{"recorded", {{{"id", "R1a2b3c4"}, {"culprit", commit}}}},
        {"unbisected",
         {{{"id", "R9"},
           {"state", "new"},
           {"cases", 2},
           {"before", "aaaa"},
           {"after", "bbbb"},
           {"new", true}}}},
        {"fixed",
         {{{"id", "R7"}, {"culprit", commit}, {"subject", "old"}, {"fixed_by", "cccc"}}}}}}};
  RenderOptions options;
  options.evidence_file = "t.json";
  EXPECT_EQ(render_triage_summary(document, options),
            "regression " + commit.substr(0, 12) +
                " sgemm: unroll \\x1b[2J [R1a2b3c4, new]\n"
                "  Ada Lovelace, 1 case:\n"
                "    sgemm: +5.0% (ratio 1.050 [1.040, 1.060])\n"
                "inconclusive " +
                testing::sample_commit(20).substr(0, 12) + ".." +
                testing::sample_commit(21).substr(0, 12) +
                " [softmax]: improvement (40 runs were not enough)\n"
                "R9 new: 2 cases between aaaa and bbbb, not bisected [new]\n"
                "fixed R7 (culprit " +
                commit.substr(0, 12) +
                " old): every case back within the threshold after cccc\n"
                "2 change points: 1 new, 1 handled before; 1 regression finding, 0 improvement "
                "findings; evidence: t.json\n");
}

// The search line: the newest points searched, said always; why all were, only with -v.
TEST(TriageSummary, SaysHowManyPointsTheSearchTookWhenNotAll) {
  const nlohmann::json newest = {{"search",
                                  {{"points", 1001},
                                   {"searched", 49},
                                   {"since", "2026-11-29T11:29:07Z"},
                                   {"whole_because", ""}}}};
  EXPECT_THAT(render_triage_summary(newest),
              HasSubstr("searched the newest 49 of 1001 points: the 952 before were searched by "
                        "the triage of 2026-11-29T11:29:07Z (--full searches them all)\n"));
  const nlohmann::json whole = {{"search",
                                 {{"points", 60},
                                  {"searched", 60},
                                  {"since", nullptr},
                                  {"whole_because", "no triage searched this history before"}}}};
  EXPECT_THAT(render_triage_summary(whole), Not(HasSubstr("searched")));
  RenderOptions verbose;
  verbose.detail = Detail::verbose;
  EXPECT_THAT(render_triage_summary(whole, verbose),
              HasSubstr("searched all 60 points: no triage searched this history before\n"));
}

TEST(TriageSummary, KeysOfAnotherTypeReadAsEmptyAndNeverThrow) {
  for (const auto& document :
       {nlohmann::json::array(), nlohmann::json({{"findings", 3}}),
        nlohmann::json(
            {{"findings",
              {{{"kind", 1}, {"bisect", {{"culprits", {{{"cases", {{{"ci", "x"}}}}}}}}}}}}}),
        nlohmann::json({{"change_points", {nullptr, {{"status", "failed"}}}}, {"regressions", 5}}),
        nlohmann::json({{"regressions", {{"unbisected", {{{"cases", -3}}}}, {"fixed", {1}}}}}),
        nlohmann::json({{"search", "all"}}),
        nlohmann::json({{"search", {{"points", -5}, {"searched", "x"}, {"since", 3}}}})}) {
    std::string text;
    EXPECT_NO_THROW(text = render_triage_summary(document)) << document.dump();
    EXPECT_THAT(text, HasSubstr("change point")) << document.dump();
  }
}

} // namespace
} // namespace culprit::report
