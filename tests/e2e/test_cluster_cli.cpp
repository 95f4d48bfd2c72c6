// End to end: bisect and track with --parallel, locally and through the Slurm executor (with
// stand-in salloc, srun and scancel that run the real worker here).
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/evidence/evidence.hpp"
#include "tests/support/fake_slurm.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/loop_bench.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using testing::run_culprit;
using testing::ScratchRepo;
using testing::snapshot;
using testing::TempDir;

class ClusterCli : public ::testing::Test {
protected:
  testing::ProcessOutput culprit_cli(std::vector<std::string> args,
                                     const std::map<std::string, std::string>& env = {}) {
    args.insert(args.begin(), {"--cache-dir", (temp / "cache").string()});
    return run_culprit(args, scratch.dir(), env);
  }

  // A PATH with the Slurm stand-ins first; each allocation on a node of its own.
  [[nodiscard]] std::map<std::string, std::string> fake_slurm_env() const {
    testing::install_fake_slurm(temp / "slurm-bin");
    std::ofstream(temp / "slurm-bin" / "node_per_job") << "\n";
    const char* path = std::getenv("PATH");
    return {{"PATH", (temp / "slurm-bin").string() + ":" + (path ? path : "/usr/bin:/bin")}};
  }

  [[nodiscard]] std::vector<std::string> calls(std::string_view program) const {
    std::ifstream in(temp / "slurm-bin" / "calls");
    std::vector<std::string> found;
    for (std::string line; std::getline(in, line);)
      if (line.starts_with(program))
        found.push_back(line);
    return found;
  }

  TempDir temp{"culprit-cluster"};
  ScratchRepo scratch{temp / "project"};
  testing::LoopHistory history{scratch};
};

TEST_F(ClusterCli, LocalParallelBisectionBuildsARoundAtOnceAndNamesTheSameCulprit) {
  const auto before = snapshot(scratch.dir());
  const auto json = (temp / "bisect.json").string();
  auto found = culprit_cli({"bisect", "--good", history.good, "--bad", history.bad, "--case",
                            "loop", "--parallel", "2", "--json", json});
  ASSERT_EQ(found.exit_code, 0) << found.out << found.err;
  EXPECT_THAT(found.out, HasSubstr("culprit " + history.culprit.substr(0, 12)));
  EXPECT_THAT(found.out, HasSubstr("round"));
  auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_TRUE(evidence->bisect);
  EXPECT_EQ(evidence->bisect->parallel, 2);
  EXPECT_GE(evidence->bisect->rounds, 1);
  EXPECT_LE(evidence->bisect->rounds, 3); // 8 commits, 2 probes a round: log3(8) < 2
  EXPECT_EQ(evidence->executor.at("kind"), "local");
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U);
  EXPECT_EQ(evidence->bisect->culprits[0].commit, history.culprit);
  EXPECT_TRUE(snapshot(scratch.dir()) == before) << "the checkout changed";
}

TEST_F(ClusterCli, LocalLanesMeasureAtOnceWhenAsked) {
  const auto json = (temp / "bisect.json").string();
  auto found = culprit_cli({"bisect", "--good", history.good, "--bad", history.bad, "--case",
                            "loop", "--parallel", "2", "--parallel-runs", "--json", json});
  ASSERT_EQ(found.exit_code, 0) << found.out << found.err;
  auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U);
  EXPECT_EQ(evidence->bisect->culprits[0].commit, history.culprit);
  EXPECT_EQ(evidence->executor.at("parallel_runs"), true);
  // Both lanes are this machine: one device, so every measurement is of this host.
  for (const auto& m : evidence->measurements)
    EXPECT_TRUE(m.host_id.empty()) << m.commit;
}

TEST_F(ClusterCli, SlurmBisectionRecordsItsJobsAndCancelsThem) {
  const auto before = snapshot(scratch.dir());
  const auto json = (temp / "bisect.json").string();
  auto found = culprit_cli({"bisect", "--good", history.good, "--bad", history.bad, "--case",
                            "loop", "--executor", "slurm", "--parallel", "2", "--json", json},
                           fake_slurm_env());
  ASSERT_EQ(found.exit_code, 0) << found.out << found.err;
  EXPECT_THAT(found.out, HasSubstr("culprit " + history.culprit.substr(0, 12)));
  EXPECT_THAT(found.out, HasSubstr("measured on 2 Slurm allocations: job 10"));
  // The summary, allocations and all, is the evidence's: report prints it again, byte for byte.
  auto reported = culprit_cli({"report", json, "--format", "summary"});
  ASSERT_EQ(reported.exit_code, 0) << reported.err;
  EXPECT_EQ(reported.out, found.out);
  auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U);
  EXPECT_EQ(evidence->bisect->culprits[0].commit, history.culprit);
  const auto& executor = evidence->executor;
  EXPECT_EQ(executor.at("kind"), "slurm");
  ASSERT_EQ(executor.at("jobs").size(), 2U);
  std::set<std::string> jobs;
  for (const auto& job : executor.at("jobs")) {
    EXPECT_EQ(job.at("node"), "fake" + job.at("job_id").get<std::string>());
    EXPECT_GT(job.at("batches").get<int>(), 0);
    EXPECT_EQ(job.at("ended"), "released");
    jobs.insert(job.at("job_id").get<std::string>());
  }
  // Every job culprit asked for was cancelled on the way out.
  std::set<std::string> cancelled;
  for (const auto& call : calls("scancel"))
    cancelled.insert(call.substr(std::string("scancel ").size()));
  EXPECT_EQ(cancelled, jobs);
  EXPECT_TRUE(snapshot(scratch.dir()) == before) << "the checkout changed";
}

TEST_F(ClusterCli, SlurmTrackSpreadsItsCommitsOverTheJobs) {
  const auto env = fake_slurm_env();
  auto tracked = culprit_cli({"track", history.good + ".." + history.bad, "--runs", "3",
                              "--executor", "slurm", "--parallel", "2"},
                             env);
  ASSERT_EQ(tracked.exit_code, 0) << tracked.out << tracked.err;
  EXPECT_THAT(tracked.out, HasSubstr("tracked 8 of 8 commits"));
  EXPECT_THAT(tracked.out, HasSubstr("measured on 2 Slurm allocations"));
  auto shown = culprit_cli({"history", "--all-hosts", "--case", "loop"});
  EXPECT_EQ(shown.exit_code, 0) << shown.out << shown.err;
  EXPECT_THAT(shown.out, HasSubstr("loop"));
}

} // namespace
} // namespace culprit
