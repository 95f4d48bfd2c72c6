// Standard error closed or on a full device: diagnostics that cannot be written are dropped, and
// the exit code stays the command's (never an abort).

#include <fstream>

#include <gmock/gmock.h>
#include <sys/stat.h>

#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

TEST(Streams, AClosedOrFullStandardErrorLeavesTheExitCodeAlone) {
  TempDir temp("culprit-streams");
  StepProject project(temp / "project", {.commits = 3, .step_at = 1});
  const std::string culprit_command =
      std::string(CULPRIT_EXE) + " --cache-dir " + (temp / "cache").string();
  struct Case {
    std::string args;
    int exit_code;
  };
  // A warning (the noisy host, the interval left wide) and a result; a usage error; a compare.
  const std::vector<Case> cases = {
      {" run HEAD --min-runs 2 --max-runs 2 --threshold 0.1%", -1},
      {" run HEAD --frobnicate", 2},
      {" compare " + project.good() + " " + project.bad(), 1},
  };
  for (const auto& c : cases) {
    const auto open = run_process({"sh", "-c", culprit_command + c.args}, project.dir());
    const int expected = c.exit_code >= 0 ? c.exit_code : open.exit_code;
    EXPECT_EQ(open.exit_code, expected) << c.args << "\n" << open.err;
    for (const auto* redirect : {" 2>&-", " 2>/dev/full"}) {
      const auto result =
          run_process({"sh", "-c", culprit_command + c.args + redirect}, project.dir());
      EXPECT_EQ(result.exit_code, expected) << c.args << redirect << "\n" << result.out;
    }
  }
}

// A FIFO nobody writes to is refused at once, with what to do; a pipe whose writer takes its
// time is read when the writer is done.
TEST(Streams, AFifoWithoutAWriterIsRefusedAndASlowWriterIsWaitedFor) {
  TempDir temp("culprit-fifo");
  StepProject project(temp / "project", {.commits = 2, .step_at = 1});
  const auto fifo = temp / "results.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string culprit_command =
      std::string(CULPRIT_EXE) + " --cache-dir " + (temp / "cache").string();
  const auto refused =
      run_process({"timeout", "20", "sh", "-c",
                   culprit_command + " import " + fifo.string() + " --commit HEAD"},
                  project.dir());
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_THAT(one_error_line(refused), ::testing::HasSubstr("no program holds open for writing"));

  std::ofstream(temp / "results.jsonl")
      << "{\"type\":\"sample\",\"case\":\"k\",\"metric\":\"time\",\"unit\":\"ms\","
         "\"direction\":\"lower\",\"value\":1.5}\n";
  const auto slow = run_process({"timeout", "20", "bash", "-c",
                                 culprit_command + " import <(sleep 0.5; cat " +
                                     (temp / "results.jsonl").string() + ") --commit HEAD"},
                                project.dir());
  EXPECT_EQ(slow.exit_code, 0) << slow.err;
  EXPECT_THAT(slow.out, ::testing::HasSubstr("imported"));
}

} // namespace
} // namespace culprit::testing
