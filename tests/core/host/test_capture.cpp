#include "core/host/capture.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

#include <unistd.h>

namespace culprit::host {
namespace {

Captured sh(const std::string& script, CaptureOptions options = {}) {
  auto captured = capture_program({"/bin/sh", "-c", script}, options);
  EXPECT_TRUE(captured) << captured.error().message;
  return captured.value_or(Captured{});
}

CaptureOptions with_timeout(std::chrono::milliseconds timeout) {
  CaptureOptions options;
  options.timeout = timeout;
  return options;
}

TEST(Capture, CollectsStdoutStderrAndTheExitCode) {
  const auto captured = sh("echo out; echo err >&2; exit 3");
  EXPECT_EQ(captured.out, "out\n");
  EXPECT_EQ(captured.err, "err\n");
  EXPECT_EQ(captured.exit_code, 3);
  EXPECT_FALSE(captured.succeeded());
  EXPECT_TRUE(sh("true").succeeded());
}

TEST(Capture, StdinIsEmpty) {
  EXPECT_EQ(sh("cat; echo done").out, "done\n");
}

TEST(Capture, AHungProgramIsKilledAtTheDeadlineWithItsChildren) {
  const auto start = std::chrono::steady_clock::now();
  const auto captured =
      sh("echo started; sleep 30 & sleep 30", with_timeout(std::chrono::seconds(1)));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(captured.timed_out);
  EXPECT_EQ(captured.signal, SIGKILL);
  EXPECT_EQ(captured.out, "started\n");
  EXPECT_LT(elapsed, std::chrono::seconds(10));
}

TEST(Capture, AGrandchildHoldingThePipeDoesNotHoldTheCaptureForever) {
  const auto captured = sh("sleep 30 & echo parent done", with_timeout(std::chrono::seconds(1)));
  EXPECT_TRUE(captured.timed_out);
  EXPECT_EQ(captured.out, "parent done\n");
}

TEST(Capture, OutputIsCapped) {
  CaptureOptions options;
  options.max_output = 10;
  const auto captured = sh("yes | head -c 100000", options);
  EXPECT_EQ(captured.out.size(), 10U);
  EXPECT_TRUE(captured.succeeded());
}

TEST(Capture, EnvironmentOverridesAndExtends) {
  CaptureOptions options;
  options.environment = {"CULPRIT_CAPTURE_TEST=yes", "HOME=/nowhere"};
  EXPECT_EQ(sh("echo $CULPRIT_CAPTURE_TEST $HOME", options).out, "yes /nowhere\n");
}

TEST(Capture, AMissingProgramIsAnError) {
  auto captured = capture_program({"/no/such/program"});
  ASSERT_FALSE(captured);
  EXPECT_NE(captured.error().message.find("/no/such/program"), std::string::npos);
}

TEST(FindOnPath, FindsExecutablesAndOnlyThose) {
  EXPECT_EQ(find_on_path("sh").value_or("").filename(), "sh");
  EXPECT_FALSE(find_on_path("culprit-no-such-program-anywhere"));
  EXPECT_EQ(find_on_path("/bin/sh"), std::filesystem::path("/bin/sh"));
  char name[] = "/tmp/culprit-not-executable-XXXXXX";
  const int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  close(fd);
  EXPECT_FALSE(find_on_path(name));
  std::filesystem::remove(name);
}

} // namespace
} // namespace culprit::host
