#pragma once
// Runs under an instrument that counts what the program executes, beside the time it takes.
//
// valgrind: each run goes under Valgrind's Callgrind with cache and branch simulation, following
// the processes it starts (--trace-children=yes), each writing its profile into a directory of
// the run's own. What they executed becomes metrics of the run (core/parsers/valgrind_counts.hpp:
// instructions, data reads and writes, L1 and last-level misses, branches and mispredictions,
// and estimated cycles, a model). A program that names its cases with Callgrind's client request
// CALLGRIND_DUMP_STATS_AT("case") is counted per case, from those dumps. A Google Benchmark
// program is counted per case too: Callgrind dumps as each timed loop starts and just before it
// finishes (--dump-after=benchmark::State::StartKeepRunning*, --dump-before=benchmark::State::
// FinishKeepRunning*), so that the second dump holds the loop alone, and the loops are matched in
// order to the program's iteration rows (one per repetition), divided by their iterations. The
// run's environment sets BENCHMARK_MIN_TIME=0 (in place of the recipe's, which is for its timed
// runs), so that each repetition is one batch of one iteration (Google Benchmark otherwise grows
// its batches until they fill half a second, 50 times slower under the simulation), and
// LD_BIND_NOW=1, so that the first loop does not also count the dynamic linker resolving
// FinishKeepRunning. Where the loops and rows do not match one to one (a
// --benchmark_min_time on the command line, several threads, a row with an error) the program is
// counted as a whole. Any other program is counted as a whole, every process of the run together,
// as one case named after the program (as the `time` format names its case). The counts do not
// depend on the machine's load, so two runs of one build agree exactly; the benchmark's own times,
// taken 20 to 100 times slower under the simulation, are kept but say little.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/exec/executor.hpp"
#include "core/parsers/metric.hpp"
#include "core/util/error.hpp"

namespace culprit::measure {

// How much longer a run takes under Valgrind, and under ncu (which replays each kernel launch
// once per pass of its metrics): its timeout is scaled by this.
inline constexpr double k_valgrind_slowdown = 50.0;
inline constexpr double k_ncu_slowdown = 50.0;

// Whether `metric` is one that an instrument counts (Valgrind's, perf's or ncu's), not a time.
[[nodiscard]] bool is_count_metric(std::string_view metric);

// The valgrind program on PATH, or a usage error that says how to install it.
Result<std::filesystem::path> find_valgrind();

// A directory for one run's profiles under `scratch`, unique in the process (lanes that measure at
// once share the scratch directory).
std::filesystem::path next_counts_dir(const std::filesystem::path& scratch);

// `request` run under Callgrind, writing its profiles into `dir` (created).
Result<exec::ExecRequest> under_valgrind(exec::ExecRequest request,
                                         const std::filesystem::path& valgrind,
                                         const std::filesystem::path& dir);

// perf: each run under `perf stat -x ,` (core/parsers/perf_stat.hpp), counting the CPU's
// instructions, cycles, branches and mispredictions, cache references and misses of the run and
// every process it starts, as one case named after the program. Counts of a real CPU: they vary
// a little from run to run and go through the ordinary statistics.

// The perf program on PATH whose counters work here. Usage errors: perf missing (how to install
// it); a machine that exposes no hardware counters (most virtual machines: use valgrind).
Result<std::filesystem::path> find_perf();

// `request` run under `perf stat`, writing its counts to `file`.
exec::ExecRequest under_perf(exec::ExecRequest request, const std::filesystem::path& perf,
                             const std::filesystem::path& file);

// ncu: each run under Nsight Compute's `ncu --csv` (core/parsers/ncu_csv.hpp), every process it
// starts profiled, each CUDA kernel a case with its instructions executed, DRAM bytes read and
// written, L2 hit rate, achieved occupancy and SM cycles (the mean over its launches).

// The ncu program on PATH. Usage errors: ncu missing; no GPU (`gpu`: the host probe saw one).
Result<std::filesystem::path> find_ncu(bool gpu);

// `request` run under ncu, writing its CSV log to `file`; the timeout scaled by k_ncu_slowdown.
exec::ExecRequest under_ncu(exec::ExecRequest request, const std::filesystem::path& ncu,
                            const std::filesystem::path& file);
// The log a request made by under_ncu writes; empty for any other request.
std::optional<std::filesystem::path> ncu_counts_file(const exec::ExecRequest& request);

// The directory a request made by under_valgrind writes into, and the command it wraps; empty
// for any other request.
std::optional<std::filesystem::path> counts_dir(const exec::ExecRequest& request);
// The file a request made by under_perf writes its counts to; empty for any other request.
std::optional<std::filesystem::path> perf_counts_file(const exec::ExecRequest& request);
// The directory of the run's counts of a request made by under_valgrind, under_perf or
// under_ncu (removed after the run); empty for any other request.
std::optional<std::filesystem::path> instrument_dir(const exec::ExecRequest& request);
// What the instrument of such a request counted, as samples: Valgrind's per case named by a dump,
// per Google Benchmark case (`rows`: the run's iteration rows, one value each), else the whole
// run as `whole_case`; perf's as `whole_case`; ncu's per kernel. Errors: counts missing or
// unreadable; a usage error when perf found no counters.
Result<std::vector<parsers::CaseSamples>>
instrument_samples(const exec::ExecRequest& request, std::string_view whole_case,
                   std::span<const parsers::IterationRow> rows = {});

// The command a request made by under_valgrind, under_perf or under_ncu wraps, with its own
// timeout; any other as it is.
exec::ExecRequest unwrapped(const exec::ExecRequest& request);

// What the run's user may still write on the filesystem that holds a directory: bytes, and files
// where the filesystem limits them; none when statvfs(3) cannot tell.
struct DiskRoom {
  std::uint64_t bytes = 0;
  std::optional<std::uint64_t> files;
};
std::optional<DiskRoom> disk_room(const std::filesystem::path& dir);
using DiskRoomProbe = std::optional<DiskRoom> (*)(const std::filesystem::path& dir);
// Less room than this (or no file left) is a full disk: Callgrind writes its profile in buffers
// far smaller, so a write it could not finish leaves a disk about this empty.
inline constexpr std::uint64_t k_full_disk_bytes = std::uint64_t{1} << 20;

// What the profiles in `dir` counted, as samples: per case named by a dump (one value each), per
// Google Benchmark case when its timed loops match `rows` one to one (a value per repetition),
// else the whole run as `whole_case`. Errors: no profile (the program did not run under
// Valgrind), or one that cannot be read, said to be the disk's doing when `room` finds the disk
// that holds `dir` full (Callgrind itself says nothing when a write fails); a usage error for a
// dump named with an empty name (CALLGRIND_DUMP_STATS_AT("")), which names no case.
Result<std::vector<parsers::CaseSamples>>
counted_samples(const std::filesystem::path& dir, std::string_view whole_case,
                std::span<const parsers::IterationRow> rows = {}, DiskRoomProbe room = disk_room);

// How much an instrument scaled the timeout of a request made by under_valgrind or under_ncu
// (k_valgrind_slowdown, k_ncu_slowdown); none for any other request.
std::optional<double> timeout_scale(const exec::ExecRequest& request);

// How a run of `request` ended, as exec::describe_outcome says it of the command the instrument
// wrapped, followed by the instrument ("exited with status 3 under Valgrind"); a timeout is the
// one the run had, with the run timeout it was scaled from ("timed out after 5 s under Valgrind,
// 50 times the run timeout of 0.1 s"). Any other request: exec::describe_outcome.
std::string instrumented_outcome(const exec::ExecResult& ran, const exec::ExecRequest& request);

// Why a run made by under_valgrind failed, for its record: its outcome (instrumented_outcome), the
// end of the program's own stderr, and what Valgrind's logs in the run's directory say besides
// their banner and statistics (a fatal signal with its stack, an error of Valgrind's own); an
// instruction the simulated CPU lacks is named as such, with what to do, and no other run of the
// program can succeed.
struct ValgrindFailure {
  std::string message;
  bool unsupported_instruction = false;
};
ValgrindFailure valgrind_failure(const exec::ExecResult& ran, const exec::ExecRequest& request);

// Under Valgrind the length of the run's arguments and environment changes what the shell, the
// dynamic loader and libc execute before main, so a path that depends on where the cache is (the
// artifacts as {build} and {src}, the run's directory as PWD, the cache as
// GIT_CEILING_DIRECTORIES) is padded with slashes to this length. What is left is libc reading the
// program's path, whose characters still differ between cache directories: a few instructions.
inline constexpr std::size_t k_counted_path_length = 512;
// `dir` with slashes added at its end up to k_counted_path_length characters; as it is when longer.
std::string fixed_length_path(const std::filesystem::path& dir);

} // namespace culprit::measure
