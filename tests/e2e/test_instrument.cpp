// End to end: --instrument valgrind. A compiled program whose instruction count two commits set
// apart is compared by its counts, which agree exactly from run to run; bad input is one line and
// exit 2 before anything is built.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/evidence/evidence.hpp"
#include "core/util/fs.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/process.hpp"
#include "tests/support/source_tree.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using testing::run_culprit;
using testing::ScratchRepo;
using testing::TempDir;

// A stand-in for a tool on PATH.
void write_executable(const std::filesystem::path& file, std::string_view text) {
  std::ofstream(file) << text;
  std::filesystem::permissions(file, std::filesystem::perms(0755));
}

// A loop of WORK iterations, its result printed so that it cannot be optimised away; WORK lives in
// work.h, and note.h changes the binary without changing what it executes.
class InstrumentCli : public ::testing::Test {
protected:
  void SetUp() override {
    repo.write("bench.c", R"(#include <stdio.h>
#include "note.h"
#include "work.h"
int main(void) {
  volatile long sum = 0;
  for (long i = 0; i < WORK; ++i)
    sum += i;
  printf("%ld %s\n", (long)sum, NOTE);
  return 0;
}
)");
    repo.write("work.h", "#define WORK 200000\n");
    repo.write("note.h", "#define NOTE \"first\"\n");
    repo.write("culprit.toml", "[build]\ncommand = \"cc -O1 -o {build}/bench {src}/bench.c\"\n"
                               "[run]\ncommand = \"{build}/bench\"\nformat = \"time\"\n");
    base = repo.commit("the loop");
    repo.write("note.h", "#define NOTE \"second\"\n");
    same = repo.commit("another binary, the same work");
    repo.write("work.h", "#define WORK 210000\n");
    slower = repo.commit("5% more iterations");
  }

  testing::ProcessOutput culprit_cli(std::vector<std::string> args,
                                     const std::map<std::string, std::string>& env = {}) {
    args.insert(args.begin(), {"--cache-dir", (temp / "cache").string()});
    return run_culprit(args, repo.dir(), env);
  }

  TempDir temp{"culprit-instrument"};
  ScratchRepo repo{temp / "project"};
  std::string base, same, slower;
};

TEST_F(InstrumentCli, CountsCompareExactlyAndSayWhereTheyCameFrom) {
  const auto json = temp / "compare.json";
  const auto compare =
      culprit_cli({"compare", base, slower, "--instrument", "valgrind", "--json", json.string()});
  ASSERT_EQ(compare.exit_code, 1) << compare.out << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("slower (exact (2 runs a side, identical counts))"));
  const auto evidence = load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  EXPECT_EQ(evidence->settings.instrument, "valgrind");
  EXPECT_EQ(evidence->settings.metric, "instructions");
  ASSERT_EQ(evidence->comparisons.size(), 1U);
  const auto& c = evidence->comparisons[0];
  EXPECT_EQ(c.metric, "instructions");
  EXPECT_EQ(c.case_name, "bench") << "the whole program, one case named after it";
  EXPECT_EQ(c.ci[0], c.ratio);
  EXPECT_EQ(c.ci[1], c.ratio);
  // 10,000 more iterations of a handful of instructions: between 2% and 20% more in all.
  EXPECT_GT(c.ratio, 1.02);
  EXPECT_LT(c.ratio, 1.2);

  // Another binary that executes the same: the same, exactly.
  const auto unchanged = culprit_cli({"compare", base, same, "--instrument", "valgrind"});
  EXPECT_EQ(unchanged.exit_code, 0) << unchanged.out << unchanged.err;
  EXPECT_THAT(unchanged.out, HasSubstr("same (exact"));
}

// Twelve runs of one build count the same, past the tenth (whose run token, in the
// environment, was once a digit longer).
TEST_F(InstrumentCli, EveryRunOfABuildCountsTheSame) {
  const auto json = temp / "twelve.json";
  const auto run = culprit_cli({"run", base, "--instrument", "valgrind", "--min-runs", "12",
                                "--max-runs", "12", "--json", json.string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto evidence = load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_EQ(evidence->measurements.size(), 1U);
  const auto& runs = evidence->measurements[0].runs;
  ASSERT_EQ(runs.size(), 12U);
  for (const auto& samples : runs)
    EXPECT_EQ(samples.at(0), runs[0].at(0));
}

TEST_F(InstrumentCli, BadInputIsOneLineAndNothingIsBuilt) {
  const auto one_line_usage = [&](const testing::ProcessOutput& out, const std::string& part) {
    EXPECT_EQ(out.exit_code, 2) << out.err;
    EXPECT_EQ(std::ranges::count(out.err, '\n'), 1) << out.err;
    EXPECT_THAT(out.err, HasSubstr(part));
  };
  // Valgrind missing: how to install it.
  const auto bin = temp / "bin";
  std::filesystem::create_directories(bin);
  one_line_usage(
      culprit_cli({"compare", base, slower, "--instrument", "valgrind"}, {{"PATH", bin.string()}}),
      "apt-get install valgrind");
  // A count asked of the time instrument.
  one_line_usage(culprit_cli({"compare", base, slower, "--metric", "instructions"}),
                 "only --instrument valgrind");
  // Counts need no duet.
  one_line_usage(culprit_cli({"compare", base, slower, "--instrument", "valgrind", "--duet"}),
                 "no duet");
  // perf missing, perf without counters (as on this kind of VM), a hardware count without it.
  one_line_usage(
      culprit_cli({"compare", base, slower, "--instrument", "perf"}, {{"PATH", bin.string()}}),
      "apt-get install linux-perf");
  const auto vm = temp / "vm-bin";
  std::filesystem::create_directories(vm);
  write_executable(vm / "perf", "#!/bin/sh\n"
                                "echo '<not supported>,,instructions,0,100.00,,' >&2\n"
                                "echo '<not supported>,,cycles,0,100.00,,' >&2\n");
  one_line_usage(culprit_cli({"compare", base, slower, "--instrument", "perf"},
                             {{"PATH", vm.string() + ":/usr/bin:/bin"}}),
                 "no 'instructions' counter to perf");
  one_line_usage(culprit_cli({"compare", base, slower, "--metric", "cycles"}),
                 "only --instrument perf");
  one_line_usage(culprit_cli({"compare", base, slower, "--instrument", "perf", "--duet"}),
                 "no duet");
  // ncu missing; ncu on a machine without a GPU; a kernel's count without it.
  one_line_usage(
      culprit_cli({"compare", base, slower, "--instrument", "ncu"}, {{"PATH", bin.string()}}),
      "ncu, which is not on PATH");
  write_executable(vm / "ncu", "#!/bin/sh\nexit 0\n");
  one_line_usage(culprit_cli({"compare", base, slower, "--instrument", "ncu"},
                             {{"PATH", vm.string() + ":/usr/bin:/bin"}}),
                 "sees no GPU");
  one_line_usage(culprit_cli({"compare", base, slower, "--metric", "l2_hit_rate"}),
                 "only --instrument ncu");
  // An unknown instrument, by flag and in the recipe.
  one_line_usage(culprit_cli({"compare", base, slower, "--instrument", "perfect"}), "--instrument");
  EXPECT_FALSE(std::filesystem::exists(temp / "cache" / "artifacts"));
}

TEST_F(InstrumentCli, AProgramThatCrashesUnderValgrindSaysWhatItsLogSaid) {
  repo.write("bench.c", "#include <stdlib.h>\nint main(void) { abort(); }\n");
  const auto crashing = repo.commit("a benchmark that aborts");
  const auto run = culprit_cli(
      {"run", crashing, "--instrument", "valgrind", "--min-runs", "2", "--max-runs", "2"});
  EXPECT_EQ(run.exit_code, 4) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("under Valgrind"));
  EXPECT_THAT(run.err, HasSubstr("its log ends:"));
}

// A history of 16 commits whose instruction count steps up at the commits given: bisect by counts
// places every probe with one run of its own, and a level between the ends splits the range
// exactly, so both culprits are found with their shares.
class InstrumentBisect : public InstrumentCli {
protected:
  // Commits 1..16 after `slower`; the work grows by a tenth of its start at each of `steps`.
  std::vector<std::string> history(const std::vector<int>& steps) {
    std::vector<std::string> commits;
    long work = 210000; // as `slower` left it
    for (int i = 1; i <= 16; ++i) {
      if (std::ranges::find(steps, i) != steps.end()) {
        work += 21000;
        repo.write("work.h", "#define WORK " + std::to_string(work) + "\n");
      } else {
        repo.write("note.h", "#define NOTE \"n" + std::to_string(i) + "\"\n");
      }
      commits.push_back(repo.commit("commit " + std::to_string(i)));
    }
    return commits;
  }

  // culprit bisect by counts from `slower` to `bad`: its exit 0, and the evidence.
  std::optional<Evidence> bisect_by_counts(const std::string& bad) {
    const auto json = temp / "bisect.json";
    output = culprit_cli({"bisect", "--good", slower, "--bad", bad, "--instrument", "valgrind",
                          "--json", json.string()});
    EXPECT_EQ(output.exit_code, 0) << output.out << output.err;
    auto evidence = load_evidence(json);
    if (!evidence || !evidence->bisect)
      return std::nullopt;
    return std::move(*evidence);
  }

  testing::ProcessOutput output;
};

TEST_F(InstrumentBisect, LocatesTheCulpritWithOneRunAProbe) {
  const auto commits = history({11});
  const auto evidence = bisect_by_counts(commits.back());
  ASSERT_TRUE(evidence) << output.err;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U);
  EXPECT_EQ(evidence->bisect->culprits[0].commit, commits[10]);
  std::size_t runs = 0;
  for (const auto& m : evidence->measurements)
    runs += m.metric == "instructions" ? m.runs.size() : 0;
  for (const auto& step : evidence->bisect->steps) {
    EXPECT_EQ(step.runs, 1) << step.commit;
    EXPECT_THAT(step.note, HasSubstr("exact: counts that do not vary")) << step.commit;
  }
  // The ends' first look (two runs a side, exact), one run a probe, and a second run of the
  // culprit and of its parent (each was a probe, or an end) before the change is named.
  const auto probes = evidence->bisect->steps.size();
  EXPECT_GE(runs, 4 + probes);
  EXPECT_LE(runs, 4 + probes + 2);
  const auto& change = evidence->bisect->culprits[0].cases.at(0);
  EXPECT_EQ(change.ci[0], change.ratio) << "exact: a zero-width interval";
  EXPECT_EQ(change.ci[1], change.ratio);
  EXPECT_GT(change.ratio, 1.02);
}

TEST_F(InstrumentBisect, ALevelBetweenTheEndsSplitsTheRangeExactly) {
  const auto commits = history({5, 12});
  const auto evidence = bisect_by_counts(commits.back());
  ASSERT_TRUE(evidence) << output.err;
  ASSERT_EQ(evidence->bisect->culprits.size(), 2U) << output.out;
  std::vector<std::string> found;
  for (const auto& culprit : evidence->bisect->culprits)
    found.push_back(culprit.commit);
  EXPECT_THAT(found, ::testing::UnorderedElementsAre(commits[4], commits[11]));
  EXPECT_THAT(output.out, HasSubstr("of the whole change"));
}

// --instrument perf with a stand-in for Linux perf that speaks its CSV: instructions are the
// sum the program prints (so they follow WORK) plus a jitter of a few counts, as a real CPU's
// counts vary a little; they go through the ordinary statistics.
TEST_F(InstrumentCli, HardwareCountsThatVaryALittleGoThroughTheOrdinaryStatistics) {
  const auto bin = temp / "perf-bin";
  std::filesystem::create_directories(bin);
  write_executable(bin / "perf", R"(#!/bin/sh
# perf stat -x , [-o FILE] -e EVENTS -- COMMAND...
shift
out=
while [ "$1" != "--" ]; do
  case "$1" in -o) out=$2; shift 2 ;; *) shift ;; esac
done
shift
if [ -z "$out" ]; then
  "$@" >/dev/null
  echo "1000,,instructions:u,1000,100.00,," >&2
  exit 0
fi
printed=$("$@")
status=$?
printf '%s
' "$printed"
sum=${printed%% *}
jitter=$(od -An -N1 -tu1 /dev/urandom | tr -d ' ')
{
  echo "# started on Thu Nov 26 12:00:00 2026"
  echo
  echo "$((sum / 1000 + jitter)),,instructions:u,1234567,100.00,1.20,insn per cycle"
  echo "$((sum / 800)),,cycles:u,1234567,100.00,,"
  echo "5000,,branches:u,1234567,100.00,,"
  echo "$((50 + jitter % 3)),,branch-misses:u,1234567,100.00,1.00,of all branches"
  echo "300,,cache-references:u,1234567,100.00,,"
  echo "30,,cache-misses:u,1234567,100.00,10.00,of all cache refs"
  echo ",,,,,0.45,stalled cycles per insn"
} >"$out"
exit $status
)");
  const std::map<std::string, std::string> env = {
      {"PATH", bin.string() + ":" + std::string(std::getenv("PATH"))}};
  const auto json = temp / "perf.json";
  const auto compare =
      culprit_cli({"compare", base, slower, "--instrument", "perf", "--json", json.string()}, env);
  ASSERT_EQ(compare.exit_code, 1) << compare.out << compare.err;
  const auto evidence = load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  EXPECT_EQ(evidence->settings.instrument, "perf");
  ASSERT_EQ(evidence->comparisons.size(), 1U);
  const auto& c = evidence->comparisons[0];
  EXPECT_EQ(c.metric, "instructions");
  EXPECT_EQ(c.case_name, "bench");
  EXPECT_EQ(c.verdict, "slower");
  EXPECT_LT(c.ci[0], c.ci[1]) << "counts that vary: an interval, not an exact ratio";
  EXPECT_THAT(compare.out, ::testing::Not(HasSubstr("exact")));
  // The sum of 0..WORK-1 grows by (210000/200000)^2.
  EXPECT_NEAR(c.ratio, 1.1025, 0.002);
  EXPECT_GE(c.base_runs, 5) << "no early look after two runs: the counts vary";
  // Any other count it read: cycles.
  const auto cycles =
      culprit_cli({"compare", base, slower, "--instrument", "perf", "--metric", "cycles"}, env);
  EXPECT_EQ(cycles.exit_code, 1) << cycles.out << cycles.err;
}

// --instrument ncu with a stand-in for Nsight Compute that writes its CSV log (the format of
// tests/fixtures/ncu/raw.csv), on a machine whose nvidia-smi (a fake) names an A100: the kernel
// is a case of its own, its instructions follow WORK and do not vary, so the comparison is exact.
TEST_F(InstrumentCli, NsightComputeMetricsAreCasesPerKernel) {
  const auto bin = temp / "ncu-bin";
  std::filesystem::create_directories(bin);
  write_executable(bin / "ncu", R"sh(#!/bin/sh
# ncu --csv --print-units base --target-processes all --metrics M --log-file FILE COMMAND...
log=
while [ "$1" != "--log-file" ]; do shift; done
log=$2
shift 2
printed=$("$@")
status=$?
printf '%s
' "$printed"
sum=${printed%% *}
row() {
  printf '"0","4242","bench","127.0.0.1","void bench_kernel<2>(int, float *)","1","7","(256, 1, 1)","(64, 1, 1)","0","9.0","Command line profiler metrics","%s","%s","%s"
' "$1" "$2" "$3"
}
{
  echo "==PROF== Connected to process 4242"
  echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
  row smsp__inst_executed.sum inst "$((sum / 1000))"
  row dram__bytes_read.sum byte "1,048,576"
  row dram__bytes_write.sum byte "524,288"
  row lts__t_sector_hit_rate.pct % "12.50"
  row sm__warps_active.avg.pct_of_peak_sustained_active % "80.10"
  row sm__cycles_elapsed.avg cycle "$((sum / 5000))"
  echo "==PROF== Disconnected from process 4242"
} >"$log"
exit $status
)sh");
  const std::map<std::string, std::string> env = {
      {"PATH", bin.string() + ":" + testing::source_dir().string() +
                   "/tests/fixtures/host/nvidia-smi/a100:" + std::string(std::getenv("PATH"))}};
  const auto json = temp / "ncu.json";
  const auto compare =
      culprit_cli({"compare", base, slower, "--instrument", "ncu", "--json", json.string()}, env);
  ASSERT_EQ(compare.exit_code, 1) << compare.out << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("bench_kernel<2>"));
  const auto evidence = load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  EXPECT_EQ(evidence->settings.instrument, "ncu");
  ASSERT_EQ(evidence->comparisons.size(), 1U);
  const auto& c = evidence->comparisons[0];
  EXPECT_EQ(c.case_name, "bench_kernel<2>");
  EXPECT_EQ(c.metric, "gpu_instructions");
  EXPECT_EQ(c.ci[0], c.ratio) << "counts that do not vary: exact";
  EXPECT_NEAR(c.ratio, 1.1025, 0.001);
  // A rate where higher is better, and the same in both.
  const auto hit_rate =
      culprit_cli({"compare", base, slower, "--instrument", "ncu", "--metric", "l2_hit_rate"}, env);
  EXPECT_EQ(hit_rate.exit_code, 0) << hit_rate.out << hit_rate.err;
  EXPECT_THAT(hit_rate.out, HasSubstr("same"));
}

// Counts and time set apart: WORK sets what the program executes, SLEEP_US how long it sleeps
// (which executes next to nothing). Under --instrument valgrind, bisect locates by counts and
// compares each culprit with its parent in time; when the ends' counts agree and their times do
// not, it bisects by time.
class InstrumentConfirm : public InstrumentCli {
protected:
  void SetUp() override {
    InstrumentCli::SetUp();
    repo.write("bench.c", R"(#include <stdio.h>
#include <unistd.h>
#include "note.h"
#include "sleep.h"
#include "work.h"
int main(void) {
  volatile long sum = 0;
  for (long i = 0; i < WORK; ++i)
    sum += i;
  usleep(SLEEP_US);
  printf("%ld %s\n", (long)sum, NOTE);
  return 0;
}
)");
    repo.write("work.h", "#define WORK 100000\n");
    repo.write("sleep.h", "#define SLEEP_US 40000\n");
    start = repo.commit("a loop, then a sleep");
  }

  // Eight commits after `start`: at `counted`, the work grows by a fifth; at `timed`, the sleep
  // doubles. 0: never.
  std::vector<std::string> history(int counted, int timed) {
    std::vector<std::string> commits;
    for (int i = 1; i <= 8; ++i) {
      repo.write("note.h", "#define NOTE \"n" + std::to_string(i) + "\"\n");
      if (i == counted)
        repo.write("work.h", "#define WORK 120000\n");
      if (i == timed)
        repo.write("sleep.h", "#define SLEEP_US 80000\n");
      commits.push_back(repo.commit("commit " + std::to_string(i)));
    }
    return commits;
  }

  std::optional<Evidence> bisect(const std::string& bad, int expected_exit = 0) {
    const auto json = temp / "confirm.json";
    output = culprit_cli({"bisect", "--good", start, "--bad", bad, "--instrument", "valgrind",
                          "--json", json.string()});
    EXPECT_EQ(output.exit_code, expected_exit) << output.out << output.err;
    auto evidence = load_evidence(json);
    if (!evidence || !evidence->bisect)
      return std::nullopt;
    return std::move(*evidence);
  }

  std::string start;
  testing::ProcessOutput output;
};

TEST_F(InstrumentConfirm, ACulpritThatCountsLocatedIsComparedWithItsParentInTime) {
  const auto commits = history(5, 5);
  const auto evidence = bisect(commits.back());
  ASSERT_TRUE(evidence) << output.err;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U) << output.out;
  const auto& culprit = evidence->bisect->culprits[0];
  EXPECT_EQ(culprit.commit, commits[4]);
  const auto& moved = culprit.cases.at(0);
  EXPECT_EQ(moved.metric, "instructions");
  EXPECT_TRUE(moved.exact);
  ASSERT_EQ(moved.in_time.size(), 1U);
  const auto& timed = moved.in_time[0];
  EXPECT_EQ(timed.case_name, "bench");
  EXPECT_EQ(timed.base, culprit.parent);
  EXPECT_EQ(timed.head, culprit.commit);
  EXPECT_EQ(timed.verdict, "slower");
  EXPECT_GT(timed.ratio, 1.3) << "40 ms more sleep on top of 40";
  EXPECT_GE(timed.base_runs, 5);
  ASSERT_TRUE(moved.counters) << "the counts it was located by";
  EXPECT_FALSE(moved.counters->changes.empty());
  EXPECT_THAT(output.out, HasSubstr("case bench: instructions +"));
  EXPECT_THAT(output.out, HasSubstr("(exact, identical counts)"));
  EXPECT_THAT(output.out, HasSubstr("in time: "));
  EXPECT_THAT(output.out, HasSubstr(": slower ("));
  // Its timed runs are in the evidence beside its counts.
  bool timed_runs = false;
  for (const auto& m : evidence->measurements)
    timed_runs = timed_runs || (m.commit == culprit.commit && m.metric == timed.metric);
  EXPECT_TRUE(timed_runs);
  EXPECT_NE(timed.metric, "instructions");
}

// A bisection by time counts each culprit and its parent under Valgrind once, for the counter
// diff in its card: the console, Markdown, HTML and the evidence.
TEST_F(InstrumentConfirm, ATimeBisectionShowsEachCulpritsCounterDiff) {
  const auto commits = history(4, 4);
  const auto json = temp / "time.json";
  const auto markdown = temp / "time.md";
  const auto html = temp / "time.html";
  output = culprit_cli({"bisect", "--good", start, "--bad", commits.back(), "--json", json.string(),
                        "--markdown", markdown.string(), "--html", html.string()});
  ASSERT_EQ(output.exit_code, 0) << output.out << output.err;
  const auto evidence = load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U) << output.out;
  EXPECT_EQ(evidence->bisect->culprits[0].commit, commits[3]);
  const auto& moved = evidence->bisect->culprits[0].cases.at(0);
  EXPECT_FALSE(moved.exact);
  EXPECT_TRUE(moved.in_time.empty()) << "located by time: nothing to confirm";
  ASSERT_TRUE(moved.counters) << output.out;
  EXPECT_EQ(moved.counters->case_name, "bench");
  const auto instructions = std::ranges::find(moved.counters->changes, std::string("instructions"),
                                              &EvidenceCounterChange::metric);
  ASSERT_NE(instructions, moved.counters->changes.end());
  // A fifth more iterations of the loop, which is most of what the program executes.
  EXPECT_GT(instructions->culprit / instructions->parent, 1.05);
  EXPECT_LT(instructions->culprit / instructions->parent, 1.25);
  EXPECT_THAT(output.out, HasSubstr("    counts: instructions +"));
  EXPECT_THAT(output.out, HasSubstr("estimated cycles "));
  EXPECT_THAT(read_file(markdown).value_or(""), HasSubstr("counts: instructions +"));
  EXPECT_THAT(read_file(html).value_or(""), HasSubstr("<table class=\"counters\">"));
  EXPECT_THAT(read_file(html).value_or(""), HasSubstr("<td>LL data misses</td>"));

  // --no-counters: no Valgrind runs, no counts.
  const auto quiet_json = temp / "quiet.json";
  output = culprit_cli({"bisect", "--good", start, "--bad", commits.back(), "--no-counters",
                        "--json", quiet_json.string()});
  ASSERT_EQ(output.exit_code, 0) << output.out << output.err;
  const auto quiet = load_evidence(quiet_json);
  ASSERT_TRUE(quiet) << quiet.error().message;
  ASSERT_EQ(quiet->bisect->culprits.size(), 1U);
  EXPECT_FALSE(quiet->bisect->culprits[0].cases.at(0).counters);
  EXPECT_THAT(output.out, ::testing::Not(HasSubstr("counts: ")));
}

TEST_F(InstrumentConfirm, ACountedChangeThatCostsNoTimeIsNotCalledSlowerInTime) {
  const auto commits = history(3, 0);
  const auto evidence = bisect(commits.back());
  ASSERT_TRUE(evidence) << output.err;
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U) << output.out;
  EXPECT_EQ(evidence->bisect->culprits[0].commit, commits[2]);
  const auto& moved = evidence->bisect->culprits[0].cases.at(0);
  EXPECT_GT(moved.ratio, 1.1) << "a fifth more work";
  ASSERT_EQ(moved.in_time.size(), 1U);
  // 20,000 more iterations next to a 40 ms sleep: far under the threshold in time.
  EXPECT_NE(moved.in_time[0].verdict, "slower") << output.out;
  EXPECT_LT(moved.in_time[0].ratio, 1.05) << output.out;
}

TEST_F(InstrumentConfirm, EndsWhoseCountsAgreeAreBisectedByTime) {
  const auto commits = history(0, 6);
  const auto evidence = bisect(commits.back());
  ASSERT_TRUE(evidence) << output.err;
  EXPECT_THAT(output.out,
              HasSubstr("note: the ends' counts of bench do not show the change their times "
                        "do: bisected by time"));
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U) << output.out;
  const auto& culprit = evidence->bisect->culprits[0];
  EXPECT_EQ(culprit.commit, commits[5]);
  EXPECT_NE(culprit.cases.at(0).metric, "instructions");
  EXPECT_FALSE(culprit.cases.at(0).exact);
  EXPECT_TRUE(culprit.cases.at(0).in_time.empty());
  // The probes were timed: their runs are in the evidence.
  EXPECT_FALSE(evidence->measurements.empty());
  for (const auto& step : evidence->bisect->steps)
    EXPECT_GE(step.runs, 2) << step.commit;
}

TEST_F(InstrumentConfirm, EndsThatAgreeInCountsAndTimeAreNotReproduced) {
  const auto commits = history(0, 0);
  const auto evidence = bisect(commits.back(), 5);
  ASSERT_TRUE(evidence) << output.err;
  EXPECT_EQ(evidence->status, "not_reproduced");
  EXPECT_TRUE(evidence->bisect->culprits.empty());
}

// culprit's own harness marks each case with Callgrind's client requests: a case is counted alone,
// one call of it, without the harness around it. kernels_bench_cpu is such a program.
TEST(InstrumentHarness, EachCaseIsCountedAloneOneCallOfIt) {
  const std::filesystem::path bench =
      std::filesystem::path(CULPRIT_BINARY_DIR) / "kernels" / "kernels_bench_cpu";
  ASSERT_TRUE(std::filesystem::exists(bench)) << bench;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "kernels_bench_cpu is built with a sanitizer here, and Valgrind cannot run it";
#endif
  TempDir temp{"culprit-instrument-harness"};
  ScratchRepo repo{temp / "project"};
  repo.write("culprit.toml", "[build]\ncommand = \"cp " + bench.string() +
                                 " {build}/bench\"\nartifacts = [\"bench\"]\n"
                                 "[run]\ncommand = [\"{build}/bench\", \"--case\", \"saxpy/*\"]\n"
                                 "format = \"culprit\"\n");
  const auto head = repo.commit("the benchmark");
  const auto json = temp / "run.json";
  const auto run = run_culprit({"--cache-dir", (temp / "cache").string(), "run", head,
                                "--instrument", "valgrind", "--json", json.string()},
                               repo.dir());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto evidence = load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  std::map<std::string, double> instructions;
  for (const auto& m : evidence->measurements) {
    EXPECT_EQ(m.metric, "instructions") << m.case_name;
    ASSERT_GE(m.runs.size(), 2U) << m.case_name;
    for (const auto& samples : m.runs) {
      ASSERT_EQ(samples.size(), 1U) << m.case_name;
      EXPECT_EQ(samples[0], m.runs[0][0]) << m.case_name << ": counts that do not wobble";
    }
    instructions[m.case_name] = m.runs[0][0];
  }
  ASSERT_EQ(instructions.size(), 2U) << "one count per case, none for the program as a whole";
  const double small = instructions["saxpy/N=65536"];
  const double large = instructions["saxpy/N=1048576"];
  // One call of each: about two instructions an element, and 16 times the elements.
  EXPECT_GT(small, 65536.0);
  EXPECT_LT(small, 4 * 65536.0);
  EXPECT_NEAR(large / small, 16.0, 0.2);
}

} // namespace
} // namespace culprit
