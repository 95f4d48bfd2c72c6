// Two culprit processes on the same repository and cache at once: each gets its own workspace
// slot (or waits for one, saying so), the store takes both writers (WAL with a busy timeout), and
// the build cache assembles entries under temporary names, so neither sees the other's half-made
// work and both reach their own answer.

#include <fstream>
#include <thread>

#include <fmt/format.h>

#include <gmock/gmock.h>

#include "core/evidence/evidence.hpp"
#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

class Concurrency : public ::testing::Test {
protected:
  BackgroundProcess culprit_background(std::vector<std::string> args) {
    args.insert(args.begin(), {"--cache-dir", cache().string()});
    return start_culprit(args, project.dir());
  }
  [[nodiscard]] std::filesystem::path cache() const { return temp / "cache"; }

  // No temporary entry of the build cache is left behind.
  void expect_no_temporaries() const {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(cache())) {
      const auto name = entry.path().filename().string();
      EXPECT_FALSE(name.starts_with(".tmp")) << entry.path();
    }
  }

  TempDir temp{"culprit-concurrency"};
  StepProject project{temp / "project", {.commits = 6, .step_at = 3}};
};

TEST_F(Concurrency, TwoBisectionsAtOnceBothFindTheCulprit) {
  const auto repo_before = snapshot(project.dir());
  std::vector<BackgroundProcess> bisects;
  for (int i = 0; i < 2; ++i)
    bisects.push_back(
        culprit_background({"bisect", "--good", project.good(), "--bad", project.bad(), "--json",
                            (temp / fmt::format("b{}.json", i)).string()}));
  for (int i = 0; i < 2; ++i) {
    const auto result = bisects[static_cast<std::size_t>(i)].wait();
    ASSERT_EQ(result.exit_code, 0) << result.err;
    auto evidence = evidence::load_evidence(temp / fmt::format("b{}.json", i));
    ASSERT_TRUE(evidence) << evidence.error().message;
    ASSERT_EQ(evidence->bisect->culprits.size(), 1U);
    EXPECT_EQ(evidence->bisect->culprits[0].commit, project.culprit());
  }
  const auto health = inspect_store(cache());
  EXPECT_EQ(health.integrity, "ok");
  EXPECT_EQ(health.ok_runs_without_samples, 0);
  EXPECT_EQ(snapshot(project.dir()), repo_before);
  expect_no_temporaries();
}

TEST_F(Concurrency, ABuildAndACompareAtOnce) {
  auto build = culprit_background({"build", project.commits()[1], project.commits()[2]});
  auto compare = culprit_background({"compare", project.good(), project.bad()});
  const auto built = build.wait();
  const auto compared = compare.wait();
  EXPECT_EQ(built.exit_code, 0) << built.err;
  EXPECT_EQ(compared.exit_code, 1) << compared.err; // the step is a regression
  EXPECT_THAT(compared.out, HasSubstr("slower"));
  EXPECT_EQ(inspect_store(cache()).integrity, "ok");
  expect_no_temporaries();
}

TEST_F(Concurrency, WhenEverySlotIsTakenTheNextBuildWaitsAndSaysSo) {
  // Four slow builds hold the four slots; a fifth must wait for one, and say why it waits.
  std::ofstream(temp / "slow.toml") << "[build]\ncommand = \"sleep 2; cp {src}/value {build}/\"\n"
                                       "[run]\ncommand = \"true\"\n";
  const auto config = (temp / "slow.toml").string();
  std::vector<BackgroundProcess> builds;
  for (std::size_t i = 0; i < 5; ++i) {
    builds.push_back(culprit_background({"--config", config, "build", project.commits()[i]}));
    std::this_thread::sleep_for(i < 3 ? 50ms : 400ms);
  }
  int waited = 0;
  for (auto& build : builds) {
    const auto result = build.wait();
    EXPECT_EQ(result.exit_code, 0) << result.err;
    waited += result.err.find("waiting") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(waited, 1);
  expect_no_temporaries();
}

TEST_F(Concurrency, TwoBuildsOfOneCommitShareOneArtifact) {
  std::ofstream(temp / "slow.toml") << "[build]\ncommand = \"sleep 0.5; cp {src}/value {build}/\"\n"
                                       "[run]\ncommand = \"true\"\n";
  const auto config = (temp / "slow.toml").string();
  auto first = culprit_background({"--config", config, "build", "HEAD"});
  auto second = culprit_background({"--config", config, "build", "HEAD"});
  EXPECT_EQ(first.wait().exit_code, 0);
  EXPECT_EQ(second.wait().exit_code, 0);
  std::size_t artifacts = 0;
  for (const auto& dir : std::filesystem::recursive_directory_iterator(cache()))
    artifacts += dir.path().parent_path().filename() == "artifacts" && dir.is_directory() ? 1 : 0;
  EXPECT_EQ(artifacts, 1U);
  expect_no_temporaries();
}

} // namespace
} // namespace culprit::testing
