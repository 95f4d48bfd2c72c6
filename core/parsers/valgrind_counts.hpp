#pragma once
// Event counts from Valgrind's profile files: cachegrind.out.<pid> (Cachegrind) and
// callgrind.out.<pid>, callgrind.out.<pid>.<n> (Callgrind; one file per dump, each dump made by
// CALLGRIND_DUMP_STATS_AT("name"), --dump-every-bb, --dump-before/after or the program's end).
// Instruction counts of a deterministic program do not wobble from run to run the way times do,
// so they can drive a bisection that timing noise would blur.
//
// The format is Valgrind's "Callgrind Format" (valgrind.org/docs/manual/cl-format.html), of
// which Cachegrind writes a subset: a header of "key: value" lines (events:, positions:,
// summary:, desc: Trigger: ...), then "fn=" and other "spec=" lines and cost lines (positions,
// then one count per event; missing trailing counts are zero). Names may be compressed
// ("fn=(12) name", later "fn=(12)") and positions relative ("+3", "-1", "*"). The cost line after
// a "calls=" line is the inclusive cost of a call, already counted in the callee's own lines, so
// it is not part of the totals. A file may hold several parts ("part:"); each is one dump.
//
// The totals of a part are its "totals:" line, else its "summary:" line, and either must equal
// the sum of the part's cost lines (a file cut short fails that check). A part with neither is
// summed, but only in a file that says it is Callgrind format ("# callgrind format" or a
// "version:" line) and was not written by Callgrind itself: Cachegrind always ends its files with
// "summary:" and Callgrind with "totals:", so a file of theirs without that line is cut short.
// Callgrind's "summary:" of a dump made by a client request also counts the few instructions of the
// request itself, which no cost line holds; "totals:", the sum of the cost lines, is what is
// reported (callgrind_annotate prints the former as PROGRAM TOTALS, and the latter is the sum of
// its per-function lines).
//
// Metrics, for events recorded with --cache-sim=yes --branch-sim=yes (each metric needs all its
// events; one whose events are absent is left out):
//   instructions          Ir                      data_reads     Dr
//   data_writes           Dw                      branches       Bc + Bi
//   l1_misses_instr       I1mr                    l1_misses_data D1mr + D1mw
//   ll_misses_instr       ILmr                    ll_misses_data DLmr + DLmw
//   branch_mispredictions Bcm + Bim
//   estimated_cycles      L1_hits + 5 LL_hits + 35 RAM_hits, a model, not a measurement, where
//                         RAM_hits = ILmr + DLmr + DLmw (last-level misses),
//                         LL_hits  = I1mr + D1mr + D1mw - RAM_hits (L1 misses the LL served),
//                         L1_hits  = Ir + Dr + Dw - I1mr - D1mr - D1mw;
// the weights are those of iai's and iai-callgrind's (gungraun's) "Estimated Cycles", which
// CodSpeed also uses: a rough cost of a hit at each level of a simulated cache, with no
// pipelining, no prefetching and no branch penalty. All are counts: unit "" and lower is better.

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/parsers/metric.hpp"
#include "core/util/error.hpp"

namespace culprit::parsers {

// The counts of one function (every function of that name, in any file or object).
struct ValgrindFunctionCounts {
  std::string name;
  std::map<std::string, double> self; // events of its own cost lines
  // Self plus the costs of the calls it made (a call to itself is not added twice). Cachegrind
  // records no calls, so there it equals self. callgrind_annotate --inclusive=yes instead gives a
  // function that is called in the file the cost of the calls to it, which in a dump made by a
  // client request also holds the request's own instructions (see "summary:" above).
  std::map<std::string, double> inclusive;
};

// One part (one dump) of a profile file.
struct ValgrindCounts {
  std::string name;        // the name given to CALLGRIND_DUMP_STATS_AT ("case_a"), else ""
  bool named = false;      // made by CALLGRIND_DUMP_STATS_AT, even with an empty name
  std::string trigger;     // why Callgrind dumped ("Client Request: case_a", "Program termination")
  std::optional<int> part; // Callgrind's dump number
  std::map<std::string, double> events; // the totals, by Valgrind's event names (Ir, Dr, ...)
  std::map<std::string, double> counts; // the totals as culprit metrics (valgrind_metrics)
  // The functions whose name matches ValgrindOptions::function_pattern, in the order they first
  // appeared; none without a pattern.
  std::vector<ValgrindFunctionCounts> functions;
};

struct ValgrindOptions {
  // A glob, as Valgrind's --toggle-collect takes them: '*' any run of characters, '?' any one,
  // matched against the whole name ("*BM_sgemm*"). Empty: no per-function counts.
  std::string function_pattern;
};

// Parses a profile held in memory; `source` names it in messages (a file name, or "").
// Errors (ExitCode::infrastructure, one line: "Valgrind: <source>: line <n>: <what>"): no
// events: line before the first cost line; a count that is not a non-negative integer, or more
// counts than events; a position that is not one; a calls= line without a cost line after it;
// totals that differ from the sum of the cost lines; no totals where Valgrind writes them.
[[nodiscard]] Result<std::vector<ValgrindCounts>>
parse_valgrind_counts(std::string_view text, std::string_view source = "",
                      const ValgrindOptions& options = {});

// The same for a file, read a line at a time (profiles of long runs are large). Also an error:
// a file that cannot be read.
[[nodiscard]] Result<std::vector<ValgrindCounts>>
read_valgrind_counts(const std::filesystem::path& path, const ValgrindOptions& options = {});

// Every dump of one Callgrind run whose --callgrind-out-file was `out_file`: the numbered dumps
// `out_file`.1, .2, ... (CALLGRIND_DUMP_STATS_AT and other dumps during the run) in the order of
// their numbers, then `out_file` itself (the dump at the program's end), each file's parts in
// order. Also an error: no such files at all.
[[nodiscard]] Result<std::vector<ValgrindCounts>>
read_callgrind_dumps(const std::filesystem::path& out_file, const ValgrindOptions& options = {});

// The culprit metrics of a set of Valgrind events (see the table above).
[[nodiscard]] std::map<std::string, double>
valgrind_metrics(const std::map<std::string, double>& events);

// What each metric is, for turning counts into CaseSamples: name, unit "" (a count) and
// lower_is_better, in the order of the table above.
struct ValgrindMetric {
  std::string_view name;
  std::string_view unit;
  Direction direction;
};
[[nodiscard]] const std::vector<ValgrindMetric>& valgrind_metric_descriptors();
// Whether `metric` is one of those.
[[nodiscard]] bool is_valgrind_metric(std::string_view metric);

// One sample per metric present in `counts`, for the case `case_name`.
[[nodiscard]] std::vector<CaseSamples>
valgrind_samples(std::string_view case_name, const std::map<std::string, double>& counts);

// Whether `name` matches the glob `pattern` ('*', '?'; see ValgrindOptions).
[[nodiscard]] bool valgrind_name_matches(std::string_view pattern, std::string_view name);

} // namespace culprit::parsers
