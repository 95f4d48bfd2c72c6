// End to end through a real Slurm: a single-node cluster on loopback (tests/support/
// slurm_cluster.hpp) runs culprit's allocations, steps and workers for a bisection and a track.
// Skipped, saying why, where the cluster cannot start (not root, slurm-wlm or munge missing);
// CULPRIT_REQUIRE_SLURM=1 turns the skip into a failure.
#include <chrono>
#include <csignal>
#include <sstream>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/evidence/evidence.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/loop_bench.hpp"
#include "tests/support/process.hpp"
#include "tests/support/slurm_cluster.hpp"
#include "tests/support/step_project.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using testing::run_culprit;
using testing::ScratchRepo;
using testing::SlurmCluster;
using testing::snapshot;
using testing::TempDir;

// A benchmark that takes half a second a run, so that a signal or a cancel lands inside a step.
constexpr const char* k_slow_recipe =
    "[build]\ncommand = \"echo x > {build}/x\"\n[run]\ncommand = \"sleep 0.5; "
    "echo '{\\\"type\\\":\\\"sample\\\",\\\"case\\\":\\\"k\\\","
    "\\\"metric\\\":\\\"time\\\",\\\"unit\\\":\\\"s\\\",\\\"direction\\\":"
    "\\\"lower\\\",\\\"value\\\":1}'\"\nformat = \"culprit\"\n[decide]\nmin_runs = "
    "30\nmax_runs = 30\n";

class RealSlurm : public ::testing::Test {
protected:
  static void SetUpTestSuite() { s_cluster = SlurmCluster::start(&s_why_not); }
  static void TearDownTestSuite() { s_cluster.reset(); }
  void SetUp() override { CULPRIT_SLURM_OR_SKIP(s_cluster, s_why_not); }

  testing::ProcessOutput culprit_cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--cache-dir", (temp / "cache").string()});
    return run_culprit(args, scratch.dir(), s_cluster->env());
  }

  // Culprit's own jobs still known to the cluster. A job that scancel has just ended shows
  // COMPLETING for a moment while the node cleans up, as Slurm does for any cancelled job: a
  // listing of such jobs alone is asked again, for up to ten seconds.
  static std::string jobs_left() {
    std::string listed;
    for (int tries = 0; tries < 100; ++tries) {
      listed = testing::run_process({"squeue", "-h", "-n", "culprit", "-o", "%i %T"}, "/",
                                    s_cluster->env())
                   .out;
      if (!only_completing(listed))
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return listed;
  }

  static bool only_completing(const std::string& listed) {
    std::istringstream lines(listed);
    bool any = false;
    for (std::string line; std::getline(lines, line); any = true)
      if (!line.ends_with(" COMPLETING"))
        return false;
    return any;
  }

  static std::unique_ptr<SlurmCluster> s_cluster;
  static std::string s_why_not;
  TempDir temp{"culprit-real-slurm"};
  ScratchRepo scratch{temp / "project"};
  testing::LoopHistory history{scratch};
};

std::unique_ptr<SlurmCluster> RealSlurm::s_cluster;
std::string RealSlurm::s_why_not;

TEST_F(RealSlurm, BisectsOnTwoAllocationsAndRecordsTheJobs) {
  const auto before = snapshot(scratch.dir());
  const auto json = (temp / "bisect.json").string();
  auto found = culprit_cli({"bisect", "--good", history.good, "--bad", history.bad, "--case",
                            "loop", "--executor", "slurm", "--parallel", "2", "--json", json});
  ASSERT_EQ(found.exit_code, 0) << found.out << found.err;
  EXPECT_THAT(found.out, HasSubstr("culprit " + history.culprit.substr(0, 12)));
  EXPECT_THAT(found.out, HasSubstr("Slurm allocation"));
  auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U);
  EXPECT_EQ(evidence->bisect->culprits[0].commit, history.culprit);
  EXPECT_EQ(evidence->bisect->parallel, 2);
  const auto& executor = evidence->executor;
  EXPECT_EQ(executor.at("kind"), "slurm");
  ASSERT_GE(executor.at("jobs").size(), 1U);
  for (const auto& job : executor.at("jobs")) {
    EXPECT_EQ(job.at("node"), s_cluster->node());
    EXPECT_FALSE(job.at("job_id").get<std::string>().empty());
    EXPECT_EQ(job.at("ended"), "released");
  }
  EXPECT_EQ(jobs_left(), "") << "culprit left jobs behind";
  EXPECT_TRUE(snapshot(scratch.dir()) == before) << "the checkout changed";
}

TEST_F(RealSlurm, TracksARangeOverTwoJobs) {
  auto tracked = culprit_cli({"track", history.good + ".." + history.bad, "--runs", "3",
                              "--executor", "slurm", "--parallel", "2"});
  ASSERT_EQ(tracked.exit_code, 0) << tracked.out << tracked.err;
  EXPECT_THAT(tracked.out, HasSubstr("tracked 8 of 8 commits"));
  EXPECT_THAT(tracked.out, HasSubstr("measured on 2 Slurm allocations"));
  auto shown = culprit_cli({"history", "--all-hosts", "--case", "loop"});
  EXPECT_EQ(shown.exit_code, 0) << shown.out << shown.err;
  EXPECT_EQ(jobs_left(), "") << "culprit left jobs behind";
}

TEST_F(RealSlurm, BuildsOnTheClusterWhenAsked) {
  // The cluster has room for two one-CPU allocations: the measuring lane's, and one at a time
  // for builds, which give theirs back after each build.
  scratch.write("slurm.toml", std::string(testing::k_loop_recipe) +
                                  "\n[executor]\nkind = \"slurm\"\nbuild_on = \"slurm\"\n"
                                  "sbatch_args = \"-p culprit -N1\"\nqueue_timeout = 60\n");
  const auto json = (temp / "compare.json").string();
  auto compared = culprit_cli({"--config", (scratch.dir() / "slurm.toml").string(), "compare",
                               history.good, history.bad, "--case", "loop", "--json", json});
  EXPECT_EQ(compared.exit_code, 1) << compared.out << compared.err; // slower
  EXPECT_THAT(compared.out, HasSubstr("slower"));
  auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  int build_jobs = 0;
  for (const auto& job : evidence->executor.at("jobs"))
    build_jobs += job.at("role") == "build" ? 1 : 0;
  EXPECT_EQ(build_jobs, 2); // one allocation per build
  EXPECT_EQ(jobs_left(), "") << "culprit left jobs behind";
}

TEST_F(RealSlurm, APartitionThatDoesNotExistIsExitFourWithSlurmsReason) {
  auto refused = culprit_cli({"run", "HEAD", "--executor", "slurm"});
  ASSERT_EQ(refused.exit_code, 0) << refused.err; // the default partition works
  scratch.write("bad.toml", std::string(testing::k_loop_recipe) +
                                "\n[executor]\nsbatch_args = [\"-p\", \"nosuch\"]\n");
  refused = culprit_cli({"--config", (scratch.dir() / "bad.toml").string(), "run", "HEAD",
                         "--executor", "slurm", "--fresh"});
  EXPECT_EQ(refused.exit_code, 4) << refused.out << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("Invalid partition name specified"));
  EXPECT_EQ(jobs_left(), "");
}

TEST_F(RealSlurm, CtrlCCancelsCulpritsJobsAndKeepsWhatWasMeasured) {
  scratch.write("slow.toml", k_slow_recipe);
  auto env = s_cluster->env();
  auto running = testing::start_culprit({"--cache-dir", (temp / "cache").string(), "--config",
                                         (scratch.dir() / "slow.toml").string(), "run", "HEAD",
                                         "--executor", "slurm"},
                                        scratch.dir(), env);
  // Wait until the step runs, then interrupt.
  for (int i = 0; i < 200 && jobs_left().find("RUNNING") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::seconds(3));
  running.signal(SIGINT);
  ASSERT_TRUE(running.wait_for(std::chrono::seconds(30)));
  const auto stopped = running.wait();
  EXPECT_EQ(stopped.exit_code, 130) << stopped.err;
  EXPECT_EQ(jobs_left(), "") << "the allocation outlived the interrupt";
  // What the step finished was kept: running again needs fewer runs than 30.
  const auto health = testing::inspect_store(temp / "cache");
  EXPECT_EQ(health.integrity, "ok");
  EXPECT_GT(health.ok_runs, 0);
}

TEST_F(RealSlurm, AJobCancelledUnderAStepIsRetriedOnANewAllocation) {
  // Someone (an administrator, preemption, a node failure) ends the allocation while it measures.
  scratch.write("slow.toml", k_slow_recipe);
  const auto json = (temp / "run.json").string();
  auto running = testing::start_culprit({"--cache-dir", (temp / "cache").string(), "--config",
                                         (scratch.dir() / "slow.toml").string(), "run", "HEAD",
                                         "--executor", "slurm", "--json", json},
                                        scratch.dir(), s_cluster->env());
  std::string first;
  for (int i = 0; i < 200 && first.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto listed = jobs_left();
    if (listed.find("RUNNING") != std::string::npos)
      first = listed.substr(0, listed.find(' '));
  }
  ASSERT_FALSE(first.empty()) << "culprit's job never ran";
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const auto cancelled = testing::run_process({"scancel", first}, "/", s_cluster->env());
  ASSERT_EQ(cancelled.exit_code, 0) << cancelled.err;
  ASSERT_TRUE(running.wait_for(std::chrono::seconds(120)));
  const auto finished = running.wait();
  ASSERT_EQ(finished.exit_code, 0) << finished.err;
  auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  const auto& executor = evidence->executor;
  EXPECT_GE(executor.at("retries").get<int>(), 1);
  ASSERT_GE(executor.at("jobs").size(), 2U);
  EXPECT_EQ(executor.at("jobs")[0].at("job_id"), first);
  EXPECT_THAT(executor.at("jobs")[0].at("ended").get<std::string>(), HasSubstr("failed"));
  EXPECT_EQ(executor.at("jobs").back().at("ended"), "released");
  EXPECT_EQ(jobs_left(), "");
}

} // namespace
} // namespace culprit
