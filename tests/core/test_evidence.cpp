#include <fstream>
#include <functional>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/evidence/evidence.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;

evidence::Evidence sample() {
  evidence::Evidence e;
  e.kind = "bisect";
  e.status = "culprit_found";
  e.tool_version = "0.1.0";
  e.command = {"culprit", "bisect", "--good", "v1", "--bad", "HEAD"};
  e.created = "2026-01-01T00:00:00Z";
  e.repo_path = "/src/project";
  e.repo_head = "abc";
  e.host = {{"cpu", "Example CPU"}, {"cores", 2}};
  e.settings.build = "make";
  e.settings.run = "./bench";
  e.settings.format = "culprit";
  e.settings.metric = "time";
  e.settings.classify_confidence = 0.99;
  e.settings.explained_share = 0.75;
  e.builds.push_back({"c1", "k1", true, 1.5, "built", "a1", "/log", ""});
  evidence::EvidenceMeasurement m;
  m.commit = "c1";
  m.case_name = "sgemm/M=64";
  m.metric = "time";
  m.unit = "s";
  m.direction = "lower";
  m.runs = {{0.0101, 0.0102}, {0.0099}};
  m.blocks = {"s-1", ""};
  m.duets = {true, false};
  m.summary.median = 0.0101;
  m.summary.ci = {0.0100, 0.0102};
  e.measurements.push_back(m);
  evidence::EvidenceComparison c;
  c.base = "c0";
  c.head = "c1";
  c.case_name = "sgemm/M=64";
  c.ratio = 1.08;
  c.ci = {1.06, 1.10};
  c.p_value = 0.0004;
  c.verdict = "slower";
  c.min_detectable = 0.01;
  e.comparisons.push_back(c);
  evidence::EvidenceBisect b;
  b.good = "c0";
  b.bad = "c9";
  b.commits_in_range = 9;
  b.steps.push_back(
      {"c5", "bad", 0.97, std::array<double, 2>{0.9, 1.04}, 10, "", "host-2", "min", "sgemm/M=64"});
  b.steps.push_back({"c3", "skip", std::nullopt, std::nullopt, 0, "build failed", "", "", ""});
  b.culprits.push_back(
      {"c4",
       "c3",
       "<b>slow</b>",
       "Ada",
       "ada@example.com",
       "2026-01-01",
       {"kernels/sgemm.cpp"},
       {"@kernels"},
       {{"sgemm/M=64", 1.08, {1.06, 1.1}, 1.0}, {"sgemm/M=128", 1.12, {1.09, 1.15}, 1.07}}});
  e.bisect = b;
  return e;
}

TEST(Evidence, RoundTripsThroughJsonWithTheDesignKeys) {
  const auto json = to_json(sample());
  for (const auto* key : {"schema", "kind", "status", "tool", "command", "created", "repo", "host",
                          "settings", "builds", "measurements", "comparisons", "bisect"})
    EXPECT_TRUE(json.contains(key)) << key;
  EXPECT_EQ(json["schema"], "culprit.evidence/2");
  EXPECT_EQ(json["measurements"][0]["runs"][0][1], 0.0102);
  EXPECT_EQ(json["bisect"]["culprits"][0]["author"], "Ada");
  // One commit, one culprit: the cases it moved are listed under it.
  ASSERT_EQ(json["bisect"]["culprits"][0]["cases"].size(), 2U);
  EXPECT_EQ(json["bisect"]["culprits"][0]["cases"][1]["case"], "sgemm/M=128");
  EXPECT_EQ(json["bisect"]["culprits"][0]["cases"][1]["share"], 1.07);
  EXPECT_FALSE(json["bisect"]["culprits"][0].contains("ratio"));
  EXPECT_TRUE(json["bisect"]["steps"][1]["position"].is_null());
  EXPECT_EQ(json["bisect"]["steps"][0]["case"], "sgemm/M=64");
  EXPECT_EQ(json["bisect"]["steps"][0]["statistic"], "min");
  EXPECT_EQ(json["bisect"]["steps"][0]["host_id"], "host-2");
  EXPECT_FALSE(json["bisect"]["steps"][1].contains("statistic")) << "nothing measured it";
  EXPECT_EQ(json["measurements"][0]["blocks"], nlohmann::json::parse(R"(["s-1", null])"));
  EXPECT_EQ(json["measurements"][0]["duets"], nlohmann::json::parse("[true, false]"));
  // Every constant that shapes a bisection's verdict is a setting it records.
  EXPECT_EQ(json["settings"]["classify_confidence"], 0.99);
  EXPECT_EQ(json["settings"]["explained_share"], 0.75);
  EXPECT_TRUE(json["settings"]["budget"].is_null());
  auto back = evidence::evidence_from_json(json);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(to_json(*back), json);
}

TEST(Evidence, SavesAtomicallyAndLoads) {
  testing::TempDir dir;
  ASSERT_TRUE(evidence::save_evidence(sample(), dir / "e.json"));
  auto loaded = evidence::load_evidence(dir / "e.json");
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->bisect->culprits[0].subject, "<b>slow</b>");
}

TEST(Evidence, BadDocumentsAreUsageErrorsThatSayWhatIsWrong) {
  testing::TempDir dir;
  std::ofstream(dir / "bad.json") << "{\"schema\": ";
  auto not_json = evidence::load_evidence(dir / "bad.json");
  ASSERT_FALSE(not_json);
  EXPECT_EQ(not_json.error().code, ExitCode::usage);
  EXPECT_THAT(not_json.error().message, HasSubstr("is not JSON"));

  auto missing = evidence::load_evidence(dir / "none.json");
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message, HasSubstr("no evidence file"));

  auto json = to_json(sample());
  json["schema"] = "culprit.evidence/9";
  EXPECT_THAT(evidence::evidence_from_json(json).error().message, HasSubstr("culprit.evidence/9"));

  json = to_json(sample());
  json["comparisons"][0].erase("ratio");
  EXPECT_THAT(evidence::evidence_from_json(json).error().message,
              HasSubstr("comparisons[0].ratio"));

  json = to_json(sample());
  json["bisect"]["steps"][0]["commit"] = 42;
  EXPECT_THAT(evidence::evidence_from_json(json).error().message,
              HasSubstr("'bisect.steps[0].commit' in the evidence has the wrong type"));

  EXPECT_FALSE(evidence::evidence_from_json(nlohmann::json::array()));
}

// The key table decides what a reader may find absent: optional keys of older documents read as
// empty, required ones and nested objects of the wrong shape are named by their whole path.
TEST(Evidence, EachKeyIsReadAsTheTableSaysWithItsPathInErrors) {
  auto json = to_json(sample());
  json["settings"].erase("statistic");
  json["measurements"][0].erase("blocks");
  json["measurements"][0].erase("duets");
  json["bisect"]["culprits"][0]["hints"] = nullptr;
  auto older = evidence::evidence_from_json(json);
  ASSERT_TRUE(older) << older.error().message;
  EXPECT_EQ(older->settings.statistic, "");
  EXPECT_TRUE(older->measurements[0].blocks.empty());
  EXPECT_FALSE(older->bisect->culprits[0].hints);

  const auto refused = [](const nlohmann::json& doc) {
    auto read = evidence::evidence_from_json(doc);
    return read ? std::string("read") : read.error().message;
  };
  json = to_json(sample());
  json["tool"].erase("version");
  EXPECT_THAT(refused(json), HasSubstr("lacks 'tool.version'"));
  json = to_json(sample());
  json["measurements"][0]["summary"] = "fast";
  EXPECT_THAT(refused(json),
              HasSubstr("'measurements[0].summary' in the evidence must be an object"));
  json = to_json(sample());
  json["bisect"]["culprits"] = {{{"commit", "c4"}}};
  EXPECT_THAT(refused(json), HasSubstr("lacks 'bisect.culprits[0].parent'"));
  json = to_json(sample());
  json["measurements"][0]["blocks"] = {"s-1", 7};
  EXPECT_THAT(refused(json), HasSubstr("holds a number, not a block name or null"));
  json = to_json(sample());
  json.erase("schema");
  EXPECT_THAT(refused(json), HasSubstr("no 'schema' string"));
}

// What a hand-made or damaged document may say, and culprit never writes: each is refused with
// the path of its first bad key, before anything renders it.
TEST(Evidence, AnInvariantBrokenIsAUsageErrorNamingTheKey) {
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> breaks = {
      {[](auto& j) { j["comparisons"][0]["ratio"] = -1; }, "'comparisons[0].ratio'"},
      {[](auto& j) { j["comparisons"][0]["ci"] = {5, -5}; }, "'comparisons[0].ci"},
      {[](auto& j) { j["comparisons"][0]["ci"] = {1.2, 1.1}; }, "'comparisons[0].ci'"},
      {[](auto& j) { j["comparisons"][0]["p_value"] = 2; }, "'comparisons[0].p_value'"},
      {[](auto& j) { j["comparisons"][0]["verdict"] = "worse"; }, "'comparisons[0].verdict'"},
      {[](auto& j) { j["comparisons"][0]["ratio"] = std::numeric_limits<double>::infinity(); },
       "'comparisons[0].ratio'"},
      {[](auto& j) { j["kind"] = "benchmark"; }, "'kind' in the evidence is 'benchmark'"},
      {[](auto& j) { j["status"] = "great"; }, "'status'"},
      {[](auto& j) { j.erase("bisect"); }, "'bisect' in the evidence is missing"},
      {[](auto& j) { j["settings"]["confidence"] = 95; }, "'settings.confidence'"},
      {[](auto& j) { j["settings"]["classify_confidence"] = 1.5; },
       "'settings.classify_confidence'"},
      {[](auto& j) { j["settings"]["explained_share"] = 0; }, "'settings.explained_share'"},
      {[](auto& j) { j["settings"]["budget"] = -1; }, "'settings.budget'"},
      {[](auto& j) { j["measurements"][0]["summary"]["ci"] = {2, 1}; },
       "'measurements[0].summary.ci'"},
      {[](auto& j) { j["builds"][0]["seconds"] = -3; }, "'builds[0].seconds'"},
      {[](auto& j) { j["bisect"]["steps"][0]["classified"] = "maybe"; },
       "'bisect.steps[0].classified'"},
      {[](auto& j) { j["bisect"]["culprits"][0]["cases"][0]["ratio"] = 0; }, ""},
      {[](auto& j) { j["bisect"]["culprits"][0]["cases"][1]["ci"] = {1.1, 1.0}; },
       "'bisect.culprits[0].cases[1].ci'"},
      {[](auto& j) { j["bisect"]["culprits"][0]["cases"] = nlohmann::json::array(); },
       "'bisect.culprits[0].cases' in the evidence is empty"},
      {[](auto& j) { j["bisect"]["culprits"][0]["cases"][0].erase("case"); },
       "bisect.culprits[0].cases[0].case"},
      {[](auto& j) { j["bisect"]["parallel"] = 0; }, "'bisect.parallel'"},
      {[](auto& j) { j["measurements"][0]["blocks"] = {"s-1"}; }, "'measurements[0].blocks'"},
      {[](auto& j) { j["measurements"][0]["blocks"] = {1, 2}; }, "'measurements[0].blocks'"},
      {[](auto& j) { j["measurements"][0]["duets"] = {true}; }, "'measurements[0].duets'"},
  };
  for (const auto& [edit, key] : breaks) {
    auto json = to_json(sample());
    edit(json);
    auto read = evidence::evidence_from_json(json);
    SCOPED_TRACE(key);
    if (key.empty()) { // still true of the world: a ratio of 0 is a kernel that takes no time
      EXPECT_TRUE(read) << read.error().message;
      continue;
    }
    ASSERT_FALSE(read);
    EXPECT_EQ(read.error().code, ExitCode::usage);
    EXPECT_THAT(read.error().message, HasSubstr(key));
  }
  // The status of a bisection that was interrupted, and every status culprit writes, are fine.
  for (const auto* status : {"interrupted", "inconclusive", "not_reproduced", "no_change"}) {
    auto json = to_json(sample());
    json["status"] = status;
    EXPECT_TRUE(evidence::evidence_from_json(json)) << status;
  }
}

// The parts kept as JSON (the host, a triage document's own keys) are refused with their path
// when of another type than culprit writes, as every other key is: never an internal error when
// a renderer reads them, nor a finding rendered as "0 cases".
TEST(Evidence, TheHostAndTriageKeysOfAnotherTypeAreRefusedWithTheirPath) {
  const auto refused = [](const nlohmann::json& doc) {
    auto read = evidence::evidence_from_json(doc);
    if (read)
      return std::string("read");
    EXPECT_EQ(read.error().code, ExitCode::usage);
    return read.error().message;
  };
  auto json = to_json(sample());
  json["host"] = {{"cpu", "EPYC"}, {"gpus", {{{"name", "H100"}, {"driver_version", "550"}}}}};
  EXPECT_EQ(refused(json), "read");
  json["host"]["gpus"][0]["driver_version"] = nlohmann::json::array();
  EXPECT_THAT(refused(json), HasSubstr("'host.gpus[0].driver_version' in the evidence is []"));
  json["host"]["gpus"] = 3;
  EXPECT_THAT(refused(json), HasSubstr("'host.gpus' in the evidence is 3, not an array"));

  auto triage = to_json(sample());
  triage["kind"] = "triage";
  triage["status"] = "culprit_found";
  nlohmann::json culprit = {{"commit", "c4"}, {"cases", nlohmann::json::array()}};
  nlohmann::json finding = {{"kind", "regression"}, {"commit", "c4"}};
  finding["cases"] = nlohmann::json::array({"sgemm"});
  finding["bisect"] = {{"culprits", nlohmann::json::array({culprit})}};
  triage["findings"] = nlohmann::json::array({finding});
  triage["change_points"] = nlohmann::json::array();
  triage["regressions"] = {{"recorded", {{{"id", "R1234567"}, {"culprit", "c4"}}}}};
  triage["search"] = {{"points", 4}, {"searched", 4}, {"since", nullptr}, {"whole_because", ""}};
  EXPECT_EQ(refused(triage), "read");
  auto broken = triage;
  broken["findings"][0]["bisect"] = 1e308;
  EXPECT_THAT(refused(broken), HasSubstr("'findings[0].bisect' in the evidence is 1e+308"));
  broken = triage;
  broken["findings"][0]["bisect"]["culprits"] = true;
  EXPECT_THAT(refused(broken), HasSubstr("'findings[0].bisect.culprits' in the evidence is true"));
  broken = triage;
  broken["findings"][0]["bisect"]["culprits"][0]["cases"] = {{{"case", "k"}, {"ratio", "x"}}};
  EXPECT_THAT(refused(broken), HasSubstr("findings[0].bisect.culprits[0].cases[0].ratio"));
  broken = triage;
  broken["regressions"]["recorded"][0]["id"] = 7;
  EXPECT_THAT(refused(broken), HasSubstr("'regressions.recorded[0].id'"));
  broken = triage;
  broken["search"]["points"] = -4;
  EXPECT_THAT(refused(broken), HasSubstr("'search.points'"));
  broken = triage;
  broken["change_points"] = {{{"ratio", "1.2"}}};
  EXPECT_THAT(refused(broken), HasSubstr("'change_points[0].ratio'"));
  // Another kind's document may hold such keys: they are not its own, and nothing reads them.
  broken["kind"] = "bisect";
  EXPECT_EQ(refused(broken), "read");
}

TEST(Evidence, ACommitFoundForSeveralCasesIsOneCulprit) {
  const auto found = [](std::string commit, std::string case_name, double ratio) {
    evidence::EvidenceCulprit c;
    c.commit = std::move(commit);
    c.cases.push_back({std::move(case_name), ratio, {ratio - 0.01, ratio + 0.01}, 0.5});
    return c;
  };
  std::vector<evidence::EvidenceCulprit> culprits;
  evidence::add_culprit(culprits, found("c4", "sgemm", 1.5));
  add_culprit(culprits, found("c7", "sgemm", 1.2));
  add_culprit(culprits, found("c4", "layernorm", 1.8));
  add_culprit(culprits, found("c4", "sgemm", 1.6)); // found again by a second bisection
  ASSERT_EQ(culprits.size(), 2U);
  EXPECT_EQ(culprits[0].commit, "c4");
  ASSERT_EQ(culprits[0].cases.size(), 2U);
  EXPECT_EQ(culprits[0].cases[0].name, "sgemm");
  EXPECT_EQ(culprits[0].cases[0].ratio, 1.5) << "the first finding of a case stands";
  EXPECT_EQ(culprits[0].cases[1].name, "layernorm");
  EXPECT_EQ(culprits[1].commit, "c7");
  EXPECT_EQ(culprits[1].cases.size(), 1U);
}

} // namespace
} // namespace culprit
