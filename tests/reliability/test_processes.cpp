// Benchmarks that hide from the process group culprit stops, a standard error nobody reads, and a
// hang-up under nohup: the timeout holds for a program that moved to another group and cleared
// its environment, such a program started in the background dies with the run, a diagnostic or a
// summary that cannot be written is dropped (never an exception or a death by SIGPIPE), and a
// SIGHUP that nohup ignores stays ignored.

#include <csignal>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using namespace std::chrono_literals;

// A perl program with an empty environment (no CULPRIT_RUN_TOKEN to find it by) that moves to
// process group GROUP (a shell expression), writes its pid, prints a sample and sleeps.
std::string hiding_program(const std::filesystem::path& pids, std::string_view group) {
  return "env -i /usr/bin/perl -e 'setpgrp(0, '\"" + std::string(group) +
         "\"') or die \"$!\"; open(my $f, \">>\", \"" + pids.string() +
         "\"); print $f \"$$\\n\"; close($f); $| = 1; print "
         "\"{\\\"type\\\":\\\"sample\\\",\\\"case\\\":\\\"k\\\",\\\"metric\\\":\\\"time\\\","
         "\\\"unit\\\":\\\"ms\\\",\\\"direction\\\":\\\"lower\\\",\\\"value\\\":1}\\n\"; sleep 30'";
}

class Processes : public ::testing::Test {
protected:
  ~Processes() override {
    // What a failed test left running is not left to the next.
    for (const auto pid : pids_in(pids))
      if (process_alive(pid))
        ::kill(pid, SIGKILL);
  }
  std::string script(std::string_view name, std::string_view text) {
    const auto file = temp / std::string(name);
    std::ofstream(file) << text;
    return file.string();
  }
  std::vector<std::string> culprit(std::vector<std::string> args) const {
    args.insert(args.begin(), {CULPRIT_EXE, "--cache-dir", (temp / "cache").string()});
    return args;
  }

  TempDir temp{"culprit-processes"};
  StepProject project{temp / "project", {.commits = 4, .step_at = 2}};
  std::filesystem::path pids = temp / "pids";
};

// The run's own process (the shell execs into it) joins culprit's group and clears its
// environment: neither the group culprit signals nor the token reaches it, its pid does.
TEST_F(Processes, AProgramThatMovedToAnotherGroupAndClearedItsEnvironmentDiesAtTheTimeout) {
  const auto program =
      script("join.sh", "exec " + hiding_program(pids, "$(cut -d' ' -f5 /proc/$PPID/stat)") + "\n");
  // `timeout` bounds a culprit that waits for ever; the program joins its group, so it ends too.
  auto command = culprit({"run", "HEAD", "--timeout", "1", "--min-runs", "2", "--max-runs", "2",
                          "--run", "exec sh " + program});
  command.insert(command.begin(), {"timeout", "60"});
  const auto start = std::chrono::steady_clock::now();
  const auto result = run_process(command, project.dir());
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_THAT(one_error_line(result), ::testing::HasSubstr("timed out"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 40s);
  EXPECT_FALSE(pids_in(pids).empty());
  expect_all_gone(pids);
}

// A program started in the background that leaves the group and clears its environment is
// still a descendant of the run when the timeout stops it.
TEST_F(Processes, ABackgroundProgramThatLeftTheGroupAndClearedItsEnvironmentDiesAtTheTimeout) {
  const auto program = script("background.sh", hiding_program(pids, "0") + " &\nsleep 30\n");
  const auto result = run_process(culprit({"run", "HEAD", "--timeout", "1", "--min-runs", "2",
                                           "--max-runs", "2", "--run", "sh " + program}),
                                  project.dir());
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_FALSE(pids_in(pids).empty());
  expect_all_gone(pids);
}

// SIGPIPE with its default action while it lives, as in a shell: a culprit started from a test
// process that ignored it would never meet the signal these tests are about.
class DefaultSigpipe {
public:
  DefaultSigpipe() {
    struct sigaction action = {};
    action.sa_handler = SIG_DFL;
    ::sigaction(SIGPIPE, &action, &m_previous);
  }
  ~DefaultSigpipe() { ::sigaction(SIGPIPE, &m_previous, nullptr); }
  DefaultSigpipe(const DefaultSigpipe&) = delete;
  DefaultSigpipe& operator=(const DefaultSigpipe&) = delete;
  DefaultSigpipe(DefaultSigpipe&&) = delete;
  DefaultSigpipe& operator=(DefaultSigpipe&&) = delete;

private:
  struct sigaction m_previous = {};
};

// Redirections for `exec "$@" ...` with $0 a FIFO: standard error onto a pipe whose reader is
// gone (the FIFO opened for reading and writing, then for writing, then the first closed).
constexpr const char* k_stderr_without_reader = "3<>\"$0\" 2>\"$0\" 3<&-";

// `command` under sh with standard error redirected by `redirect`; $0 is `fifo`.
std::vector<std::string> with_stderr(const std::string& redirect, const std::filesystem::path& fifo,
                                     std::vector<std::string> command) {
  command.insert(command.begin(), {"sh", "-c", "exec \"$@\" " + redirect, fifo.string()});
  return command;
}

// Standard error is a pipe whose reader has gone (`culprit ... 2>&1 | head -1`, an SSH session
// that dropped): the progress lines that meet it are dropped, the bisection goes on, and its exit
// code and evidence are those of a bisection watched to the end.
TEST_F(Processes, AStandardErrorWithoutAReaderLeavesTheBisectionAlone) {
  const DefaultSigpipe sigpipe;
  const auto fifo = temp / "stderr.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto json = temp / "bisect.json";
  const auto result = run_process(with_stderr(k_stderr_without_reader, fifo,
                                              culprit({"bisect", "--good", project.good(), "--bad",
                                                       project.bad(), "--json", json.string()})),
                                  project.dir());
  EXPECT_EQ(result.exit_code, 0) << result.out;
  EXPECT_THAT(result.out, ::testing::HasSubstr("culprit " + project.culprit().substr(0, 12)));
  EXPECT_TRUE(std::filesystem::exists(json));
}

// With the document on standard output, the summary goes to standard error. Where that cannot be
// written (closed, a full device, a pipe without a reader) the summary is dropped; the document
// is whole and the exit code is that of the same compare with its standard error read.
TEST_F(Processes, ASummaryThatCannotBeWrittenLeavesTheDocumentAndTheExitCodeAlone) {
  const DefaultSigpipe sigpipe;
  const auto fifo = temp / "stderr.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto compare = culprit({"compare", project.good(), project.bad(), "--json", "-"});
  const auto read = run_process(compare, project.dir());
  ASSERT_EQ(read.exit_code, 1) << read.err;
  ASSERT_EQ(nlohmann::json::parse(read.out).at("status"), "slower");
  for (const std::string redirect : {"2>&-", "2>/dev/full", k_stderr_without_reader}) {
    const auto result = run_process(with_stderr(redirect, fifo, compare), project.dir());
    EXPECT_EQ(result.exit_code, read.exit_code) << redirect;
    const auto document = nlohmann::json::parse(result.out, nullptr, false);
    ASSERT_FALSE(document.is_discarded()) << redirect << "\n" << result.out;
    EXPECT_EQ(document.at("status"), "slower") << redirect;
  }
}

// Under nohup (SIGHUP ignored when culprit starts) a hang-up is no interrupt: the bisection goes
// on to its verdict.
TEST_F(Processes, AHangupUnderNohupIsIgnored) {
  const auto slow = script("slow.sh", "sleep 0.2\nsh \"$(dirname \"$1\")/bench.sh\" \"$1\"\n");
  const auto json = temp / "bisect.json";
  auto command = culprit({"bisect", "--good", project.good(), "--bad", project.bad(), "--run",
                          "sh " + slow + " {build}/value", "--json", json.string()});
  command.insert(command.begin(), {"/bin/sh", "-c", "trap '' HUP; exec \"$@\"", "sh"});
  BackgroundProcess bisect(command, project.dir());
  std::this_thread::sleep_for(1500ms);
  bisect.signal(SIGHUP);
  const auto result = bisect.wait();
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, ::testing::HasSubstr("culprit " + project.culprit().substr(0, 12)));
  EXPECT_TRUE(std::filesystem::exists(json));
}

// A benchmark that starts a daemon the classic way before it prints its sample: a subshell forks
// it and exits at once (so the daemon is orphaned), the daemon calls setsid and runs without the
// run's token, and the benchmark waits until it is up and writes its pid to PIDS. Few programs
// and no shell of its own beyond the first, since Valgrind starts with each.
std::string daemonizing_benchmark(const std::filesystem::path& dir,
                                  const std::filesystem::path& pids) {
  return "f=" + (dir / "fifo").string() +
         ".$$\nmkfifo \"$f\" || exit 1\n"
         "(env -u CULPRIT_RUN_TOKEN setsid /bin/sh -c 'echo $$ > \"$0\"; exec sleep 30' \"$f\" "
         "> /dev/null 2>&1 &)\n"
         "read pid < \"$f\"\necho $pid >> " +
         pids.string() +
         "\nprintf '%s\\n' "
         "'{\"type\":\"sample\",\"case\":\"k\",\"metric\":\"time\",\"unit\":\"ms\","
         "\"direction\":\"lower\",\"value\":1}'\n";
}

// Nothing of such a daemon outlives its run, in the timed lane and under Valgrind, whose every
// later run a daemon left alive used to spoil.
TEST_F(Processes, ADaemonThatForkedTwiceCalledSetsidAndDroppedTheTokenDiesWithItsRun) {
  const auto program = script("daemon.sh", daemonizing_benchmark(temp.path(), pids));
  const auto result = run_process(
      culprit({"run", "HEAD", "--min-runs", "2", "--max-runs", "2", "--run", "sh " + program}),
      project.dir());
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(pids_in(pids).size(), 2U);
  expect_all_gone(pids);
}

TEST_F(Processes, ADaemonThatForkedTwiceCalledSetsidAndDroppedTheTokenDiesWithItsRunUnderValgrind) {
  if (run_process({"sh", "-c", "command -v valgrind"}, temp.path()).exit_code != 0)
    GTEST_SKIP() << "valgrind is not installed";
  const auto program = script("daemon.sh", daemonizing_benchmark(temp.path(), pids));
  const auto result = run_process(culprit({"run", "HEAD", "--instrument", "valgrind", "--min-runs",
                                           "2", "--max-runs", "2", "--run", "sh " + program}),
                                  project.dir());
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(pids_in(pids).empty());
  expect_all_gone(pids);
}

} // namespace
} // namespace culprit::testing
