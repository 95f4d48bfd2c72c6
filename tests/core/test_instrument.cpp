// Runs under an instrument (core/measure/instrument.hpp): how a failed run is described (the
// timeout it had, the program's own words before Valgrind's statistics), what its profiles count
// when they are cut short by a full disk or name a dump with nothing, the paths padded to one
// length, and a run that timed out under an instrument that is not tried again.

#include "core/measure/instrument.hpp"

#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/fake_measure.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit::measure {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

void write_text(const std::filesystem::path& file, std::string_view text) {
  std::ofstream(file, std::ios::binary) << text;
}

exec::ExecRequest bench_request(const std::filesystem::path& dir) {
  exec::ExecRequest request;
  request.command = std::vector<std::string>{"/opt/bench/bench", "--size", "4"};
  request.cwd = dir;
  request.timeout = exec::Seconds(0.1);
  return request;
}

exec::ExecResult timed_out() {
  exec::ExecResult ran;
  ran.exit_code = -1;
  ran.signal = 9;
  ran.timed_out = true;
  return ran;
}

TEST(Instrument, ATimeoutIsTheOneTheRunHadWithTheRunTimeoutItWasScaledFrom) {
  testing::TempDir temp{"culprit-instrument-outcome"};
  const auto valgrind =
      under_valgrind(bench_request(temp.path()), "/usr/bin/valgrind", temp.path() / "counts-1");
  ASSERT_TRUE(valgrind) << valgrind.error().message;
  EXPECT_EQ(timeout_scale(*valgrind), k_valgrind_slowdown);
  EXPECT_EQ(instrumented_outcome(timed_out(), *valgrind),
            "timed out after 5 s under Valgrind, 50 times the run timeout of 0.1 s");
  EXPECT_THAT(valgrind_failure(timed_out(), *valgrind).message,
              HasSubstr("the benchmark bench timed out after 5 s under Valgrind, 50 times the run "
                        "timeout of 0.1 s"));

  const auto ncu = under_ncu(bench_request(temp.path()), "/usr/bin/ncu", temp.path() / "ncu.csv");
  EXPECT_EQ(timeout_scale(ncu), k_ncu_slowdown);
  EXPECT_EQ(instrumented_outcome(timed_out(), ncu),
            "timed out after 5 s under ncu, 50 times the run timeout of 0.1 s");

  // perf counts at the CPU's own speed: its timeout is the run's.
  const auto perf = under_perf(bench_request(temp.path()), "/usr/bin/perf", temp.path() / "p.csv");
  EXPECT_FALSE(timeout_scale(perf));
  EXPECT_EQ(instrumented_outcome(timed_out(), perf), "timed out after 0.1 s under perf");
  exec::ExecResult failed;
  failed.exit_code = 3;
  EXPECT_EQ(instrumented_outcome(failed, perf), "exited with status 3 under perf");
  EXPECT_EQ(instrumented_outcome(failed, bench_request(temp.path())), "exited with status 3");
}

// What Valgrind 3.19's Callgrind logs for a program that aborts: a banner, notes on the cache
// simulation, the fatal signal with its stack, then its statistics.
constexpr std::string_view k_abort_log =
    "==9622== Callgrind, a call-graph generating cache profiler\n"
    "==9622== Copyright (C) 2002-2017, and GNU GPL'd, by Josef Weidendorfer et al.\n"
    "==9622== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info\n"
    "==9622== Command: /opt/bench/bench --size 4\n"
    "==9622== Parent PID: 9600\n"
    "==9622== \n"
    "--9622-- warning: L3 cache found, using its data for the LL simulation.\n"
    "==9622== For interactive control, run 'callgrind_control -h'.\n"
    "==9622== \n"
    "==9622== Process terminating with default action of signal 6 (SIGABRT)\n"
    "==9622==    at 0x48D2EEC: __pthread_kill_implementation (pthread_kill.c:44)\n"
    "==9622==    by 0x4883FB1: raise (raise.c:26)\n"
    "==9622==    by 0x486E471: abort (abort.c:79)\n"
    "==9622== \n"
    "==9622== Events    : Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n"
    "==9622== Collected : 124034 27274 11562 1036 868 558 1025 737 535 25194 3044 270 143\n"
    "==9622== \n"
    "==9622== I   refs:      124,034\n"
    "==9622== Branches:       25,464  (25,194 cond +    270 ind)\n"
    "==9622== Mispredicts:     3,187  ( 3,044 cond +    143 ind)\n"
    "==9622== Mispred rate:     12.5% (  12.1%     +   53.0%   )\n";

TEST(Instrument, AFailureUnderValgrindSaysWhatTheProgramSaidAndNotValgrindsStatistics) {
  testing::TempDir temp{"culprit-instrument-failure"};
  const auto dir = temp.path() / "counts-1";
  const auto request = under_valgrind(bench_request(temp.path()), "/usr/bin/valgrind", dir);
  ASSERT_TRUE(request) << request.error().message;
  write_text(dir / "valgrind.log.9622", k_abort_log);
  exec::ExecResult aborted;
  aborted.exit_code = -1;
  aborted.signal = 6;
  aborted.err = "bad input: no matrix\n";
  const auto failure = valgrind_failure(aborted, *request);
  EXPECT_FALSE(failure.unsupported_instruction);
  EXPECT_THAT(failure.message, HasSubstr("the benchmark bench killed by signal 6"));
  EXPECT_THAT(failure.message, HasSubstr("under Valgrind: bad input: no matrix;"));
  EXPECT_THAT(failure.message,
              HasSubstr("Valgrind's log: Process terminating with default action of signal 6 "
                        "(SIGABRT) | at 0x48D2EEC"));
  for (const auto* statistic : {"Mispred", "Branches", "refs", "Events", "Collected", "Copyright",
                                "callgrind_control", "L3 cache"})
    EXPECT_THAT(failure.message, Not(HasSubstr(statistic))) << statistic;

  // A program that exits with a status: its stderr, and nothing of a log that holds only the
  // banner and the statistics.
  write_text(dir / "valgrind.log.9622",
             std::string(k_abort_log.substr(0, k_abort_log.find("==9622== Process"))) +
                 std::string(k_abort_log.substr(k_abort_log.find("==9622== Events"))));
  exec::ExecResult failed;
  failed.exit_code = 3;
  failed.err = "cannot open data.bin\n";
  EXPECT_EQ(valgrind_failure(failed, *request).message,
            "the benchmark bench exited with status 3 under Valgrind: cannot open data.bin");
}

// A profile Callgrind began where it could not finish: a name line and no totals.
constexpr std::string_view k_cut_short = "# callgrind format\n"
                                         "version: 1\n"
                                         "creator: callgrind-3.19.0\n"
                                         "events: Ir\n"
                                         "fn=(1) main\n"
                                         "3 1200\n";

std::optional<DiskRoom> full_disk(const std::filesystem::path&) {
  return DiskRoom{.bytes = 4096, .files = 1000};
}
std::optional<DiskRoom> no_files_left(const std::filesystem::path&) {
  return DiskRoom{.bytes = std::uint64_t{1} << 34, .files = 0};
}
std::optional<DiskRoom> roomy_disk(const std::filesystem::path&) {
  return DiskRoom{.bytes = std::uint64_t{1} << 34, .files = std::nullopt};
}

TEST(Instrument, AProfileCutShortOnAFullDiskSaysTheDiskIsFull) {
  testing::TempDir temp{"culprit-instrument-disk"};
  const auto dir = temp.path() / "counts-1";
  std::filesystem::create_directories(dir);
  write_text(dir / "callgrind.out.42", k_cut_short);
  const auto full = counted_samples(dir, "bench", {}, full_disk);
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error().code, ExitCode::infrastructure);
  EXPECT_THAT(full.error().message, HasSubstr("the disk is full"));
  EXPECT_THAT(full.error().message, HasSubstr("4.0 KiB left"));
  EXPECT_THAT(full.error().message, HasSubstr("cut short")) << "what was wrong with the file";
  EXPECT_THAT(full.error().message, HasSubstr("--cache-dir"));
  const auto no_files = counted_samples(dir, "bench", {}, no_files_left);
  ASSERT_FALSE(no_files);
  EXPECT_THAT(no_files.error().message, HasSubstr("the disk is full"));
  // With room on the disk the file is what is wrong.
  const auto roomy = counted_samples(dir, "bench", {}, roomy_disk);
  ASSERT_FALSE(roomy);
  EXPECT_THAT(roomy.error().message, HasSubstr("cut short"));
  EXPECT_THAT(roomy.error().message, Not(HasSubstr("disk is full")));

  // An empty file, as a write that found no room at all leaves, and no file at all.
  write_text(dir / "callgrind.out.42", "");
  EXPECT_THAT(counted_samples(dir, "bench", {}, full_disk).error().message,
              HasSubstr("the disk is full"));
  std::filesystem::remove(dir / "callgrind.out.42");
  EXPECT_THAT(counted_samples(dir, "bench", {}, full_disk).error().message,
              HasSubstr("the disk is full"));
  EXPECT_THAT(counted_samples(dir, "bench", {}, roomy_disk).error().message,
              HasSubstr("left no Valgrind profile"));

  // The real probe finds room where the tests run.
  const auto room = disk_room(temp.path());
  ASSERT_TRUE(room);
  EXPECT_GT(room->bytes, 0U);
}

// A dump made by CALLGRIND_DUMP_STATS_AT("") would be a case without a name: the run is refused
// with what to do, never counted without it.
TEST(Instrument, ADumpNamedWithNothingIsRefused) {
  testing::TempDir temp{"culprit-instrument-dumps"};
  const auto profile = [](std::string_view trigger, int ir) {
    return fmt::format("# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n"
                       "desc: Trigger: {}\nevents: Ir\nfn=(1) main\n3 {}\ntotals: {}\n",
                       trigger, ir, ir);
  };
  write_text(temp.path() / "callgrind.out.42.1", profile("Client Request: case_a", 100));
  write_text(temp.path() / "callgrind.out.42.2", profile("Client Request:", 200));
  write_text(temp.path() / "callgrind.out.42", profile("Program termination", 7));
  const auto refused = counted_samples(temp.path(), "bench");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ExitCode::usage);
  EXPECT_THAT(refused.error().message, HasSubstr("CALLGRIND_DUMP_STATS_AT(\"\")"));
  EXPECT_THAT(refused.error().message, HasSubstr("give each CALLGRIND_DUMP_STATS_AT the name"));

  // Named dumps, and one without a name (CALLGRIND_DUMP_STATS), which is set-up.
  write_text(temp.path() / "callgrind.out.42.2", profile("Client Request", 200));
  const auto counted = counted_samples(temp.path(), "bench");
  ASSERT_TRUE(counted) << counted.error().message;
  ASSERT_FALSE(counted->empty());
  for (const auto& samples : *counted)
    EXPECT_EQ(samples.case_name, "case_a");
}

TEST(Instrument, PathsArePaddedToOneLengthThatNamesTheSameDirectory) {
  testing::TempDir temp{"culprit-instrument-paths"};
  const auto padded = fixed_length_path(temp.path());
  EXPECT_EQ(padded.size(), k_counted_path_length);
  EXPECT_TRUE(padded.starts_with(temp.path().string()));
  EXPECT_TRUE(std::filesystem::equivalent(padded, temp.path()));
  EXPECT_TRUE(std::filesystem::equivalent(padded + "/.", temp.path()));
  EXPECT_EQ(fixed_length_path(std::string(600, 'a')), std::string(600, 'a')) << "as it is";
  // The run's directory, as a shell exports it, and the ceiling of git's search, at that length.
  auto bench = bench_request(temp.path());
  bench.env["GIT_CEILING_DIRECTORIES"] = (temp.path() / "cache").string();
  const auto request = under_valgrind(bench, "/usr/bin/valgrind", temp.path() / "counts-1");
  ASSERT_TRUE(request) << request.error().message;
  EXPECT_EQ(request->env.at("PWD"), padded);
  EXPECT_EQ(request->env.at("GIT_CEILING_DIRECTORIES"), fixed_length_path(temp.path() / "cache"));
}

// Under Valgrind a program does the same work in every run, so one that outlived the scaled
// timeout would again: the first timeout ends the measurement, with what to do.
TEST(InstrumentSampler, ARunThatTimesOutUnderValgrindIsNotTriedAgain) {
  testing::FakeRig rig;
  auto options = rig.sampler().options();
  options.run.instrument = recipe::Instrument::valgrind;
  options.run.timeout = exec::Seconds(0.1);
  options.instrument_program = "/usr/bin/valgrind";
  Sampler sampler(rig.executor(), rig.store(), options);
  rig.executor().set_default(
      {.cases = {testing::fake_case("bench", 1e-3)}, .behaviour = FakeBehaviour::time_out});
  const auto subject = testing::FakeRig::subject("c0");
  const std::array wants = {RunsWanted{&subject, 3}};
  const auto ensured = sampler.ensure(wants);
  ASSERT_FALSE(ensured);
  EXPECT_EQ(ensured.error().code, ExitCode::infrastructure);
  EXPECT_THAT(ensured.error().message,
              HasSubstr("timed out after 5 s under Valgrind, 50 times the run timeout of 0.1 s"));
  EXPECT_THAT(ensured.error().message, HasSubstr("not tried again"));
  EXPECT_THAT(ensured.error().message, HasSubstr("--timeout"));
  EXPECT_EQ(sampler.runs_made(), 1);

  // Timed runs are tried again, up to the failures in a row that give a revision up.
  rig.new_sampler();
  const auto timed = rig.sampler().ensure(wants);
  ASSERT_FALSE(timed);
  EXPECT_EQ(rig.sampler().runs_made(), k_max_failures_in_a_row);
}

} // namespace
} // namespace culprit::measure
