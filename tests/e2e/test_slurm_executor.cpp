// The Slurm executor against stand-in salloc, srun and scancel scripts that run the real
// `culprit worker` here: every fault the cluster can throw at it, on demand.
#include <chrono>
#include <fstream>
#include <memory>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/exec/slurm_executor.hpp"
#include "core/util/fs.hpp"
#include "core/util/interrupt.hpp"
#include "core/util/text.hpp"
#include "tests/support/fake_slurm.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

class SlurmExecutorTest : public ::testing::Test {
protected:
  void SetUp() override { testing::install_fake_slurm(m_bin.path()); }

  [[nodiscard]] exec::SlurmOptions options(bool with_fakes = true) const {
    exec::SlurmOptions options;
    options.alloc_args = {"-p", "gpu", "--gres=gpu:1"};
    options.srun_args = {"--exclusive"};
    options.worker = CULPRIT_EXE;
    options.batch_root = m_cache.path() / "batches";
    options.queue_timeout = exec::Seconds(2);
    const char* path = std::getenv("PATH");
    options.env["PATH"] = with_fakes ? m_bin.path().string() + ":" + (path ? path : "/usr/bin:/bin")
                                     : std::string("/nonexistent");
    return options;
  }

  void touch(const std::string& name, const std::string& text = "") const {
    ASSERT_TRUE(write_file_atomic(m_bin.path() / name, text));
  }

  [[nodiscard]] std::vector<std::string> calls(std::string_view program) const {
    std::ifstream in(m_bin.path() / "calls");
    std::vector<std::string> found;
    for (std::string line; std::getline(in, line);)
      if (line.starts_with(program))
        found.push_back(line);
    return found;
  }

  static exec::ExecRequest echo(const std::string& text) {
    exec::ExecRequest request;
    request.command = std::vector<std::string>{"/bin/echo", text};
    return request;
  }

  TempDir m_bin;
  TempDir m_cache;
};

TEST_F(SlurmExecutorTest, RunsABatchInOneStepOfAnAllocationAndCancelsItWhenDone) {
  {
    exec::SlurmExecutor executor(options(), "lane0");
    auto device = executor.device();
    ASSERT_TRUE(device) << device.error().message;
    ASSERT_TRUE(*device);
    EXPECT_EQ((*device)->node, "fake01");
    EXPECT_EQ((*device)->job_id, "100");
    EXPECT_FALSE((*device)->host_id.empty());

    const std::vector<exec::ExecRequest> requests = {echo("one"), echo("two"), echo("three")};
    auto outcomes = executor.run_batch(requests);
    ASSERT_EQ(outcomes.size(), 3U);
    for (std::size_t i = 0; i < 3; ++i) {
      ASSERT_TRUE(outcomes[i]) << outcomes[i].error().message;
      EXPECT_TRUE(outcomes[i]->succeeded());
      EXPECT_TRUE(outcomes[i]->started_micros.has_value());
    }
    EXPECT_EQ(outcomes[1]->out, "two\n");
    ASSERT_EQ(executor.jobs().size(), 1U);
    EXPECT_EQ(executor.jobs()[0].node, "fake01");
    EXPECT_EQ(executor.jobs()[0].runs, 3);
    EXPECT_EQ(executor.batch_device()->job_id, "100");
  }
  const auto salloc = calls("salloc");
  ASSERT_EQ(salloc.size(), 1U);
  EXPECT_THAT(salloc[0], HasSubstr("--no-shell -J culprit -p gpu --gres=gpu:1"));
  const auto srun = calls("srun");
  ASSERT_EQ(srun.size(), 2U); // the device probe and the batch
  EXPECT_THAT(srun[1], HasSubstr("--jobid=100 -N1 -n1 --exclusive"));
  EXPECT_THAT(srun[1], HasSubstr(" worker "));
  EXPECT_EQ(calls("scancel"), std::vector<std::string>{"scancel 100"});
  // The batch directories are gone once their results are read.
  EXPECT_TRUE(std::filesystem::is_empty(m_cache.path() / "batches"));
}

// Lanes of a parallel run ask for their allocations at the same moment; each gets a job of its
// own. (The stand-in salloc once handed two of them a half-written job counter, and the run
// failed with "Slurm refused the allocation".)
TEST_F(SlurmExecutorTest, LanesAllocatingAtOnceEachGetTheirOwnJob) {
  constexpr int k_lanes = 8;
  std::vector<std::string> jobs(k_lanes);
  std::vector<std::string> errors(k_lanes);
  {
    std::vector<std::unique_ptr<exec::SlurmExecutor>> executors;
    for (int lane = 0; lane < k_lanes; ++lane)
      executors.push_back(
          std::make_unique<exec::SlurmExecutor>(options(), fmt::format("lane{}", lane)));
    std::vector<std::jthread> threads;
    for (int lane = 0; lane < k_lanes; ++lane) {
      threads.emplace_back([&, lane] {
        auto device = executors[lane]->device();
        if (!device)
          errors[lane] = device.error().message;
        else if (*device)
          jobs[lane] = (*device)->job_id;
      });
    }
  }
  for (int lane = 0; lane < k_lanes; ++lane)
    EXPECT_EQ(errors[lane], "") << "lane " << lane;
  const std::set<std::string> distinct(jobs.begin(), jobs.end());
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>(k_lanes));
  EXPECT_FALSE(distinct.contains(""));
  EXPECT_EQ(calls("scancel").size(), static_cast<std::size_t>(k_lanes));
}

TEST_F(SlurmExecutorTest, AStepThatFailsIsRetriedOnANewAllocation) {
  touch("fail_steps", "2");
  exec::SlurmExecutor executor(options(), "lane0");
  auto outcomes = executor.run_batch(std::vector<exec::ExecRequest>{echo("x")});
  ASSERT_TRUE(outcomes[0]) << outcomes[0].error().message;
  EXPECT_EQ(outcomes[0]->out, "x\n");
  EXPECT_EQ(executor.retries(), 2);
  ASSERT_EQ(executor.jobs().size(), 3U);
  EXPECT_THAT(executor.jobs()[0].ended, HasSubstr("Node failure on fake01"));
  EXPECT_THAT(calls("scancel"), ::testing::ElementsAre("scancel 100", "scancel 101"));
}

TEST_F(SlurmExecutorTest, StepsThatKeepFailingAreReportedAfterTheLastAttempt) {
  touch("fail_steps", "99");
  auto settings = options();
  settings.max_attempts = 2;
  exec::SlurmExecutor executor(settings, "lane0");
  auto outcomes = executor.run_batch(std::vector<exec::ExecRequest>{echo("x"), echo("y")});
  ASSERT_EQ(outcomes.size(), 2U);
  ASSERT_FALSE(outcomes[0]);
  EXPECT_EQ(outcomes[0].error().code, ExitCode::infrastructure);
  EXPECT_THAT(outcomes[0].error().message, HasSubstr("2 attempts"));
  EXPECT_THAT(outcomes[0].error().message, HasSubstr("Node failure"));
  EXPECT_EQ(calls("salloc").size(), 2U);
}

TEST_F(SlurmExecutorTest, AnAllocationSlurmRefusesIsReportedAtOnceWithSlurmsReason) {
  touch("refuse");
  exec::SlurmExecutor executor(options(), "lane0");
  auto device = executor.device();
  ASSERT_FALSE(device);
  EXPECT_EQ(device.error().code, ExitCode::infrastructure);
  EXPECT_THAT(device.error().message, HasSubstr("Slurm refused the allocation"));
  EXPECT_THAT(device.error().message, HasSubstr("Invalid partition name specified"));
  EXPECT_THAT(device.error().message, HasSubstr("sbatch_args"));
  EXPECT_EQ(calls("salloc").size(), 1U); // not worth asking again
  EXPECT_TRUE(calls("srun").empty());
}

TEST_F(SlurmExecutorTest, AnAllocationThatWaitsTooLongInTheQueueIsAskedForAgainThenReported) {
  touch("queue");
  auto settings = options();
  settings.queue_timeout = exec::Seconds(0.3);
  settings.max_attempts = 2;
  exec::SlurmExecutor executor(settings, "lane0");
  auto device = executor.device();
  ASSERT_FALSE(device);
  EXPECT_EQ(device.error().code, ExitCode::infrastructure);
  EXPECT_THAT(device.error().message, HasSubstr("no allocation was granted within"));
  EXPECT_EQ(calls("salloc").size(), 2U);
}

TEST_F(SlurmExecutorTest, MissingSlurmToolsSayWhatToInstall) {
  exec::SlurmExecutor executor(options(false), "lane0");
  auto outcomes = executor.run_batch(std::vector<exec::ExecRequest>{echo("x")});
  ASSERT_FALSE(outcomes[0]);
  EXPECT_EQ(outcomes[0].error().code, ExitCode::infrastructure);
  EXPECT_THAT(outcomes[0].error().message, HasSubstr("salloc"));
  EXPECT_THAT(outcomes[0].error().message, HasSubstr("--executor local"));
}

TEST_F(SlurmExecutorTest, AWorkerThatLeftNoResultsOrCutResultsFailsTheWholeBatch) {
  {
    exec::SlurmExecutor executor(options(), "lane0");
    ASSERT_TRUE(executor.device());
    touch("skip_worker");
    auto outcomes = executor.run_batch(std::vector<exec::ExecRequest>{echo("x")});
    ASSERT_FALSE(outcomes[0]);
    EXPECT_EQ(outcomes[0].error().code, ExitCode::infrastructure);
    EXPECT_THAT(outcomes[0].error().message, HasSubstr("node.json"));
  }
  std::filesystem::remove(m_bin.path() / "skip_worker");
  touch("cut");
  exec::SlurmExecutor executor(options(), "lane0");
  auto outcomes = executor.run_batch(std::vector<exec::ExecRequest>{echo("x"), echo("y")});
  ASSERT_EQ(outcomes.size(), 2U);
  for (const auto& outcome : outcomes) {
    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().code, ExitCode::infrastructure);
    EXPECT_THAT(outcome.error().message, HasSubstr("cut line"));
  }
}

TEST_F(SlurmExecutorTest, AnInterruptKeepsTheFinishedRunsAndCancelsTheAllocation) {
  exec::SlurmExecutor executor(options(), "lane0");
  ASSERT_TRUE(executor.device());
  exec::ExecRequest slow;
  slow.command = std::vector<std::string>{"/bin/sleep", "20"};
  const std::vector<exec::ExecRequest> requests = {echo("done"), slow, echo("never")};
  // The interrupt comes while the second request sleeps: late enough that the first has ended
  // even with both cores busy (at 1.5 s, under a loaded test suite, it sometimes had not).
  std::jthread interrupter([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(4000));
    request_interrupt(SIGINT);
  });
  const auto start = std::chrono::steady_clock::now();
  auto outcomes = executor.run_batch(requests);
  interrupter.join();
  clear_interrupt();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
  ASSERT_EQ(outcomes.size(), 3U);
  ASSERT_TRUE(outcomes[0]) << outcomes[0].error().message;
  EXPECT_EQ(outcomes[0]->out, "done\n");
  for (std::size_t i = 1; i < 3; ++i) {
    ASSERT_FALSE(outcomes[i]);
    EXPECT_EQ(outcomes[i].error().code, ExitCode::interrupted);
  }
  EXPECT_EQ(calls("scancel"), std::vector<std::string>{"scancel 100"});
  EXPECT_EQ(executor.jobs()[0].ended, "interrupted");
}

TEST_F(SlurmExecutorTest, AnInterruptIsAnInterruptEvenWhenTheResultsCannotBeRead) {
  exec::SlurmExecutor executor(options(), "lane0");
  ASSERT_TRUE(executor.device());
  touch("garbage");
  std::jthread interrupter([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    request_interrupt(SIGTERM);
  });
  auto outcomes = executor.run_batch(std::vector<exec::ExecRequest>{echo("x")});
  interrupter.join();
  clear_interrupt();
  ASSERT_FALSE(outcomes[0]);
  EXPECT_EQ(outcomes[0].error().code, ExitCode::interrupted) << outcomes[0].error().message;
  EXPECT_EQ(calls("scancel"), std::vector<std::string>{"scancel 100"});
}

TEST(SlurmArguments, AStringIsSplitAtWhitespace) {
  EXPECT_EQ(split_arguments("  -p gpu\t--gres=gpu:1 --exclusive "),
            (std::vector<std::string>{"-p", "gpu", "--gres=gpu:1", "--exclusive"}));
  EXPECT_TRUE(split_arguments("").empty());
}

} // namespace
} // namespace culprit
