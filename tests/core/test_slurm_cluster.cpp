// What the Slurm client commands do on a real cluster, in the exact usage a Slurm executor relies
// on: salloc --no-shell for an allocation, srun --jobid for each step, scancel to end it. Each
// test pins down an exit code or message format that such an executor parses.

#include "tests/support/slurm_cluster.hpp"

#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/exec/local_executor.hpp"

namespace culprit {
namespace {

using testing::SlurmCluster;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

// The job id of salloc's "salloc: Granted job allocation <id>" line.
std::optional<std::string> granted_job(const std::string& err) {
  static constexpr std::string_view k_granted = "salloc: Granted job allocation ";
  for (const auto& line : lines_of(err)) {
    if (line.starts_with(k_granted) && line.size() > k_granted.size() &&
        line.find_first_not_of("0123456789", k_granted.size()) == std::string::npos)
      return line.substr(k_granted.size());
  }
  return std::nullopt;
}

// Everything salloc --no-shell says on stderr when it grants job `job`: the first line only when
// the job ran at once, all four when it waited in the queue first (as it does while an earlier
// job is still completing).
std::string granted_after_queueing(const std::string& job) {
  return "salloc: Pending job allocation " + job + "\n" + "salloc: job " + job +
         " queued and waiting for resources\n" + "salloc: job " + job +
         " has been allocated resources\n" + "salloc: Granted job allocation " + job + "\n";
}

std::map<std::string, std::string> env_of(const std::string& env_output) {
  std::map<std::string, std::string> env;
  for (const auto& line : lines_of(env_output)) {
    const auto equals = line.find('=');
    if (equals != std::string::npos)
      env[line.substr(0, equals)] = line.substr(equals + 1);
  }
  return env;
}

class SlurmClusterClients : public ::testing::Test {
protected:
  static void SetUpTestSuite() { s_cluster = SlurmCluster::start(&s_why_not); }
  static void TearDownTestSuite() { s_cluster.reset(); }

  void SetUp() override { CULPRIT_SLURM_OR_SKIP(s_cluster, s_why_not); }

  // Each test leaves the node empty for the next: a job submitted while another is still
  // completing would wait in the queue for a scheduler pass (seconds).
  void TearDown() override {
    if (m_jobs.empty())
      return;
    std::vector<std::string> scancel{"scancel"};
    scancel.insert(scancel.end(), m_jobs.begin(), m_jobs.end());
    (void)run(scancel);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!run({"squeue", "-h", "-o", "%i"}).out.empty() &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  static const SlurmCluster& cluster() { return *s_cluster; }

  // Runs a client command against the cluster; the timeout only keeps a regression from hanging.
  static exec::ExecResult run(std::vector<std::string> argv,
                              exec::Seconds timeout = exec::Seconds{60}) {
    exec::ExecRequest request;
    request.command = std::move(argv);
    request.cwd = cluster().dir();
    request.env = cluster().env();
    request.timeout = timeout;
    exec::LocalExecutor executor;
    auto result = executor.run(request);
    EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().message);
    return result ? std::move(*result) : exec::ExecResult{};
  }

  // salloc --no-shell -p culprit -N1 -J name [extra...]: the granted job id, cancelled after the
  // test; empty (and the test failed) when salloc did not grant one.
  std::string allocate(const std::string& name, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv{"salloc", "--no-shell", "-p", cluster().partition(),
                                  "-N1",    "-J",         name};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const auto result = run(argv);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    const auto job = granted_job(result.err);
    EXPECT_TRUE(job.has_value()) << "no 'Granted job allocation' line in: " << result.err;
    if (!job)
      return {};
    m_jobs.push_back(*job);
    EXPECT_TRUE(result.err == "salloc: Granted job allocation " + *job + "\n" ||
                result.err == granted_after_queueing(*job))
        << result.err;
    return *job;
  }

  static exec::ExecResult step(const std::string& job, const std::vector<std::string>& command) {
    std::vector<std::string> argv{"srun", "--jobid=" + job, "-N1", "-n1"};
    argv.insert(argv.end(), command.begin(), command.end());
    return run(argv);
  }

  static std::string squeue(const std::string& job, const std::string& format) {
    const auto result = run({"squeue", "-h", "-j", job, "-o", format});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return result.out;
  }

  static std::string s_why_not;
  static std::unique_ptr<SlurmCluster> s_cluster;
  std::vector<std::string> m_jobs;
};

std::string SlurmClusterClients::s_why_not;
std::unique_ptr<SlurmCluster> SlurmClusterClients::s_cluster;

TEST_F(SlurmClusterClients, SallocWithoutShellGrantsAnAllocationAndReturns) {
  const auto result = run({"salloc", "--no-shell", "-p", "culprit", "-N1", "-J", "granted"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "");
  const auto job = granted_job(result.err);
  ASSERT_TRUE(job.has_value()) << result.err;
  m_jobs.push_back(*job);
  EXPECT_EQ(result.err, "salloc: Granted job allocation " + *job + "\n");
  EXPECT_EQ(squeue(*job, "%T"), "RUNNING\n");
  EXPECT_EQ(squeue(*job, "%j"), "granted\n");
}

TEST_F(SlurmClusterClients, SallocWaitsInTheQueueUntilTheNodeIsFree) {
  const auto holder = allocate("holder", {"--exclusive"});
  ASSERT_FALSE(holder.empty());
  auto waiter = std::async(std::launch::async, [&] {
    return run({"salloc", "--no-shell", "-p", "culprit", "-N1", "-J", "waiter"});
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (run({"squeue", "-h", "-n", "waiter", "-o", "%T"}).out != "PENDING\n" &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(run({"scancel", holder}).exit_code, 0);
  const auto result = waiter.get();
  const auto job = granted_job(result.err);
  ASSERT_TRUE(job.has_value()) << result.err;
  m_jobs.push_back(*job);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.err, granted_after_queueing(*job));
}

TEST_F(SlurmClusterClients, SqueueNamesTheNodeOfAnAllocation) {
  const auto job = allocate("node-name");
  ASSERT_FALSE(job.empty());
  EXPECT_EQ(squeue(job, "%N"), cluster().node() + "\n");
}

TEST_F(SlurmClusterClients, StepsRunOneAfterAnotherInAnAllocation) {
  const auto job = allocate("steps");
  ASSERT_FALSE(job.empty());
  for (const char* expected_step : {"0", "1"}) {
    const auto result = step(job, {"env"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, "");
    const auto env = env_of(result.out);
    EXPECT_EQ(env.at("SLURM_JOB_ID"), job);
    EXPECT_EQ(env.at("SLURM_JOBID"), job);
    EXPECT_EQ(env.at("SLURM_STEP_ID"), expected_step);
    EXPECT_EQ(env.at("SLURM_STEPID"), expected_step);
    EXPECT_EQ(env.at("SLURMD_NODENAME"), cluster().node());
    EXPECT_EQ(env.at("SLURM_JOB_PARTITION"), "culprit");
  }
  // A step's exit status is srun's.
  EXPECT_EQ(step(job, {"sh", "-c", "exit 7"}).exit_code, 7);
}

TEST_F(SlurmClusterClients, StepsInTwoAllocationsRunAtOnce) {
  if (cluster().cpus() < 2)
    GTEST_SKIP() << "two allocations need two CPUs; the node has " << cluster().cpus();
  const auto first = allocate("at-once-1");
  const auto second = allocate("at-once-2");
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(second.empty());
  // Each step marks itself present and succeeds only if it sees the other (waiting 10 s at most):
  // run one after the other, the first would fail.
  const auto meet = [](const std::string& mine, const std::string& other) {
    return std::vector<std::string>{"sh", "-c",
                                    "touch " + mine + "; i=0; while [ ! -e " + other +
                                        " ] && [ $i -lt 200 ]; do sleep 0.05; " +
                                        "i=$((i+1)); done; [ -e " + other + " ]"};
  };
  auto one = std::async(std::launch::async, [&] { return step(first, meet("one", "two")); });
  auto two = std::async(std::launch::async, [&] { return step(second, meet("two", "one")); });
  const auto one_result = one.get();
  const auto two_result = two.get();
  EXPECT_EQ(one_result.exit_code, 0) << one_result.err;
  EXPECT_EQ(two_result.exit_code, 0) << two_result.err;
}

TEST_F(SlurmClusterClients, ScancelEndsTheAllocationAndLaterStepsFail) {
  const auto job = allocate("cancelled");
  ASSERT_FALSE(job.empty());
  const auto cancelled = run({"scancel", job});
  EXPECT_EQ(cancelled.exit_code, 0) << cancelled.err;
  EXPECT_EQ(cancelled.err, "");
  const auto result = step(job, {"true"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "srun: error: Slurm job " + job + " has expired\n" +
                            "srun: Check SLURM_JOB_ID environment variable. Expired or invalid " +
                            "job " + job + "\n");
  // It may show COMPLETING for a moment while the node cleans up.
  std::string state = squeue(job, "%T");
  for (int i = 0; i < 100 && state == "COMPLETING\n"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    state = squeue(job, "%T");
  }
  EXPECT_EQ(state, "") << "a cancelled job leaves the default squeue listing";
}

TEST_F(SlurmClusterClients, StepInAnUnknownJobFails) {
  const auto result = step("999999", {"true"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err,
            "srun: error: Unable to confirm allocation for job 999999: Invalid job id specified\n"
            "srun: Check SLURM_JOB_ID environment variable. Expired or invalid job 999999\n");
}

TEST_F(SlurmClusterClients, SallocToAMissingPartitionFails) {
  const auto result = run({"salloc", "--no-shell", "-p", "nosuch", "-N1", "-J", "nowhere"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "salloc: error: invalid partition specified: nosuch\n"
                        "salloc: error: Job submit/allocate failed: Invalid partition name "
                        "specified\n");
  EXPECT_FALSE(granted_job(result.err).has_value());
}

TEST_F(SlurmClusterClients, CancellingTheAllocationEndsARunningStep) {
  const auto job = allocate("killed-mid-step");
  ASSERT_FALSE(job.empty());
  // Cancel only once the step's task runs, so that it is the task that gets killed. squeue lists
  // the step before its task has started (under load, cancelling then ended srun with 168 and
  // none of the messages below), so the task says it started with a file (the node is this
  // machine, and the step's working directory is the cluster's).
  const auto started = cluster().dir() / ("started-" + job);
  auto sleeper = std::async(std::launch::async, [&] {
    return step(job, {"sh", "-c", "touch started-" + job + " && exec sleep 60"});
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!std::filesystem::exists(started) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(std::filesystem::exists(started)) << "the step's task never started";
  ASSERT_EQ(run({"scancel", job}).exit_code, 0);
  const auto result = sleeper.get();
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.signal, 0);
  EXPECT_EQ(result.exit_code, 143) << "128 + SIGTERM, as srun reports a task ended by SIGTERM";
  // slurmstepd's "*** STEP <job>.0 ON <node> CANCELLED AT <time> ***" reaches srun only when it
  // wins a race with the task's exit (under load it is missing about one time in 25), so nothing
  // may depend on it; srun's own line about the task is always there.
  EXPECT_NE(result.err.find("srun: error: " + cluster().node() + ": task 0: Terminated\n"),
            std::string::npos)
      << result.err;
}

TEST_F(SlurmClusterClients, ImmediateAllocationOnAFullNodeFailsAtOnce) {
  const auto holder = allocate("full", {"--exclusive"});
  ASSERT_FALSE(holder.empty());
  const auto result = run({"salloc", "--no-shell", "-p", "culprit", "-N1", "-J", "refused",
                           "--exclusive", "--immediate=1"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "salloc: error: Unable to allocate resources: Requested nodes are busy\n");
  EXPECT_FALSE(granted_job(result.err).has_value());
}

} // namespace
} // namespace culprit
