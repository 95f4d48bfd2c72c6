// Processes of a run that hide from its process group and from its token (they cleared their
// environment): the child itself is stopped by its pid, and its descendants by their parent links.

#include "core/exec/strays.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/exec/local_executor.hpp"
#include "core/exec/spawn.hpp"
#include "core/exec/unique_fd.hpp"
#include "tests/core/exec/exec_test_support.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using testing::argv_request;
using testing::has_no_children;
using testing::process_gone;
using testing::shell_request;
using testing::TempDir;
using namespace std::chrono_literals;

// A run's environment holds its token; a counted run (--instrument valgrind) executes startup
// code that walks the environment, so tokens of different lengths made the first ten runs of a
// program count 14 instructions more than the rest, and an exact comparison fail.
TEST(RunToken, EveryTokenDiffersAndHasTheSameLength) {
  std::vector<std::string> tokens;
  for (int i = 0; i < 120; ++i)
    tokens.push_back(exec::new_run_token());
  for (const auto& token : tokens)
    EXPECT_EQ(token.size(), tokens.front().size()) << token << " vs " << tokens.front();
  std::ranges::sort(tokens);
  EXPECT_EQ(std::ranges::adjacent_find(tokens), tokens.end());
}

TEST(Strays, DescendantsAreFoundThroughEveryGenerationAndSession) {
  std::array<int, 2> fds{};
  ASSERT_EQ(::pipe(fds.data()), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Only async-signal-safe calls here: the test process may have threads.
    const pid_t grandchild = ::fork();
    if (grandchild == 0) {
      ::setsid();
      ::pause();
      ::_exit(0);
    }
    [[maybe_unused]] const auto wrote = ::write(fds[1], &grandchild, sizeof grandchild);
    ::pause();
    ::_exit(0);
  }
  ::close(fds[1]);
  pid_t grandchild = 0;
  const auto got = ::read(fds[0], &grandchild, sizeof grandchild);
  ::close(fds[0]);
  const auto of_this = exec::descendants_of(::getpid());
  const auto of_child = exec::descendants_of(child);
  if (got == sizeof grandchild)
    ::kill(grandchild, SIGKILL);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_EQ(got, static_cast<ssize_t>(sizeof grandchild));
  EXPECT_NE(std::ranges::find(of_this, child), of_this.end());
  EXPECT_NE(std::ranges::find(of_this, grandchild), of_this.end());
  EXPECT_EQ(std::ranges::find(of_this, ::getpid()), of_this.end());
  EXPECT_EQ(of_child, std::vector<pid_t>{grandchild});
}

// The run's own process moves into this process's group and clears its environment: signalling
// its group reaches nothing, and no token is there to find it by.
TEST(Strays, AChildThatMovedToAnotherGroupAndClearedItsEnvironmentDiesAtTheTimeout) {
  TempDir temp("culprit-strays");
  const auto pid_file = temp / "pid";
  auto request =
      argv_request({"/usr/bin/env", "-i", "/usr/bin/perl", "-e",
                    "setpgrp(0, " + std::to_string(::getpgrp()) + ") or die; open(my $f, '>', '" +
                        pid_file.string() + "'); print $f $$; close($f); sleep 30"});
  request.timeout = exec::Seconds(0.5);
  request.kill_grace = exec::Seconds(0.1);
  auto run = std::async(std::launch::async, [&] { return exec::LocalExecutor().run(request); });
  if (run.wait_for(10s) != std::future_status::ready) {
    ADD_FAILURE() << "the run outlived its timeout by ten seconds";
    std::ifstream in(pid_file);
    if (pid_t pid = 0; in >> pid)
      ::kill(pid, SIGKILL);
  }
  const auto result = run.get();
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(result->timed_out);
}

// A background process that left the group and cleared its environment is still the child's
// descendant when the timeout comes, and is stopped with the group.
TEST(Strays, ABackgroundProcessThatLeftTheGroupAndClearedItsEnvironmentDiesAtTheTimeout) {
  auto request = shell_request("env -i setsid sleep 30 & echo $!; sleep 30");
  request.timeout = exec::Seconds(0.5);
  request.kill_grace = exec::Seconds(0.1);
  exec::LocalExecutor executor;
  const auto result = executor.run(request);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(result->timed_out);
  EXPECT_TRUE(process_gone(std::stoi(result->out)));
}

// A benchmark that starts a daemon the classic way: a subshell forks it and exits at once (so the
// daemon is orphaned), the daemon calls setsid and runs without the run's token, and the benchmark
// waits until it is up. No group, token or parent link of the command leads to it once it runs.
std::string daemonizing_command(const std::filesystem::path& fifo) {
  return "mkfifo '" + fifo.string() +
         "' && (env -u CULPRIT_RUN_TOKEN setsid /bin/sh -c 'echo $$ > \"$0\"; exec sleep 30' '" +
         fifo.string() + "' > /dev/null 2>&1 &) && read pid < '" + fifo.string() + "' && echo $pid";
}

// The daemon's pid from the run's output; a daemon that outlived the test is killed here.
bool daemon_gone(const std::string& out) {
  const pid_t daemon = std::stoi(out);
  const bool gone = process_gone(daemon);
  if (!gone)
    ::kill(daemon, SIGKILL);
  return gone;
}

TEST(Strays, ADaemonThatForkedTwiceCalledSetsidAndDroppedTheTokenDiesWhenTheRunEnds) {
  TempDir temp("culprit-strays");
  auto request = shell_request(daemonizing_command(temp / "fifo"));
  request.contain = true;
  const auto result = exec::LocalExecutor().run(request);
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_TRUE(result->succeeded()) << result->err;
  EXPECT_TRUE(daemon_gone(result->out)) << "the daemon outlived its run";
  EXPECT_TRUE(result->notes.empty());
  EXPECT_TRUE(has_no_children()) << "everything of the run is reaped when run() returns";
}

TEST(Strays, ADaemonThatForkedTwiceCalledSetsidAndDroppedTheTokenDiesAtTheTimeout) {
  TempDir temp("culprit-strays");
  auto request = shell_request(daemonizing_command(temp / "fifo") + "; sleep 30");
  request.contain = true;
  // Long enough for the daemon to start and say its pid on a loaded machine or under ASan.
  request.timeout = exec::Seconds(3);
  request.kill_grace = exec::Seconds(0.1);
  const auto result = exec::LocalExecutor().run(request);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(result->timed_out);
  ASSERT_FALSE(result->out.empty()) << "the daemon did not start before the timeout";
  EXPECT_TRUE(daemon_gone(result->out)) << "the daemon outlived its run";
}

// Runs made at once (lanes, duets) each kill their own daemons, and the processes are reaped by
// their keepers alone: a child this process started itself keeps its exit status for it.
TEST(Strays, RunsAtOnceEachKillTheirOwnDaemonsAndTakeNoOtherChildsStatus) {
  TempDir temp("culprit-strays");
  const pid_t own = ::fork();
  ASSERT_GE(own, 0);
  if (own == 0) {
    ::pause(); // until the test has run, then killed
    ::_exit(0);
  }
  std::vector<std::future<Result<exec::ExecResult>>> runs;
  for (int i = 0; i < 2; ++i) {
    auto request = shell_request(daemonizing_command(temp / ("fifo" + std::to_string(i))));
    request.contain = true;
    runs.push_back(
        std::async(std::launch::async, [request] { return exec::LocalExecutor().run(request); }));
  }
  for (auto& run : runs) {
    const auto result = run.get();
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_TRUE(daemon_gone(result->out)) << "the daemon outlived its run";
  }
  ::kill(own, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(own, &status, 0), own);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  EXPECT_TRUE(has_no_children());
}

// Starts `argv` under a keeper, its output on /dev/null.
Result<exec::ChildProcess> spawn_kept(const std::vector<std::string>& argv) {
  const auto request = argv_request(argv);
  CULPRIT_TRY_ASSIGN(const exec::LaunchPlan plan, exec::plan_launch(request));
  const exec::UniqueFd null_fd(::open("/dev/null", O_WRONLY | O_CLOEXEC));
  return exec::spawn_child(plan, request, null_fd.get(), null_fd.get(), exec::Keeping::yes);
}

// A kept run's wall time is the command's own, taken by its keeper just before it starts it and
// just after its wait for it returns: the fork of culprit, the keeper's set-up, its report and its
// clean-up are outside it. Measured by the same clock, it lies within the time seen from outside.
TEST(LocalExecutorKeeper, TheReportCarriesTheCommandsOwnElapsedTime) {
  const auto before = std::chrono::steady_clock::now();
  auto child = spawn_kept({"/bin/true"});
  ASSERT_TRUE(child) << child.error().message;
  const auto exit = child->reap();
  const auto outside = std::chrono::steady_clock::now() - before;
  EXPECT_TRUE(WIFEXITED(exit.status) && WEXITSTATUS(exit.status) == 0);
  EXPECT_GT(exit.elapsed_ns, 0) << "the keeper did not report the command's elapsed time";
  EXPECT_LE(exit.elapsed_ns, std::chrono::duration_cast<std::chrono::nanoseconds>(outside).count());
}

// The executor reports the keeper's measure as the run's wall time, which the outer clock
// (from before the keeper's fork to after its clean-up) bounds.
TEST(LocalExecutorKeeper, AContainedRunsWallTimeIsWithinTheTimeSeenFromOutside) {
  auto request = argv_request({"/bin/true"});
  request.contain = true;
  const auto before = std::chrono::steady_clock::now();
  const auto result = exec::LocalExecutor().run(request);
  const exec::Seconds outside = std::chrono::steady_clock::now() - before;
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_GT(result->wall.count(), 0.0);
  EXPECT_LE(result->wall.count(), outside.count());
}

// A keeper killed by someone else (the OOM killer) takes its command along: the command would
// otherwise run on below init, unsupervised.
TEST(LocalExecutorKeeper, AKilledKeeperTakesItsCommandAlong) {
  auto child = spawn_kept({"/bin/sleep", "30"});
  ASSERT_TRUE(child) << child.error().message;
  const pid_t command = child->pid();
  ASSERT_GT(child->keeper(), 0);
  ASSERT_EQ(::kill(child->keeper(), SIGKILL), 0);
  const auto exit = child->reap();
  EXPECT_TRUE(WIFSIGNALED(exit.status) && WTERMSIG(exit.status) == SIGKILL);
  const bool gone = process_gone(command);
  if (!gone)
    ::kill(command, SIGKILL);
  EXPECT_TRUE(gone) << "the command outlived its keeper";
  EXPECT_TRUE(has_no_children());
}

// Without close_range the descriptors are found in /proc/self/fd, so that one above the number
// that would otherwise bound the closing (RLIMIT_NOFILE, lowered after it was opened) is closed
// too, and the kept ones stay open.
TEST(LocalExecutorKeeper, WithoutCloseRangeOnlyTheKeptDescriptorsStayOpen) {
  constexpr int k_high = 900;
  constexpr long k_open_max = 64;
  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  if (limit.rlim_cur <= static_cast<rlim_t>(k_high))
    GTEST_SKIP() << "RLIMIT_NOFILE is too low to open descriptor " << k_high;
  std::array<int, 2> fds{};
  ASSERT_EQ(::pipe(fds.data()), 0);
  const exec::UniqueFd low(::open("/dev/null", O_RDONLY));
  ASSERT_GE(low.get(), 0);
  ASSERT_EQ(::dup2(low.get(), k_high), k_high);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Only async-signal-safe calls here: the test process may have threads.
    const std::array<int, 1> kept{fds[1]};
    exec::close_other_descriptors(kept, k_open_max, exec::CloseRange::skip);
    std::array<int, 16> open_fds{};
    std::size_t count = 0;
    for (int fd = 3; fd < 1024 && count < open_fds.size(); ++fd)
      if (::fcntl(fd, F_GETFD) != -1)
        open_fds.at(count++) = fd;
    [[maybe_unused]] const auto wrote = ::write(fds[1], open_fds.data(), count * sizeof(int));
    ::_exit(0);
  }
  ::close(k_high);
  ::close(fds[1]);
  std::array<int, 16> open_fds{};
  std::size_t got = 0;
  while (true) {
    const auto n =
        ::read(fds[0], reinterpret_cast<char*>(open_fds.data()) + got, sizeof open_fds - got);
    if (n <= 0)
      break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::vector<int> still_open(
      open_fds.begin(), open_fds.begin() + static_cast<std::ptrdiff_t>(got / sizeof(int)));
  EXPECT_EQ(still_open, std::vector<int>{fds[1]});
}

} // namespace
} // namespace culprit
