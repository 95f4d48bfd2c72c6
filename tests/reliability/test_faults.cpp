// Fault injection: benchmarks that crash, hang, leave children behind, flood their output or fail
// now and then; a build that hangs; SIGINT and SIGTERM in the middle of a bisection. culprit must
// end each with the documented exit code, keep the store sound, count no failed run, and finish
// an interrupted bisection with the same answer when run again. (tests/benchmarks/bench_faults
// repeats the interruptions a hundred times at random moments.)

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <map>
#include <thread>

#include <gmock/gmock.h>

#include "core/evidence/evidence.hpp"
#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

class Faults : public ::testing::Test {
protected:
  ProcessOutput culprit_cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--cache-dir", cache().string()});
    return run_culprit(args, project.dir());
  }
  BackgroundProcess culprit_background(std::vector<std::string> args,
                                       const std::map<std::string, std::string>& env = {}) {
    args.insert(args.begin(), {"--cache-dir", cache().string()});
    return start_culprit(args, project.dir(), env);
  }
  // A benchmark script outside the repository, for --run "sh SCRIPT {build}/value".
  std::string script(std::string_view name, std::string_view text) {
    const auto file = temp / std::string(name);
    std::ofstream(file) << text;
    return "sh " + file.string() + " {build}/value";
  }
  [[nodiscard]] std::filesystem::path cache() const { return temp / "cache"; }

  TempDir temp{"culprit-faults"};
  StepProject project{temp / "project", {.commits = 6, .step_at = 3}};
};

// Prints the five samples the project's own benchmark prints.
constexpr std::string_view k_samples = "sh \"$(dirname \"$1\")/bench.sh\" \"$1\"\n";

TEST_F(Faults, ABenchmarkThatSegfaultsIsAnInfrastructureErrorNamingTheSignal) {
  const auto result = culprit_cli({"run", "HEAD", "--run", script("crash.sh", "kill -SEGV $$\n")});
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_THAT(one_error_line(result), HasSubstr("Segmentation fault"));
  const auto health = inspect_store(cache());
  EXPECT_EQ(health.integrity, "ok");
  EXPECT_EQ(health.ok_runs, 0);
  EXPECT_GE(health.runs, 5);
}

TEST_F(Faults, ABenchmarkThatHangsTimesOutAndIsStopped) {
  const auto start = std::chrono::steady_clock::now();
  const auto result =
      culprit_cli({"run", "HEAD", "--timeout", "0.3", "--run", script("hang.sh", "sleep 1000\n")});
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_THAT(one_error_line(result), HasSubstr("timed out"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
  EXPECT_EQ(inspect_store(cache()).ok_runs, 0);
}

TEST_F(Faults, AChildThatOutlivesTheBenchmarkIsKilledWithIt) {
  const auto pids = temp / "pids";
  const auto run =
      script("fork.sh", "(sleep 30; touch " + (temp / "leaked").string() + ") &\necho $! >> " +
                            pids.string() + "\n" + std::string(k_samples));
  const auto result =
      culprit_cli({"run", "HEAD", "--min-runs", "3", "--max-runs", "3", "--run", run});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(pids_in(pids).size(), 3U);
  expect_all_gone(pids); // a child just killed may wait a moment for a CPU to die on
  EXPECT_FALSE(std::filesystem::exists(temp / "leaked"));
}

TEST_F(Faults, AGigabyteOfOutputIsCutAtTheLimitWithBoundedMemory) {
  const auto run = script("flood.sh", std::string(k_samples) + "head -c 1073741824 /dev/zero\n");
  // Under AddressSanitizer, freed memory waits in a quarantine of up to 256 MiB that counts in the
  // resident set; a small one keeps the figure about culprit's own memory (Release ignores it).
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string options = std::string(asan != nullptr ? asan : "") +
                              (asan != nullptr && *asan != '\0' ? ":" : "") +
                              "quarantine_size_mb=16";
  auto culprit = culprit_background(
      {"run", "HEAD", "--min-runs", "2", "--max-runs", "2", "--warmup", "0", "--run", run},
      {{"ASAN_OPTIONS", options}});
  const auto result = culprit.wait();
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // 64 MiB of stdout are kept per run; the rest is read and dropped.
  EXPECT_LT(culprit.max_rss_kb(), 400 * 1024);
}

TEST_F(Faults, ABenchmarkThatFailsInThreeRunsOfTenStillGetsMeasured) {
  const auto counter = temp / "counter";
  std::ofstream(counter) << "0\n";
  const auto run = script(
      "flaky.sh", "n=$(cat " + counter.string() + ")\necho $((n + 1)) > " + counter.string() +
                      "\nif [ $((n % 10)) -lt 3 ]; then exit 1; fi\n" + std::string(k_samples));
  const auto result =
      culprit_cli({"run", "HEAD", "--min-runs", "5", "--max-runs", "5", "--run", run});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto health = inspect_store(cache());
  EXPECT_EQ(health.integrity, "ok");
  EXPECT_EQ(health.ok_runs, 5); // the failed runs are recorded, and none of them counts
  EXPECT_GE(health.runs, 8);
}

TEST_F(Faults, ABuildThatHangsTimesOutIsRecordedAndNotRetriedUnlessAsked) {
  std::ofstream(temp / "hang.toml") << "[build]\ncommand = \"sleep 1000\"\ntimeout = 1\n"
                                       "[run]\ncommand = \"true\"\n";
  const auto config = (temp / "hang.toml").string();
  const auto first = culprit_cli({"--config", config, "build", "HEAD"});
  EXPECT_EQ(first.exit_code, 4) << first.err;
  EXPECT_THAT(first.out + first.err, HasSubstr("timed out"));
  const auto again = culprit_cli({"--config", config, "build", "HEAD"});
  EXPECT_EQ(again.exit_code, 4);
  EXPECT_THAT(again.out + again.err, HasSubstr("--rebuild"));
}

TEST_F(Faults, SigintDuringAHungBuildExits130AndRecordsNoBuild) {
  std::ofstream(temp / "hang.toml") << "[build]\ncommand = \"sleep 1000\"\n"
                                       "[run]\ncommand = \"true\"\n";
  auto culprit = culprit_background({"--config", (temp / "hang.toml").string(), "build", "HEAD"});
  std::this_thread::sleep_for(500ms);
  culprit.signal(SIGINT);
  ASSERT_TRUE(culprit.wait_for(10s)) << "culprit did not stop on SIGINT";
  const auto result = culprit.wait();
  EXPECT_EQ(result.exit_code, 130) << result.err;
  EXPECT_THAT(result.err, HasSubstr("interrupted"));
  // Nothing was recorded about the build: the next attempt builds again.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(cache()))
    EXPECT_NE(entry.path().parent_path().filename(), "builds") << entry.path();
  const auto build = culprit_cli({"build", "HEAD"});
  EXPECT_EQ(build.exit_code, 0) << build.err;
}

std::string culprit_of(const std::filesystem::path& evidence_file) {
  auto evidence = evidence::load_evidence(evidence_file);
  if (!evidence || !evidence->bisect || evidence->bisect->culprits.size() != 1)
    return "(no single culprit)";
  return evidence->bisect->culprits.front().commit;
}

TEST_F(Faults, AnInterruptedBisectionResumesToTheSameCulprit) {
  const std::vector<std::pair<int, std::chrono::milliseconds>> trials = {
      {SIGINT, 150ms}, {SIGTERM, 400ms}, {SIGINT, 900ms}};
  for (const auto& [signal_number, delay] : trials) {
    SCOPED_TRACE(::testing::Message()
                 << "signal " << signal_number << " after " << delay.count() << " ms");
    std::filesystem::remove_all(cache());
    const auto json = (temp / "bisect.json").string();
    const std::vector<std::string> bisect = {
        "bisect", "--good", project.good(), "--bad", project.bad(), "--json", json};
    auto first = culprit_background(bisect);
    // The delay counts from culprit's start: its cache appears once main runs, with its signal
    // handlers in place (a slow start under a sanitizer can take longer than the shortest delay).
    for (int tries = 0; tries < 200 && !std::filesystem::exists(cache()); ++tries)
      std::this_thread::sleep_for(10ms);
    std::this_thread::sleep_for(delay);
    first.signal(signal_number);
    const auto stopped = first.wait();
    ASSERT_THAT(stopped.exit_code, AnyOf(130, 0)) << stopped.err;
    if (stopped.exit_code == 130) {
      // A loaded machine may not have started the bisection yet: then nothing was lost either.
      EXPECT_THAT(one_error_line(stopped),
                  AnyOf(HasSubstr("run the same command again to resume"),
                        HasSubstr("interrupted before anything was built or measured")));
    }
    const auto kept = inspect_store(cache());
    if (kept.integrity != "missing") {
      EXPECT_EQ(kept.integrity, "ok");
      EXPECT_EQ(kept.ok_runs_without_samples, 0);
      EXPECT_EQ(kept.orphan_samples, 0);
    }

    const auto resumed = culprit_cli(bisect);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_EQ(culprit_of(json), project.culprit());
    const auto after = inspect_store(cache());
    EXPECT_EQ(after.integrity, "ok");
    EXPECT_TRUE(std::ranges::includes(after.ok_run_ids, kept.ok_run_ids))
        << "a run measured before the interrupt was lost";
  }
}

TEST_F(Faults, AnInterruptedBisectionKeepsTheEvidenceOfWhatItKnew) {
  const auto json = temp / "bisect.json";
  const auto slow = script("slow.sh", "sleep 0.2\n" + std::string(k_samples));
  for (const bool given : {true, false}) {
    SCOPED_TRACE(given ? "--json FILE" : "the evidence in the cache");
    std::vector<std::string> bisect = {"bisect", "--good", project.good(), "--bad", project.bad(),
                                       "--run",  slow};
    if (given)
      bisect.insert(bisect.end(), {"--json", json.string()});
    auto culprit = culprit_background(bisect);
    std::this_thread::sleep_for(1500ms); // the ends are built and being compared
    culprit.signal(SIGINT);
    const auto stopped = culprit.wait();
    ASSERT_EQ(stopped.exit_code, 130) << stopped.err;
    const auto line = one_error_line(stopped);
    EXPECT_THAT(line, HasSubstr("the evidence so far is in "));
    const auto from = line.find(" is in ") + 7;
    const std::filesystem::path file =
        given ? json
              : std::filesystem::path(line.substr(from, line.find(": run the same", from) - from));
    auto evidence = evidence::load_evidence(file);
    ASSERT_TRUE(evidence) << evidence.error().message;
    EXPECT_EQ(evidence->kind, "bisect");
    EXPECT_EQ(evidence->status, "interrupted");
    ASSERT_TRUE(evidence->bisect);
    EXPECT_EQ(evidence->bisect->good, project.good());
    EXPECT_EQ(evidence->bisect->bad, project.bad());
    const auto shown = culprit_cli({"report", file.string()});
    EXPECT_EQ(shown.exit_code, 0) << shown.err;
  }
}

TEST_F(Faults, ABudgetThatRunsOutIsInconclusiveForEveryCommand) {
  // Each run takes 0.3 s: a budget of a second allows a few, of a nanosecond none.
  const auto slow = script("slow.sh", "sleep 0.3\n" + std::string(k_samples));
  const auto good = project.good();
  const auto bad = project.bad();
  const std::vector<std::vector<std::string>> commands = {
      {"run", bad, "--fresh", "--budget", "1"},
      {"run", bad, "--fresh", "--budget", "0.5", "--warmup", "0"},
      {"run", bad, "--fresh", "--budget", "1e-9"},
      {"compare", good, bad, "--fresh", "--budget", "1"},
      {"compare", good, bad, "--fresh", "--budget", "1e-9"},
      {"bisect", "--good", good, "--bad", bad, "--fresh", "--budget", "1"},
      {"track", good + ".." + bad, "--fresh", "--budget", "0.5"}};
  for (auto args : commands) {
    args.insert(args.end(), {"--run", slow});
    SCOPED_TRACE(args[0] + " " + args[args.size() - 3] + " " + args[args.size() - 4]);
    const auto result = culprit_cli(args);
    EXPECT_EQ(result.exit_code, 3) << result.out << result.err;
    EXPECT_THAT(result.out + result.err, HasSubstr("budget"));
    EXPECT_THAT(result.err, Not(HasSubstr("this is a bug")));
  }
}

} // namespace
} // namespace culprit::testing
