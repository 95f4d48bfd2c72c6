// End to end: `culprit report` on evidence files, good and bad.

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/evidence/evidence.hpp"
#include "tests/support/evidence_samples.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using testing::run_culprit;
using ::testing::StartsWith;

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class ReportCli : public ::testing::Test {
protected:
  void SetUp() override {
    auto e = testing::bisect_sample();
    e.repo_path = (temp / "nowhere").string();
    ASSERT_TRUE(save_evidence(e, evidence));
  }
  testing::ProcessOutput culprit(std::vector<std::string> args) {
    return run_culprit(args, temp.path(), {{"NO_COLOR", "1"}});
  }
  testing::TempDir temp{"culprit-report"};
  std::filesystem::path evidence = temp / "bisect.json";
};

TEST_F(ReportCli, RendersEveryFormat) {
  auto text = culprit({"report", evidence.string()});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, StartsWith("culprit bisect: 2 culprits found, 1 case: "));
  EXPECT_THAT(text.out, HasSubstr("in an order inferred from the probes"));
  EXPECT_EQ(text.err, "");

  auto md = culprit({"report", evidence.string(), "--format", "markdown"});
  EXPECT_EQ(md.exit_code, 0) << md.err;
  EXPECT_THAT(md.out, StartsWith("### culprit bisect: "));

  auto junit = culprit({"report", evidence.string(), "--format", "junit"});
  EXPECT_EQ(junit.exit_code, 0) << junit.err;
  EXPECT_THAT(junit.out, StartsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));

  auto html = culprit(
      {"report", evidence.string(), "--format", "html", "-o", (temp / "report.html").string()});
  EXPECT_EQ(html.exit_code, 0) << html.err;
  EXPECT_EQ(html.out, "");
  std::ifstream in(temp / "report.html");
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "<!DOCTYPE html>");
}

TEST_F(ReportCli, UsesTheRepositoryForCommitOrder) {
  testing::ScratchRepo scratch(temp / "repo");
  std::vector<std::string> commits;
  for (int i = 0; i < 6; ++i) {
    scratch.write("f.txt", std::to_string(i));
    commits.push_back(scratch.commit("commit " + std::to_string(i)));
  }
  evidence::Evidence e = testing::compare_sample();
  e.kind = "bisect";
  e.status = "culprit_found";
  e.repo_path = scratch.dir().string();
  evidence::EvidenceBisect b;
  b.good = commits[0];
  b.bad = commits[5];
  b.commits_in_range = 5;
  for (const int i : {3, 2, 4})
    b.steps.push_back({commits[static_cast<std::size_t>(i)], i < 4 ? "bad" : "skip", std::nullopt,
                       std::nullopt, 4, "", "", "", ""});
  b.culprits.push_back({commits[2],
                        commits[1],
                        "s",
                        "a",
                        "",
                        "d",
                        {},
                        {},
                        {{"k", 1.1, {1.05, 1.15}, std::nullopt}}});
  e.bisect = b;
  ASSERT_TRUE(evidence::save_evidence(e, temp / "ordered.json"));
  auto text = culprit({"report", (temp / "ordered.json").string()});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("in commit order"));
  // Probes 2, 1, 3 (commits 2, 3, 4) listed oldest first.
  const auto at = [&](int i) {
    return text.out.find(commits[static_cast<std::size_t>(i)].substr(0, 12));
  };
  EXPECT_LT(at(2), at(3));
  EXPECT_LT(at(3), at(4));
}

TEST_F(ReportCli, BadEvidenceIsAOneLineUsageError) {
  std::ofstream(temp / "not.json") << "this is not json";
  auto json = to_json(testing::bisect_sample());
  json["schema"] = "culprit.evidence/1";
  std::ofstream(temp / "schema.json") << json.dump();
  json = to_json(testing::bisect_sample());
  json["bisect"]["culprits"][1].erase("author");
  std::ofstream(temp / "lacks.json") << json.dump();

  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not.json", "is not JSON"},
      {"schema.json", "has schema 'culprit.evidence/1'"},
      {"lacks.json", "lacks 'bisect.culprits[1].author'"},
      {"missing.json", "no evidence file"}};
  for (const auto& [file, message] : cases) {
    auto out = culprit({"report", (temp / file).string()});
    EXPECT_EQ(out.exit_code, 2) << file;
    EXPECT_EQ(out.out, "") << file;
    EXPECT_EQ(line_count(out.err), 1U) << out.err;
    EXPECT_THAT(out.err, StartsWith("culprit: error: "));
    EXPECT_THAT(out.err, HasSubstr(message)) << out.err;
    EXPECT_THAT(out.err, HasSubstr(file)) << out.err;
  }
}

TEST_F(ReportCli, BadFlagsAreUsageErrors) {
  auto format = culprit({"report", evidence.string(), "--format", "pdf"});
  EXPECT_EQ(format.exit_code, 2);
  EXPECT_THAT(format.err, HasSubstr("unknown report format 'pdf'"));
  auto nowhere =
      culprit({"report", evidence.string(), "-o", (temp / "no/such/dir/r.txt").string()});
  EXPECT_EQ(nowhere.exit_code, 2);
  EXPECT_THAT(nowhere.err, HasSubstr("does not exist"));
  EXPECT_FALSE(std::filesystem::exists(temp / "no"));
  auto missing = culprit({"report"});
  EXPECT_EQ(missing.exit_code, 2);
}

TEST_F(ReportCli, ColourFollowsTheColorFlag) {
  auto always = run_culprit({"--color", "always", "report", evidence.string()}, temp.path());
  EXPECT_THAT(always.out, HasSubstr("\x1b["));
  auto never = run_culprit({"--color", "never", "report", evidence.string()}, temp.path());
  EXPECT_THAT(never.out, ::testing::Not(HasSubstr("\x1b[")));
  EXPECT_THAT(never.out, EndsWith("\n"));
}

} // namespace
} // namespace culprit

namespace culprit {
namespace {

TEST_F(ReportCli, WritesSeveralOutputsAndAnnotatesOnGithubActions) {
  const auto dir = temp / "out";
  std::filesystem::create_directories(dir);
  auto out = run_culprit({"report", evidence.string(), "--markdown", (dir / "r.md").string(),
                          "--html", (dir / "r.html").string(), "--junit",
                          (dir / "junit.xml").string(), "--json", (dir / "copy.json").string()},
                         temp.path(), {{"GITHUB_ACTIONS", "true"}});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  for (const auto* file : {"r.md", "r.html", "junit.xml", "copy.json"})
    EXPECT_TRUE(std::filesystem::exists(dir / file)) << file;
  EXPECT_TRUE(evidence::load_evidence(dir / "copy.json"));
  // Only the annotations on stdout: one for the slower case, one per culprit.
  EXPECT_EQ(line_count(out.out), 3U) << out.out;
  EXPECT_THAT(out.out, StartsWith("::error title=culprit%3A sgemm"));
  EXPECT_EQ(out.err, "");

  // With an output on stdout, the annotations go to stderr.
  auto piped = run_culprit({"report", evidence.string(), "--markdown", "-"}, temp.path(),
                           {{"GITHUB_ACTIONS", "true"}});
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_THAT(piped.out, StartsWith("### culprit bisect"));
  EXPECT_THAT(piped.err, StartsWith("::error "));

  // A missing directory for any output stops everything before a file is written.
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto refused = culprit({"report", evidence.string(), "--markdown", (dir / "r.md").string(),
                          "--html", (temp / "missing/r.html").string()});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("--html"));
  EXPECT_FALSE(std::filesystem::exists(dir / "r.md"));
}

} // namespace
} // namespace culprit
