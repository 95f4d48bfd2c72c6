// End to end: --instrument valgrind, perf and ncu. A compiled program whose instruction count
// two commits set apart is compared by its counts, which agree exactly from run to run under
// Valgrind (and vary a little under a stand-in perf); ncu's kernels are cases; culprit's harness
// is counted per case; bad input is one line and exit 2 before anything is built.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/evidence/evidence.hpp"
#include "core/util/fs.hpp"
#include "tests/e2e/instrument_test_support.hpp"
#include "tests/support/source_tree.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using testing::run_culprit;
using testing::ScratchRepo;
using testing::TempDir;
using testing::write_executable;

class InstrumentCli : public testing::InstrumentProject {};

TEST_F(InstrumentCli, CountsCompareExactlyAndSayWhereTheyCameFrom) {
  const auto json = temp / "compare.json";
  const auto compare =
      culprit_cli({"compare", base, slower, "--instrument", "valgrind", "--json", json.string()});
  ASSERT_EQ(compare.exit_code, 1) << compare.out << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("slower (exact (2 runs a side, identical counts))"));
  const auto evidence = evidence::load_evidence(json);
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
  const auto evidence = evidence::load_evidence(json);
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

// A program that fails under Valgrind: its signal or status and its own stderr, with what
// Valgrind's log says of the signal, never Valgrind's statistics.
TEST_F(InstrumentCli, AProgramThatCrashesUnderValgrindSaysItsSignalAndWhatItPrinted) {
  repo.write("bench.c",
             "#include <stdio.h>\n#include <stdlib.h>\n"
             "int main(void) { fputs(\"bad input: no matrix\\n\", stderr); abort(); }\n");
  const auto crashing = repo.commit("a benchmark that aborts");
  const auto run = culprit_cli(
      {"run", crashing, "--instrument", "valgrind", "--min-runs", "2", "--max-runs", "2"});
  EXPECT_EQ(run.exit_code, 4) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("killed by signal 6"));
  EXPECT_THAT(run.err, HasSubstr("under Valgrind: bad input: no matrix"));
  EXPECT_THAT(run.err, HasSubstr("Process terminating with default action of signal 6"));
  EXPECT_THAT(run.err, ::testing::Not(HasSubstr("Mispred")));
  EXPECT_THAT(run.err, ::testing::Not(HasSubstr("refs:")));
}

// A benchmark that hangs under Valgrind is stopped at the scaled timeout, which the message gives
// with the run timeout it came from, and is not started again: a stand-in valgrind that never ends
// is called once, where each further try would cost the scaled timeout again.
TEST_F(InstrumentCli, AHungBenchmarkUnderValgrindTimesOutOnceAtTheScaledLimit) {
  const auto bin = temp / "hung-bin";
  std::filesystem::create_directories(bin);
  write_executable(bin / "valgrind", "#!/bin/sh\n"
                                     "echo started >>\"$(dirname \"$0\")/calls\"\n"
                                     "exec sleep 60\n");
  const std::map<std::string, std::string> env = {
      {"PATH", bin.string() + ":" + std::string(std::getenv("PATH"))}};
  const auto run = culprit_cli({"run", base, "--instrument", "valgrind", "--timeout", "0.02"}, env);
  EXPECT_EQ(run.exit_code, 4) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("timed out after 1 s under Valgrind, 50 times the run timeout "
                                 "of 0.02 s"));
  EXPECT_THAT(run.err, HasSubstr("not tried again"));
  EXPECT_EQ(run.err.find("error:"), run.err.rfind("error:")) << "one error line: " << run.err;
  const auto calls = read_file(bin / "calls");
  ASSERT_TRUE(calls);
  EXPECT_EQ(std::ranges::count(*calls, '\n'), 1) << *calls;
}

// CALLGRIND_DUMP_STATS_AT("") names no case: refused at the first run with what to do, where the
// dump was once dropped and the run counted without it.
TEST_F(InstrumentCli, ADumpWithAnEmptyNameIsRefused) {
  repo.write("bench.c", R"(#include <stdio.h>
#include <valgrind/callgrind.h>
int main(void) {
  volatile long sum = 0;
  for (long i = 0; i < 1000; ++i)
    sum += i;
  CALLGRIND_DUMP_STATS_AT("first");
  for (long i = 0; i < 2000; ++i)
    sum += i;
  CALLGRIND_DUMP_STATS_AT("");
  printf("%ld\n", (long)sum);
  return 0;
}
)");
  const auto nameless = repo.commit("a dump without a name");
  const auto run = culprit_cli({"run", nameless, "--instrument", "valgrind"});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("CALLGRIND_DUMP_STATS_AT(\"\")"));
  EXPECT_EQ(run.err.find("error:"), run.err.rfind("error:")) << "one error line: " << run.err;
}

// The cache directory's path is in the run's arguments ({build}) and environment (CULPRIT_BUILD,
// GIT_CEILING_DIRECTORIES, and PWD under a shell): its length changed what the shell, the dynamic
// loader and libc execute, by thousands of instructions through a shell. Padded to one length, what
// is left is libc reading the program's path, whose characters still differ: a few instructions.
TEST_F(InstrumentCli, CountsHardlyDependOnTheCacheDirectorysPath) {
  repo.write("culprit.toml", "[build]\ncommand = \"cc -O1 -o {build}/bench {src}/bench.c\"\n"
                             "[run]\ncommand = \"{build}/bench && true\"\nformat = \"time\"\n");
  const auto instructions = [&](const std::filesystem::path& cache) {
    const auto json = temp / "counts.json";
    const auto run =
        run_culprit({"--cache-dir", cache.string(), "run", base, "--instrument", "valgrind",
                     "--min-runs", "2", "--max-runs", "2", "--json", json.string()},
                    repo.dir());
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    const auto evidence = evidence::load_evidence(json);
    EXPECT_TRUE(evidence) << evidence.error().message;
    if (!evidence || evidence->measurements.empty() || evidence->measurements[0].runs.empty())
      return -1.0;
    return evidence->measurements[0].runs[0].at(0);
  };
  const double near = instructions(temp / "c");
  const double far =
      instructions(temp / std::string(150, 'x') / "a-cache-directory-with-a-long-name");
  EXPECT_GT(near, 0);
  EXPECT_NEAR(near, far, 16);
}

// A program built for a CPU newer than Valgrind's simulated one: Valgrind stops it at the first
// instruction it cannot decode (SIGILL), and says so in its log. A stand-in valgrind writes what
// Valgrind 3.19 writes there; the message says what to do about it.
TEST_F(InstrumentCli, AnInstructionValgrindLacksIsNamedWithWhatToDo) {
  const auto bin = temp / "valgrind-bin";
  std::filesystem::create_directories(bin);
  write_executable(bin / "valgrind", R"sh(#!/bin/sh
echo started >>"$(dirname "$0")/calls"
for arg in "$@"; do
  case "$arg" in --log-file=*) log=$(echo "${arg#--log-file=}" | sed "s/%p/$$/") ;; esac
done
{
  echo "vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0x7C 0x48 0x10 0x0 0xC5 0xF8 0x77 0x48"
  echo "vex amd64->IR:   REX=0 REX.W=0 REX.R=0 REX.X=0 REX.B=0"
  echo "==$$== valgrind: Unrecognised instruction at address 0x109171."
  echo "==$$== Process terminating with default action of signal 4 (SIGILL)"
} >"$log"
kill -ILL $$
)sh");
  const std::map<std::string, std::string> env = {
      {"PATH", bin.string() + ":" + std::string(std::getenv("PATH"))}};
  const auto run = culprit_cli(
      {"run", base, "--instrument", "valgrind", "--min-runs", "2", "--max-runs", "2"}, env);
  EXPECT_EQ(run.exit_code, 4) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("uses an instruction that Valgrind's simulated CPU lacks "
                                 "(AVX-512 or a newer extension)"));
  EXPECT_THAT(run.err, HasSubstr("-march=x86-64-v3"));
  EXPECT_EQ(run.err.find("error:"), run.err.rfind("error:")) << "one error line: " << run.err;
  // No run can succeed: the first one says so, and no other is tried.
  const auto calls = read_file(bin / "calls");
  ASSERT_TRUE(calls);
  EXPECT_EQ(std::ranges::count(*calls, '\n'), 1) << *calls;
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
  const auto evidence = evidence::load_evidence(json);
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
  const auto evidence = evidence::load_evidence(json);
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

// culprit's own harness marks each case with Callgrind's client requests: a case is counted alone,
// one call of it, without the harness around it. kernels_bench_cpu is such a program.
// A Google Benchmark program under Valgrind: each case is counted from its own timed loop (one
// iteration a repetition), so a case whose loop does more work is slower by exactly that, and a
// case that did not change is the same, exactly, beside it.
TEST(InstrumentGbench, EachCaseIsCountedFromItsOwnTimedLoop) {
  TempDir temp{"culprit-instrument-gbench"};
  ScratchRepo repo{temp / "project"};
  repo.write("bench.cc", R"(#include <benchmark/benchmark.h>
#include "work.h"
static void BM_work(benchmark::State& state) {
  for (auto _ : state) {
    long x = 0;
    for (long i = 0; i < WORK * state.range(0); ++i)
      benchmark::DoNotOptimize(x += i);
  }
}
BENCHMARK(BM_work)->Arg(1)->Arg(2);
static void BM_steady(benchmark::State& state) {
  for (auto _ : state) {
    long x = 0;
    for (long i = 0; i < 500; ++i)
      benchmark::DoNotOptimize(x += i);
  }
}
BENCHMARK(BM_steady);
BENCHMARK_MAIN();
)");
  repo.write("work.h", "#define WORK 1000\n");
  repo.write(
      "culprit.toml",
      "[build]\ncommand = \"c++ -O1 -o {build}/bench {src}/bench.cc -lbenchmark -lpthread\"\n"
      "[run]\ncommand = \"{build}/bench --benchmark_format=json "
      "--benchmark_repetitions=2\"\nformat = \"gbench\"\n");
  const auto base = repo.commit("the benchmark");
  repo.write("work.h", "#define WORK 1100\n");
  const auto slower = repo.commit("10% more work in each loop");
  const auto json = temp / "compare.json";
  const auto compare = run_culprit({"--cache-dir", (temp / "cache").string(), "compare", base,
                                    slower, "--instrument", "valgrind", "--json", json.string()},
                                   repo.dir());
  ASSERT_EQ(compare.exit_code, 1) << compare.out << compare.err;
  const auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  std::map<std::string, const evidence::EvidenceComparison*> by_case;
  for (const auto& c : evidence->comparisons) {
    EXPECT_EQ(c.metric, "instructions") << c.case_name;
    by_case[c.case_name] = &c;
  }
  ASSERT_EQ(by_case.size(), 3U) << compare.out;
  for (const auto* name : {"BM_work/1", "BM_work/2"}) {
    ASSERT_TRUE(by_case.contains(name)) << name << compare.out;
    const auto& c = *by_case[name];
    EXPECT_EQ(c.verdict, "slower") << name;
    EXPECT_EQ(c.ci[0], c.ci[1]) << name << ": exact";
    // A loop of four instructions an iteration, plus the few of the loop's own set-up.
    EXPECT_NEAR(c.ratio, 1.1, 0.005) << name;
  }
  ASSERT_TRUE(by_case.contains("BM_steady")) << compare.out;
  EXPECT_EQ(by_case["BM_steady"]->verdict, "same");
  EXPECT_EQ(by_case["BM_steady"]->ratio, 1.0);
  // Each run holds a count per repetition, all the same.
  for (const auto& m : evidence->measurements) {
    if (m.metric != "instructions")
      continue;
    for (const auto& run : m.runs) {
      ASSERT_EQ(run.size(), 2U) << m.case_name;
      EXPECT_EQ(run[0], run[1]) << m.case_name;
      EXPECT_EQ(run[0], m.runs[0][0]) << m.case_name;
    }
  }

  // A minimum time in the recipe's environment is for timed runs: under the instrument culprit
  // asks for one iteration a repetition in its place, and the counts are those of one loop.
  repo.write(
      "culprit.toml",
      "[build]\ncommand = \"c++ -O1 -o {build}/bench {src}/bench.cc -lbenchmark -lpthread\"\n"
      "[run]\ncommand = \"{build}/bench --benchmark_format=json\"\nformat = \"gbench\"\n"
      "env = { BENCHMARK_MIN_TIME = \"0.05\" }\n");
  const auto env_timed = repo.commit("a minimum time for timed runs");
  const auto env_json = temp / "env.json";
  const auto counted =
      run_culprit({"--cache-dir", (temp / "cache").string(), "run", env_timed, "--instrument",
                   "valgrind", "--min-runs", "2", "--json", env_json.string()},
                  repo.dir());
  ASSERT_EQ(counted.exit_code, 0) << counted.out << counted.err;
  const auto env_evidence = evidence::load_evidence(env_json);
  ASSERT_TRUE(env_evidence) << env_evidence.error().message;
  std::map<std::string, double> env_counts;
  for (const auto& m : env_evidence->measurements)
    if (m.metric == "instructions" && !m.runs.empty() && !m.runs[0].empty())
      env_counts[m.case_name] = m.runs[0][0];
  ASSERT_TRUE(env_counts.contains("BM_work/1")) << counted.out;
  // The same loop as the slower commit's (WORK 1100): one iteration, not a batch.
  int compared = 0;
  for (const auto& m : evidence->measurements) {
    if (m.metric == "instructions" && m.case_name == "BM_work/1" && m.commit == slower) {
      EXPECT_EQ(env_counts["BM_work/1"], m.runs[0][0]);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 1);

  // A minimum time on the command line makes Google Benchmark run batches until they fill it:
  // counts that follow the machine's speed are refused at the first run, with what to do. The
  // time is long enough that a first iteration never fills it alone, however slow Valgrind's
  // first translation of the loop on a loaded machine (at 0.01 s it once did, and there was one
  // batch a case and nothing to refuse).
  repo.write(
      "culprit.toml",
      "[build]\ncommand = \"c++ -O1 -o {build}/bench {src}/bench.cc -lbenchmark -lpthread\"\n"
      "[run]\ncommand = \"{build}/bench --benchmark_format=json "
      "--benchmark_min_time=0.2\"\nformat = \"gbench\"\n");
  const auto timed = repo.commit("a minimum time");
  const auto refused = run_culprit(
      {"--cache-dir", (temp / "cache").string(), "run", timed, "--instrument", "valgrind"},
      repo.dir());
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("leave it out under --instrument valgrind"));
}

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
  const auto evidence = evidence::load_evidence(json);
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
