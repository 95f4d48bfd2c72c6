// A benchmark that leaves its process group, and a terminal that hangs up: no process of a run
// outlives it, at the timeout or at its end, and SIGHUP stops culprit like Ctrl-C, keeping the
// evidence (exit 130).

#include <csignal>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>

#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

class Strays : public ::testing::Test {
protected:
  std::string script(std::string_view name, std::string_view text) {
    const auto file = temp / std::string(name);
    std::ofstream(file) << text;
    return "sh " + file.string() + " {build}/value";
  }
  std::vector<std::string> with_cache(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--cache-dir", (temp / "cache").string()});
    return args;
  }

  TempDir temp{"culprit-strays"};
  StepProject project{temp / "project", {.commits = 4, .step_at = 2}};
  std::filesystem::path pids = temp / "pids";
};

// A program that leaves the group (setpgid(0, 0)), writes its pid, prints its samples and sleeps.
std::string leaving_program(const std::filesystem::path& pids) {
  return "perl -e 'setpgrp(0, 0); open(my $f, \">>\", \"" + pids.string() +
         "\"); print $f \"$$\\n\"; close($f); $| = 1; for (1..5) { print "
         "\"{\\\"type\\\":\\\"sample\\\",\\\"case\\\":\\\"k\\\",\\\"metric\\\":\\\"time\\\","
         "\\\"unit\\\":\\\"ms\\\",\\\"direction\\\":\\\"lower\\\",\\\"value\\\":1}\\n\" } "
         "sleep 30'\n";
}

TEST_F(Strays, AProgramThatLeftItsGroupDiesAtTheTimeout) {
  const auto result =
      run_culprit(with_cache({"run", "HEAD", "--timeout", "1", "--min-runs", "2", "--max-runs", "2",
                              "--run", script("leave.sh", leaving_program(pids))}),
                  project.dir());
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_FALSE(pids_in(pids).empty());
  expect_all_gone(pids);
}

TEST_F(Strays, AProgramThatLeftItsGroupDiesWhenTheRunEnds) {
  const auto background = "(" + leaving_program(pids) + ") > /dev/null &\nsleep 0.1\n" +
                          "sh \"$(dirname \"$1\")/bench.sh\" \"$1\"\n";
  const auto result = run_culprit(with_cache({"run", "HEAD", "--min-runs", "3", "--max-runs", "3",
                                              "--run", script("background.sh", background)}),
                                  project.dir());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_GE(pids_in(pids).size(), 3U);
  expect_all_gone(pids);
}

TEST_F(Strays, HangupStopsABisectionLikeCtrlCAndKeepsTheEvidence) {
  const auto slow =
      script("slow.sh", "echo $$ >> " + pids.string() +
                            "\nsleep 0.3\nsh \"$(dirname \"$1\")/bench.sh\" \"$1\"\n");
  const auto json = temp / "bisect.json";
  auto culprit = start_culprit(with_cache({"bisect", "--good", project.good(), "--bad",
                                           project.bad(), "--run", slow, "--json", json.string()}),
                               project.dir());
  std::this_thread::sleep_for(1500ms);
  culprit.signal(SIGHUP);
  const auto stopped = culprit.wait();
  ASSERT_EQ(stopped.exit_code, 130) << stopped.err;
  EXPECT_THAT(one_error_line(stopped), HasSubstr("the evidence so far is in "));
  EXPECT_TRUE(std::filesystem::exists(json));
  expect_all_gone(pids);
}

// A culprit killed with SIGKILL cannot remove its scratch directory; the next command does.
TEST_F(Strays, TheScratchDirectoryOfAKilledCulpritIsRemovedByTheNext) {
  const auto slow = script("slow.sh", "sleep 0.3\nsh \"$(dirname \"$1\")/bench.sh\" \"$1\"\n");
  auto culprit = start_culprit(with_cache({"run", "HEAD", "--run", slow}), project.dir());
  const auto scratch = temp / "cache";
  std::filesystem::path left;
  for (int tries = 0; tries < 1000 && left.empty(); ++tries) {
    std::this_thread::sleep_for(20ms);
    // The cache appears, and changes, while culprit starts: no error stops the look.
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(scratch, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
      if (it->path().filename() == std::to_string(culprit.pid()) &&
          it->path().parent_path().filename() == "scratch")
        left = it->path();
  }
  ASSERT_FALSE(left.empty()) << "no scratch directory appeared";
  culprit.signal(SIGKILL);
  culprit.wait();
  ASSERT_TRUE(std::filesystem::exists(left));
  const auto next =
      run_culprit(with_cache({"run", "HEAD", "--min-runs", "2", "--max-runs", "2"}), project.dir());
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_FALSE(std::filesystem::exists(left));
}

} // namespace
} // namespace culprit::testing
