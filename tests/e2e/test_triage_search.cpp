// End to end: triage's change-point search kept from one night to the next (culprit-triage(1),
// "The search kept from one night to the next"), on histories of imported nights: the newest
// points searched and said so, --full, a settled night imported again, a change point left open
// searched again; and a document of its own for each triage.

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/git_repo.hpp"
#include "tests/support/nightly_results.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::run_culprit;
using testing::ScratchRepo;
using testing::TempDir;

// A repository of `nights` commits whose recipe builds and runs nothing (a triage's bisection of
// it fails), and the nightly results of case "k" imported at its commits.
class ImportedNights {
public:
  explicit ImportedNights(int nights) {
    m_scratch.write("culprit.toml", "[build]\ncommand = \"true\"\n\n[run]\ncommand = \"true\"\n"
                                    "format = \"culprit\"\n");
    for (int i = 0; i < nights; ++i) {
      m_scratch.write("counter", std::to_string(i) + "\n");
      m_commits.push_back(m_scratch.commit("night " + std::to_string(i)));
    }
  }

  testing::ProcessOutput cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--cache-dir", (m_temp / "cache").string()});
    return run_culprit(args, m_scratch.dir());
  }

  // The night's five samples of `level` with 1% of noise, imported at its commit.
  void import(int night, double level) {
    const auto file = m_temp / ("night-" + std::to_string(night) + ".jsonl");
    std::ofstream out(file);
    for (int s = 0; s < 5; ++s)
      out << R"({"type":"sample","case":"k","metric":"time","unit":"s","direction":"lower",)"
          << R"("value":)" << level * (1 + (0.01 * (((night * 7) + (s * 3)) % 5 - 2) / 2)) << "}\n";
    out.close();
    const auto imported = cli({"import", file.string(), "--commit", m_commits.at(night)});
    ASSERT_EQ(imported.exit_code, 0) << imported.err;
  }

  [[nodiscard]] const std::string& commit(int night) const { return m_commits.at(night); }
  [[nodiscard]] std::filesystem::path file(const std::string& name) const { return m_temp / name; }

  // The "search" key of a triage's document.
  static nlohmann::json search_of(const std::filesystem::path& file) {
    std::ifstream in(file);
    return nlohmann::json::parse(in).at("search");
  }

private:
  TempDir m_temp{"culprit-triage-search"};
  ScratchRepo m_scratch{m_temp / "project"};
  std::vector<std::string> m_commits;
};

// A nightly triage searches the newest points and the 48 before them, and keeps what the triage
// before it found among the older ones; --full, or a settled point imported again, searches all.
TEST(TriageSearch, ANightlyTriageSearchesTheNewestPointsAndSaysSo) {
  ImportedNights history(60);
  for (int night = 0; night < 56; ++night)
    history.import(night, 1e-3);
  const auto first_json = history.file("first.json");
  auto first = history.cli({"-v", "triage", "--json", first_json.string()});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_THAT(first.out, HasSubstr("searched all 56 points: no triage searched this history "
                                   "before"));
  EXPECT_EQ(ImportedNights::search_of(first_json),
            (nlohmann::json{{"points", 56},
                            {"searched", 56},
                            {"since", nullptr},
                            {"whole_because", "no triage searched this history before"}}));

  for (int night = 56; night < 60; ++night)
    history.import(night, 1e-3);
  const auto second_json = history.file("second.json");
  auto second = history.cli({"triage", "--json", second_json.string()});
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_THAT(second.out, HasSubstr("searched the newest 52 of 60 points: the 8 before were "
                                    "searched by the triage of 20"));
  const auto search = ImportedNights::search_of(second_json);
  EXPECT_EQ(search.at("searched"), 52);
  EXPECT_TRUE(search.at("since").is_string());
  // What triage printed is its document's summary.
  auto summary = history.cli({"report", second_json.string(), "--format", "summary"});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_EQ(summary.out, second.out);

  const auto full_json = history.file("full.json");
  auto full = history.cli({"triage", "--full", "--json", full_json.string()});
  ASSERT_EQ(full.exit_code, 0) << full.out << full.err;
  EXPECT_THAT(full.out, Not(HasSubstr("searched")));
  EXPECT_EQ(ImportedNights::search_of(full_json).at("searched"), 60);

  // A settled night imported again: its level may have moved, so everything is searched.
  history.import(3, 1.002e-3);
  const auto again_json = history.file("again.json");
  auto again = history.cli({"-v", "triage", "--json", again_json.string()});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_THAT(again.out, HasSubstr("searched all 60 points: the points that the triage of"));
  EXPECT_EQ(ImportedNights::search_of(again_json).at("searched"), 60);
}

// A change point a triage leaves open (here its bisection fails: the recipe's runs print nothing)
// is searched again by the next triage, however far before the newest points it lies.
TEST(TriageSearch, AChangePointLeftOpenIsSearchedAgain) {
  ImportedNights history(100);
  // 30% slower from night 20 on.
  for (int night = 0; night < 100; ++night)
    history.import(night, night < 20 ? 1e-3 : 1.3e-3);
  const auto failed_line = "failed " + history.commit(19).substr(0, 12) + ".." +
                           history.commit(20).substr(0, 12) + " [k]: regression";
  auto first = history.cli({"triage"});
  EXPECT_EQ(first.exit_code, 4) << first.out << first.err;
  EXPECT_THAT(first.out, HasSubstr(failed_line));
  auto second = history.cli({"-v", "triage"});
  EXPECT_EQ(second.exit_code, 4) << second.out << second.err;
  EXPECT_THAT(second.out, HasSubstr(failed_line)) << "the open change point was not searched again";
  EXPECT_THAT(second.out, HasSubstr("searched all 100 points: the triage of "));
  EXPECT_THAT(second.out, HasSubstr("left a change point among them open"));
}

// Triages in the same second each keep their own document in the cache: none replaces another.
TEST(TriageSearch, TriagesInOneSecondKeepADocumentEach) {
  ImportedNights history(1);
  const auto file = history.file("night.json");
  std::ofstream(file) << testing::k_nightly_gbench;
  ASSERT_EQ(history.cli({"import", file.string(), "--commit", history.commit(0)}).exit_code, 0);
  // Five in a row take a second or two: at least two of them start in the same second.
  std::set<std::string> documents;
  for (int i = 0; i < 5; ++i) {
    auto triage = history.cli({"triage"});
    ASSERT_EQ(triage.exit_code, 0) << triage.out << triage.err;
    const auto at = triage.out.find("evidence: ");
    ASSERT_NE(at, std::string::npos) << triage.out;
    auto path = triage.out.substr(at + 10);
    path.erase(path.find_last_not_of('\n') + 1);
    EXPECT_TRUE(std::filesystem::exists(path)) << path;
    EXPECT_TRUE(documents.insert(path).second) << path << " was written twice";
  }
}

} // namespace
} // namespace culprit
